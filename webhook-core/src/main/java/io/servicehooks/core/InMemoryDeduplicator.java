package io.servicehooks.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import com.github.benmanes.caffeine.cache.stats.ConcurrentStatsCounter;
import com.github.benmanes.caffeine.cache.stats.StatsCounter;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@link Deduplicator#inMemory} on a Caffeine cache. A claimed id maps to a {@link Lease} (owner
 * token and the ticker time the lease ends) until it is done ({@link #DONE}, shared by every done
 * id so a remembered id costs no value object) or released (removed). A lease that ran out is taken
 * over by the next claim. The window counts from when the id was last seen (claimed, done, or
 * refused as a duplicate): expiring after access rather than after write lets one access-order list
 * serve both expiry and the size bound, which saves 8 bytes a node.
 *
 * <p>Every state change is one atomic map operation ({@code putIfAbsent}, or {@code replace} and
 * {@code remove} against the exact value read), never read-then-write. The cache's statistics are
 * recorded here, since the map operations the claims use record none: a claim that finds the id is
 * a hit, one that takes it a miss and a put, and marking an id done a put.
 *
 * <p>Memory: a remembered id costs Caffeine's node, the map's node and slot, the frequency sketch
 * and the key. The key is the largest part for a string, so envelope keys whose id is a decimal
 * {@code long} (the platform's {@code event_uuid}s) or a canonical UUID are stored as a {@link
 * Long} or {@link UUID} instead: 16 or 32 bytes in place of about 64. Both forms round-trip
 * exactly, so no two different keys can meet.
 */
final class InMemoryDeduplicator implements Deduplicator, MeteredStore {

  private static final Object DONE = Boolean.TRUE;

  private static final String ENVELOPE_PREFIX = "e:";

  private static final CompletableFuture<Boolean> TRUE = CompletableFuture.completedFuture(true);
  private static final CompletableFuture<Boolean> FALSE = CompletableFuture.completedFuture(false);
  private static final CompletableFuture<Claim> DONE_CLAIM =
      CompletableFuture.completedFuture(Claim.done());

  /** A live claim: its owner's token and the ticker time its lease ends. */
  private record Lease(String token, long expiresAt) {}

  private final Cache<Object, Object> cache;
  private final Ticker ticker;
  private final StatsCounter stats = new ConcurrentStatsCounter();
  private final LongAdder puts = new LongAdder();
  private final AtomicLong tokens = new AtomicLong();

  InMemoryDeduplicator(Duration window, long maxEntries, Ticker ticker) {
    Objects.requireNonNull(window, "window");
    if (window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("dedup window must be positive, was " + window);
    }
    if (maxEntries < 1) {
      throw new IllegalArgumentException("dedup maxEntries must be at least 1, was " + maxEntries);
    }
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.cache =
        Caffeine.newBuilder()
            .expireAfterAccess(window)
            .maximumSize(maxEntries)
            .ticker(ticker)
            // Upkeep (expiry, eviction) runs on the calling thread in small amortized steps
            // instead of waking a common-pool thread after writes: on a server pinned to few
            // cores, that wake-up is a context switch per burst of deliveries.
            .executor(Runnable::run)
            // Caffeine records evictions here; hits, misses and puts are recorded by the claims.
            .recordStats(() -> stats)
            .build();
  }

  @Override
  public CompletionStage<Claim> claim(String key, Duration lease) {
    Object compact = compact(key);
    long now = ticker.read();
    Lease mine = new Lease(Long.toString(tokens.incrementAndGet()), now + saturatedNanos(lease));
    while (true) {
      // putIfAbsent also touches a present entry, so a copy refused here counts as seen and the
      // id is remembered a window from now.
      Object current = cache.asMap().putIfAbsent(compact, mine);
      if (current == null) {
        return taken(mine);
      }
      if (current == DONE) {
        stats.recordHits(1);
        return DONE_CLAIM;
      }
      Lease held = (Lease) current;
      long remaining = held.expiresAt() - now;
      if (remaining > 0) {
        stats.recordHits(1);
        return CompletableFuture.completedFuture(
            Claim.runningElsewhere(Duration.ofNanos(remaining)));
      }
      // The owner's lease ran out (it crashed, or is far too slow): this claim takes over.
      if (cache.asMap().replace(compact, held, mine)) {
        return taken(mine);
      }
      // The entry changed between the two operations: look again.
      now = ticker.read();
    }
  }

  private CompletionStage<Claim> taken(Lease mine) {
    stats.recordMisses(1);
    puts.increment();
    return CompletableFuture.completedFuture(Claim.claimed(mine.token()));
  }

  @Override
  public CompletionStage<Boolean> markDone(String key, String token) {
    Object compact = compact(key);
    Lease held = liveLease(compact, token);
    if (held != null && cache.asMap().replace(compact, held, DONE)) {
      puts.increment();
      return TRUE;
    }
    return FALSE;
  }

  @Override
  public CompletionStage<Boolean> release(String key, String token) {
    Object compact = compact(key);
    Lease held = liveLease(compact, token);
    return held != null && cache.asMap().remove(compact, held) ? TRUE : FALSE;
  }

  @Override
  public CompletionStage<Boolean> renew(String key, String token, Duration lease) {
    Object compact = compact(key);
    Lease held = liveLease(compact, token);
    if (held == null) {
      return FALSE;
    }
    Lease renewed = new Lease(token, ticker.read() + saturatedNanos(lease));
    return cache.asMap().replace(compact, held, renewed) ? TRUE : FALSE;
  }

  /** The key's lease if {@code token} still owns it and it has not run out, else null. */
  private Lease liveLease(Object compact, String token) {
    Object current = cache.asMap().get(compact);
    if (current instanceof Lease held
        && held.token().equals(token)
        && held.expiresAt() - ticker.read() > 0) {
      return held;
    }
    return null;
  }

  /** Far beyond any real lease; keeps now + lease from overflowing. */
  private static final Duration LONGEST_LEASE = Duration.ofDays(365);

  private static long saturatedNanos(Duration lease) {
    Objects.requireNonNull(lease, "lease");
    if (lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("lease must be positive, was " + lease);
    }
    return lease.compareTo(LONGEST_LEASE) > 0 ? LONGEST_LEASE.toNanos() : lease.toNanos();
  }

  @Override
  public boolean mayBlock() {
    return false;
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
    binder.cache("webhook.dedup", cache, puts::sum);
  }

  @Override
  public String toString() {
    return "InMemoryDeduplicator[size=" + cache.estimatedSize() + "]";
  }
}
