package io.servicehooks.core;

import java.time.Duration;

/**
 * Remembers which events were handled, so that a redelivered event is acknowledged without running
 * its listeners again. This is the SPI behind dedup: implement it to share the memory between
 * instances (Redis {@code SET NX PX}, a database unique key), or use {@link #inMemory()}.
 *
 * <p>The consumer calls {@link #tryClaim} before running an event's listeners, then exactly one of
 * {@link #markDone} (listeners succeeded) or {@link #release} (they failed, or the event could not
 * be queued). Keys are short opaque strings built by the consumer. Implementations must be
 * thread-safe and {@code tryClaim} must be atomic. Duplicates that arrive while the original is
 * still running in this process never reach the store: the consumer answers them itself with the
 * original's outcome.
 */
public interface Deduplicator {

  /** Default window: the platform replays at most 24 hours back. */
  Duration DEFAULT_WINDOW = Duration.ofHours(24);

  /** Default bound on remembered ids. */
  long DEFAULT_MAX_ENTRIES = 1_000_000;

  /**
   * Atomically claims {@code key}: {@code true} if this caller now owns the event, {@code false} if
   * it is done or claimed elsewhere.
   */
  boolean tryClaim(String key);

  /** The claimed event was handled: remember it for the window. */
  void markDone(String key);

  /** The claimed event was not handled: forget the claim so a redelivery runs it again. */
  void release(String key);

  /**
   * Whether a call may block (network or disk I/O). Adapters then ask the store from a worker
   * thread, never from a server's IO thread. Stores that only touch memory return {@code false}.
   */
  default boolean mayBlock() {
    return true;
  }

  /**
   * In-memory on Caffeine, remembering ids for 24 hours after they were last seen, at most one
   * million of them (about 115 bytes each for the platform's numeric {@code event_uuid}s).
   */
  static Deduplicator inMemory() {
    return inMemory(DEFAULT_WINDOW, DEFAULT_MAX_ENTRIES);
  }

  /**
   * In-memory on Caffeine.
   *
   * @param window how long a handled id is remembered, counted from when it was last seen (handled
   *     or refused as a duplicate)
   * @param maxEntries how many ids at most; past it the least recently written are forgotten
   */
  static Deduplicator inMemory(Duration window, long maxEntries) {
    return new InMemoryDeduplicator(
        window, maxEntries, com.github.benmanes.caffeine.cache.Ticker.systemTicker());
  }

  /** No dedup at all: every event is handled every time it arrives. */
  static Deduplicator none() {
    return NoDeduplicator.INSTANCE;
  }
}
