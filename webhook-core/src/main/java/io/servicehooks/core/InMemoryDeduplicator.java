package io.servicehooks.core;

import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * {@link Deduplicator#inMemory} on a {@link SeenTable}. A claimed id maps to a {@link Lease} (owner
 * token and the ticker time the lease ends) until it is done ({@link #DONE}, shared by every done
 * id so a remembered id costs no value object) or released (removed). A lease that ran out is taken
 * over by the next claim. The window counts from when the id was last seen (claimed, done, or
 * refused as a duplicate): expiring after access rather than after write lets the table's one
 * access-order list serve both expiry and the size bound.
 *
 * <p>Every state change is one atomic table operation ({@code putIfAbsent}, or {@code replace} and
 * {@code remove} whose comparison, made under the table's lock, is that the token still owns a
 * lease that has not run out), never read-then-write. The statistics the cache meters publish are
 * counted here: a claim that finds the id is a hit, one that takes it a miss and a put, and marking
 * an id done a put; evictions are the table's.
 *
 * <p>Memory: a remembered id costs its place in the table's arrays and, for a key the table cannot
 * hold as a number, the key object. The key is the largest part for a string, so envelope keys
 * whose id is a decimal {@code long} (the platform's {@code event_uuid}s) are passed as a {@link
 * Long}, which the table keeps as a primitive, and canonical UUIDs as a {@link UUID} (32 bytes in
 * place of about 64). Both forms round-trip exactly, so no two different keys can meet.
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

  private final SeenTable table;
  private final LongSupplier ticker;
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder puts = new LongAdder();
  private final AtomicLong tokens = new AtomicLong();

  /**
   * @param ticker the time in nanoseconds from an arbitrary origin, as {@link System#nanoTime}
   */
  InMemoryDeduplicator(Duration window, long maxEntries, LongSupplier ticker) {
    Objects.requireNonNull(window, "window");
    if (window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("dedup window must be positive, was " + window);
    }
    if (maxEntries < 1) {
      throw new IllegalArgumentException("dedup maxEntries must be at least 1, was " + maxEntries);
    }
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.table = new SeenTable(saturatedWindowNanos(window), maxEntries);
  }

  @Override
  public CompletionStage<Claim> claim(String key, Duration lease) {
    Object compact = compact(key);
    long now = ticker.getAsLong();
    Lease mine = new Lease(Long.toString(tokens.incrementAndGet()), now + saturatedNanos(lease));
    while (true) {
      // putIfAbsent also touches a present entry, so a copy refused here counts as seen and the
      // id is remembered a window from now.
      Object current = table.putIfAbsent(compact, mine, now);
      if (current == null) {
        return taken(mine);
      }
      if (current == DONE) {
        hits.increment();
        return DONE_CLAIM;
      }
      Lease held = (Lease) current;
      long remaining = held.expiresAt() - now;
      if (remaining > 0) {
        hits.increment();
        return CompletableFuture.completedFuture(
            Claim.runningElsewhere(Duration.ofNanos(remaining)));
      }
      // The owner's lease ran out (it crashed, or is far too slow): this claim takes over.
      if (table.replace(compact, current::equals, mine, now)) {
        return taken(mine);
      }
      // The entry changed between the two operations: look again.
      now = ticker.getAsLong();
    }
  }

  private CompletionStage<Claim> taken(Lease mine) {
    misses.increment();
    puts.increment();
    return CompletableFuture.completedFuture(Claim.claimed(mine.token()));
  }

  @Override
  public CompletionStage<Boolean> markDone(String key, String token) {
    long now = ticker.getAsLong();
    if (table.replace(compact(key), value -> ownedBy(value, token, now), DONE, now)) {
      puts.increment();
      return TRUE;
    }
    return FALSE;
  }

  @Override
  public CompletionStage<Boolean> release(String key, String token) {
    long now = ticker.getAsLong();
    return table.remove(compact(key), value -> ownedBy(value, token, now), now) ? TRUE : FALSE;
  }

  @Override
  public CompletionStage<Boolean> renew(String key, String token, Duration lease) {
    long now = ticker.getAsLong();
    Lease renewed = new Lease(token, now + saturatedNanos(lease));
    return table.replace(compact(key), value -> ownedBy(value, token, now), renewed, now)
        ? TRUE
        : FALSE;
  }

  /** Whether {@code value} is a lease of {@code token} that has not run out at {@code now}. */
  private static boolean ownedBy(Object value, String token, long now) {
    return value instanceof Lease held && held.token().equals(token) && held.expiresAt() - now > 0;
  }

  /** A window in nanoseconds; windows past about 292 years are held as that. */
  private static long saturatedWindowNanos(Duration window) {
    try {
      return window.toNanos();
    } catch (ArithmeticException tooLong) {
      return Long.MAX_VALUE;
    }
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
    Long number = canonicalLong(key);
    if (number != null) {
      return number;
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

  /**
   * The id after the prefix as a {@code long}, or null unless it is one written canonically: digits
   * with an optional minus, no leading zero (so "7" and "007" stay apart, and "-0" stays a string),
   * within range. Checked and read in one pass over the characters, accumulated as a negative
   * number (whose range reaches {@link Long#MIN_VALUE}) as {@link Long#parseLong} does, without its
   * per-character {@code Character.digit}: this runs twice for every event.
   */
  private static Long canonicalLong(String key) {
    int i = ENVELOPE_PREFIX.length();
    boolean negative = key.charAt(i) == '-';
    if (negative) {
      i++;
    }
    int digits = key.length() - i;
    if (digits < 1 || digits > 19 || (key.charAt(i) == '0' && (digits > 1 || negative))) {
      return null;
    }
    long limit = negative ? Long.MIN_VALUE : -Long.MAX_VALUE;
    long beforeLastStep = limit / 10; // below this, one more digit would pass the limit
    long value = 0;
    for (; i < key.length(); i++) {
      int digit = key.charAt(i) - '0';
      if (digit < 0 || digit > 9) {
        return null;
      }
      if (value < beforeLastStep) {
        return null;
      }
      value *= 10;
      if (value < limit + digit) {
        return null;
      }
      value -= digit;
    }
    return negative ? value : -value;
  }

  /** Ids remembered, as the cache meters publish it. */
  long size() {
    return table.size();
  }

  /** Claims that found the id done or claimed elsewhere. */
  long hits() {
    return hits.sum();
  }

  /** Claims that took the id. */
  long misses() {
    return misses.sum();
  }

  /** Ids forgotten because their window passed or the bound was reached. */
  long evictions() {
    return table.evictions();
  }

  /** Entries written: ids taken, and ids marked done. */
  long puts() {
    return puts.sum();
  }

  @Override
  public void bindTo(MetricsBinder binder) {
    binder.cache("webhook.dedup", this);
  }

  @Override
  public String toString() {
    return "InMemoryDeduplicator[size=" + table.size() + "]";
  }
}
