package io.servicehooks.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;
import java.util.Objects;

/**
 * {@link Deduplicator#inMemory} on a Caffeine cache. A claimed id maps to {@link #CLAIMED} until
 * it is done ({@link #DONE}) or released (removed). The window counts from the last write, so a
 * done id is remembered for the whole window after its listeners finished.
 */
final class InMemoryDeduplicator implements Deduplicator {

  private static final Boolean CLAIMED = Boolean.FALSE;
  private static final Boolean DONE = Boolean.TRUE;

  private final Cache<String, Boolean> cache;

  InMemoryDeduplicator(Duration window, long maxEntries, Ticker ticker) {
    Objects.requireNonNull(window, "window");
    if (window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("dedup window must be positive, was " + window);
    }
    if (maxEntries < 1) {
      throw new IllegalArgumentException("dedup maxEntries must be at least 1, was " + maxEntries);
    }
    this.cache =
        Caffeine.newBuilder()
            .expireAfterWrite(window)
            .maximumSize(maxEntries)
            .ticker(ticker)
            .recordStats()
            .build();
  }

  @Override
  public boolean tryClaim(String key) {
    return cache.asMap().putIfAbsent(key, CLAIMED) == null;
  }

  @Override
  public void markDone(String key) {
    cache.put(key, DONE);
  }

  @Override
  public void release(String key) {
    cache.asMap().remove(key, CLAIMED);
  }

  Cache<String, Boolean> cache() {
    return cache;
  }

  @Override
  public String toString() {
    return "InMemoryDeduplicator[size=" + cache.estimatedSize() + "]";
  }
}
