package io.servicehooks.core;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.cache.CacheMeterBinder;
import java.util.List;

/**
 * The in-memory dedup store's cache meters ({@code cache.size}, {@code cache.gets} by hit and miss,
 * {@code cache.puts}, {@code cache.evictions}), each of which moves. Load meters are left out: the
 * store never loads. Loaded only with {@link MicrometerBinder}.
 */
final class DedupCacheMetrics extends CacheMeterBinder<InMemoryDeduplicator> {

  DedupCacheMetrics(InMemoryDeduplicator store, String name) {
    super(store, name, List.of());
  }

  @Override
  protected Long size() {
    InMemoryDeduplicator store = getCache();
    return store == null ? null : store.size();
  }

  @Override
  protected long hitCount() {
    InMemoryDeduplicator store = getCache();
    return store == null ? 0 : store.hits();
  }

  @Override
  protected Long missCount() {
    InMemoryDeduplicator store = getCache();
    return store == null ? null : store.misses();
  }

  @Override
  protected Long evictionCount() {
    InMemoryDeduplicator store = getCache();
    return store == null ? null : store.evictions();
  }

  @Override
  protected long putCount() {
    InMemoryDeduplicator store = getCache();
    return store == null ? 0 : store.puts();
  }

  @Override
  protected void bindImplementationSpecificMetrics(MeterRegistry registry) {}
}
