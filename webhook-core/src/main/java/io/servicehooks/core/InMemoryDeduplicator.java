package io.servicehooks.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;

/**
 * {@link Deduplicator#inMemory} on a Caffeine cache. A claimed id maps to {@link #CLAIMED} until it
 * is done ({@link #DONE}) or released (removed). The window counts from when the id was last seen
 * (claimed, done, or refused as a duplicate): expiring after access rather than after write lets
 * one access-order list serve both expiry and the size bound, which saves 8 bytes a node.
 *
 * <p>Memory: a remembered id costs Caffeine's node, the map's node and slot, the frequency sketch
 * and the key. The key is the largest part for a string, so envelope keys whose id is a decimal
 * {@code long} (the platform's {@code event_uuid}s) or a canonical UUID are stored as a {@link
 * Long} or {@link UUID} instead: 16 or 32 bytes in place of about 64. Both forms round-trip
 * exactly, so no two different keys can meet.
 */
final class InMemoryDeduplicator implements Deduplicator, MeteredStore {

  private static final Boolean CLAIMED = Boolean.FALSE;
  private static final Boolean DONE = Boolean.TRUE;

  private static final String ENVELOPE_PREFIX = "e:";

  private final Cache<Object, Boolean> cache;

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
            .expireAfterAccess(window)
            .maximumSize(maxEntries)
            .ticker(ticker)
            // Upkeep (expiry, eviction) runs on the calling thread in small amortized steps
            // instead of waking a common-pool thread after writes: on a server pinned to few
            // cores, that wake-up is a context switch per burst of deliveries.
            .executor(Runnable::run)
            .recordStats()
            .build();
  }

  @Override
  public boolean tryClaim(String key) {
    return cache.asMap().putIfAbsent(compact(key), CLAIMED) == null;
  }

  @Override
  public void markDone(String key) {
    cache.put(compact(key), DONE);
  }

  @Override
  public boolean mayBlock() {
    return false;
  }

  @Override
  public void release(String key) {
    cache.asMap().remove(compact(key), CLAIMED);
  }

  /**
   * The smallest exact form of a key: a Long or UUID for envelope ids that are one, else the key.
   */
  static Object compact(String key) {
    int length = key.length();
    if (length < 3 || !key.startsWith(ENVELOPE_PREFIX)) {
      return key;
    }
    if (isCanonicalLong(key)) {
      try {
        return Long.valueOf(Long.parseLong(key, ENVELOPE_PREFIX.length(), length, 10));
      } catch (NumberFormatException outOfRange) {
        return key;
      }
    }
    if (length == ENVELOPE_PREFIX.length() + 36
        && key.charAt(ENVELOPE_PREFIX.length() + 8) == '-') {
      String id = key.substring(ENVELOPE_PREFIX.length());
      try {
        UUID uuid = UUID.fromString(id);
        return uuid.toString().equals(id) ? uuid : key;
      } catch (IllegalArgumentException notUuid) {
        return key;
      }
    }
    return key;
  }

  /** Digits with an optional minus, no leading zero (so "7" and "007" stay apart), at most 19. */
  private static boolean isCanonicalLong(String key) {
    int i = ENVELOPE_PREFIX.length();
    if (key.charAt(i) == '-') {
      i++;
    }
    int digits = key.length() - i;
    if (digits < 1 || digits > 19 || (key.charAt(i) == '0' && (digits > 1 || i > 2))) {
      return false;
    }
    for (; i < key.length(); i++) {
      char c = key.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  @Override
  public void bindTo(MetricsBinder binder) {
    binder.cache("webhook.dedup", cache);
  }

  @Override
  public String toString() {
    return "InMemoryDeduplicator[size=" + cache.estimatedSize() + "]";
  }
}
