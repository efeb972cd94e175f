package io.servicehooks.core;

import com.github.benmanes.caffeine.cache.Cache;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.cache.CacheMeterBinder;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The in-memory dedup store's cache meters ({@code cache.size}, {@code cache.gets} by hit and miss,
 * {@code cache.puts}, {@code cache.evictions}), each of which moves. Micrometer's {@code
 * CaffeineCacheMetrics} would read puts from load counts and publish load meters, which stay 0 for
 * a store that never loads. Loaded only with {@link MicrometerBinder}.
 */
final class DedupCacheMetrics extends CacheMeterBinder<Cache<?, ?>> {

  private final LongSupplier puts;

  DedupCacheMetrics(Cache<?, ?> cache, String name, LongSupplier puts) {
    super(cache, name, List.of());
    this.puts = puts;
  }

  @Override
  protected Long size() {
    Cache<?, ?> cache = getCache();
    return cache == null ? null : cache.estimatedSize();
  }

  @Override
  protected long hitCount() {
    Cache<?, ?> cache = getCache();
    return cache == null ? 0 : cache.stats().hitCount();
  }

  @Override
  protected Long missCount() {
    Cache<?, ?> cache = getCache();
    return cache == null ? null : cache.stats().missCount();
  }

  @Override
  protected Long evictionCount() {
    Cache<?, ?> cache = getCache();
    return cache == null ? null : cache.stats().evictionCount();
  }

  @Override
  protected long putCount() {
    return puts.getAsLong();
  }

  @Override
  protected void bindImplementationSpecificMetrics(MeterRegistry registry) {}
}
