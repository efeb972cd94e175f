package io.servicehooks.core;

import java.util.Arrays;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * The in-memory dedup store's table: keys mapped to values, each remembered for a window from when
 * it was last seen, at most a bounded number in all, the least recently seen forgotten first. It
 * knows nothing of claims or leases; {@link InMemoryDeduplicator} gives the values their meaning.
 *
 * <p>A dedup set is the friendliest workload a bounded map can have: every entry lives for the same
 * window, so the least recently seen entry is always the first to expire as well as the first to
 * evict, and ids arrive once (or twice within minutes), so frequency-based admission has nothing to
 * learn. One access-order list per segment therefore serves both bounds, and each operation is one
 * hash lookup, a few pointer moves and at most a few removals from the list's head, under a lock
 * held for a fraction of a microsecond.
 *
 * <p>The keys are split over a power-of-two number of segments by the high bits of their mixed
 * hash; each segment is a chained hash table threaded by a doubly linked list in the order its
 * entries were last seen (head: longest ago). A segment holds its entries in parallel arrays
 * indexed by entry number (key, value, time, hash and the three links as {@code int}s), not as an
 * object each: a table of a million ids is a few dozen long-lived arrays that the garbage collector
 * copies once, where a node per entry would be a million objects copied between the young
 * generation's spaces until they are old enough to promote. Each segment holds at most {@code
 * maxEntries / segments} entries, so the total never passes {@code maxEntries}; a table small
 * enough to evict in tests has one segment, and so evicts in exact least-recently-seen order.
 *
 * <p>An entry whose window has passed counts as absent from the moment it passed, whether or not it
 * was removed yet: every lookup checks it, and every insertion trims the list's head of entries
 * past their window or over the bound, counting the removals as evictions. Time is passed in by the
 * caller (nanoseconds from any origin, as {@link System#nanoTime}), so the table has no clock.
 *
 * <p>Memory per entry: 40 bytes across the arrays (the key's slot, a {@code long} number, the
 * value's slot, the time, the hash and three links) plus its share of the slots, against a node in
 * both a cache's own structure and a concurrent map's in a general-purpose cache. A {@link Long}
 * key is held as a primitive (its key slot then {@link #NUMERIC}): no key object per entry, and one
 * memory access fewer per lookup in a table of a million ids.
 */
final class SeenTable {

  /** Segments beyond this gain nothing on the machines a consumer runs on. */
  private static final int MAX_SEGMENTS = 32;

  /** A segment is not split below this many entries, so small tables evict in exact order. */
  private static final int MIN_SEGMENT_ENTRIES = 4096;

  private static final int INITIAL_ENTRIES = 16;

  /** No entry: the end of a chain or of the list, an empty slot. */
  private static final int NONE = -1;

  /** The key of an entry whose key is the {@code long} in its number. */
  private static final Object NUMERIC = new Object();

  private final long windowNanos;
  private final Segment[] segments;
  private final int segmentShift;

  /**
   * @param windowNanos how long an entry is remembered after it was last seen; positive
   * @param maxEntries how many entries at most; positive
   */
  SeenTable(long windowNanos, long maxEntries) {
    if (windowNanos <= 0) {
      throw new IllegalArgumentException("window must be positive, was " + windowNanos + " ns");
    }
    if (maxEntries < 1) {
      throw new IllegalArgumentException("maxEntries must be at least 1, was " + maxEntries);
    }
    this.windowNanos = windowNanos;
    int count = 1;
    while (count < MAX_SEGMENTS && maxEntries / (count * 2L) >= MIN_SEGMENT_ENTRIES) {
      count *= 2;
    }
    this.segments = new Segment[count];
    long perSegment = Math.max(1, maxEntries / count);
    for (int i = 0; i < count; i++) {
      segments[i] = new Segment((int) Math.min(perSegment, 1 << 29));
    }
    this.segmentShift = 32 - Integer.numberOfTrailingZeros(count);
  }

  /**
   * The live value of {@code key}, seen now; or, when there is none, {@code value} stored for it
   * and {@code null} returned.
   */
  Object putIfAbsent(Object key, Object value, long now) {
    int hash = mix(key.hashCode());
    Segment segment = segmentFor(hash);
    synchronized (segment) {
      int entry = segment.live(key, hash, now, windowNanos);
      if (entry != NONE) {
        segment.seen(entry, now);
        return segment.values[entry];
      }
      segment.insert(key, hash, value, now, windowNanos);
      return null;
    }
  }

  /**
   * Replaces the live value of {@code key} with {@code value}, seen now, if {@code expected}
   * accepts it: one lookup for a compare-and-set whose comparison is the caller's.
   */
  boolean replace(Object key, Predicate<Object> expected, Object value, long now) {
    int hash = mix(key.hashCode());
    Segment segment = segmentFor(hash);
    synchronized (segment) {
      int entry = segment.live(key, hash, now, windowNanos);
      if (entry == NONE || !expected.test(segment.values[entry])) {
        return false;
      }
      segment.values[entry] = value;
      segment.seen(entry, now);
      return true;
    }
  }

  /** Removes {@code key} if {@code expected} accepts its live value. */
  boolean remove(Object key, Predicate<Object> expected, long now) {
    int hash = mix(key.hashCode());
    Segment segment = segmentFor(hash);
    synchronized (segment) {
      int entry = segment.live(key, hash, now, windowNanos);
      if (entry == NONE || !expected.test(segment.values[entry])) {
        return false;
      }
      segment.unlink(entry);
      return true;
    }
  }

  /** Entries held, including any whose window passed but that were not removed yet. */
  long size() {
    return sum(segment -> segment.size);
  }

  /** Entries removed because their window passed or their segment was full. */
  long evictions() {
    return sum(segment -> segment.evictions);
  }

  private long sum(ToLongFunction<Segment> count) {
    long sum = 0;
    for (Segment segment : segments) {
      synchronized (segment) {
        sum += count.applyAsLong(segment);
      }
    }
    return sum;
  }

  private Segment segmentFor(int hash) {
    return segments.length == 1 ? segments[0] : segments[hash >>> segmentShift];
  }

  /**
   * Spreads a hash code over all 32 bits (a multiplicative hash): the high bits pick the segment,
   * the low bits the slot, and sequential ids land in distinct slots.
   */
  private static int mix(int hashCode) {
    int h = hashCode * 0x9E3779B9;
    return h ^ (h >>> 16);
  }

  /**
   * A chained hash table and its access-order list over entries numbered from 0, each a position in
   * the parallel arrays; every method runs under its monitor. Entry numbers of removed entries are
   * reused (a free list threaded through {@link #chain}); the arrays and the slots double together,
   * up to the segment's capacity.
   */
  private static final class Segment {
    private final int capacity;
    private int[] slots; // slot -> first entry of its chain
    private int[] chain; // entry -> next entry in its chain (or in the free list)
    private int[] before; // entry -> the entry seen just before it (toward the head)
    private int[] after; // entry -> the entry seen just after it (toward the tail)
    private int[] hashes;
    private Object[] keys; // NUMERIC for a Long key, held in numbers
    private long[] numbers;
    private long[] seenAt;
    Object[] values;
    private int head = NONE;
    private int tail = NONE;
    private int free = NONE;
    private int used; // entry numbers handed out so far (live or on the free list)
    int size;
    long evictions;

    Segment(int capacity) {
      this.capacity = capacity;
      allocate(INITIAL_ENTRIES);
    }

    /** The live entry of {@code key}, or NONE; an entry past its window is removed. */
    int live(Object key, int hash, long now, long window) {
      int numberKey = key instanceof Long ? 1 : 0;
      long number = numberKey == 1 ? (Long) key : 0;
      for (int e = slots[hash & (slots.length - 1)]; e != NONE; e = chain[e]) {
        if (hashes[e] != hash) {
          continue;
        }
        boolean same =
            numberKey == 1
                ? keys[e] == NUMERIC && numbers[e] == number
                : keys[e] != NUMERIC && keys[e].equals(key);
        if (!same) {
          continue;
        }
        if (now - seenAt[e] >= window) {
          unlink(e);
          evictions++;
          return NONE;
        }
        return e;
      }
      return NONE;
    }

    /** Marks {@code entry} seen at {@code now}: it moves to the tail of the list. */
    void seen(int entry, long now) {
      seenAt[entry] = now;
      if (entry == tail) {
        return;
      }
      detachFromList(entry);
      appendToList(entry);
    }

    /** Adds an entry for a key known to be absent, then trims the head to the window and bound. */
    void insert(Object key, int hash, Object value, long now, long window) {
      if (free == NONE && used == keys.length) {
        allocate(keys.length * 2);
      }
      int e;
      if (free != NONE) {
        e = free;
        free = chain[e];
      } else {
        e = used++;
      }
      if (key instanceof Long numeric) {
        keys[e] = NUMERIC;
        numbers[e] = numeric;
      } else {
        keys[e] = key;
      }
      hashes[e] = hash;
      values[e] = value;
      seenAt[e] = now;
      int slot = hash & (slots.length - 1);
      chain[e] = slots[slot];
      slots[slot] = e;
      appendToList(e);
      size++;
      while (head != e && (size > capacity || now - seenAt[head] >= window)) {
        unlink(head);
        evictions++;
      }
    }

    /** Removes {@code entry} from its chain and the list, and frees its number. */
    void unlink(int entry) {
      int slot = hashes[entry] & (slots.length - 1);
      if (slots[slot] == entry) {
        slots[slot] = chain[entry];
      } else {
        int previous = slots[slot];
        while (chain[previous] != entry) {
          previous = chain[previous];
        }
        chain[previous] = chain[entry];
      }
      detachFromList(entry);
      keys[entry] = null; // let the key and value go
      values[entry] = null;
      chain[entry] = free;
      free = entry;
      size--;
    }

    private void detachFromList(int entry) {
      if (before[entry] == NONE) {
        head = after[entry];
      } else {
        after[before[entry]] = after[entry];
      }
      if (after[entry] == NONE) {
        tail = before[entry];
      } else {
        before[after[entry]] = before[entry];
      }
      before[entry] = NONE;
      after[entry] = NONE;
    }

    private void appendToList(int entry) {
      before[entry] = tail;
      after[entry] = NONE;
      if (tail == NONE) {
        head = entry;
      } else {
        after[tail] = entry;
      }
      tail = entry;
    }

    /**
     * Room for {@code entries} entries (at most one over the capacity: an insertion comes before
     * the trim that brings the size back) and slots for them at a load of at most 3/4; the chains
     * are rebuilt for the new slot count.
     */
    private void allocate(int entries) {
      int length = Math.min(entries, capacity + 1);
      if (keys == null) {
        chain = new int[length];
        before = new int[length];
        after = new int[length];
        hashes = new int[length];
        keys = new Object[length];
        numbers = new long[length];
        seenAt = new long[length];
        values = new Object[length];
      } else {
        chain = Arrays.copyOf(chain, length);
        before = Arrays.copyOf(before, length);
        after = Arrays.copyOf(after, length);
        hashes = Arrays.copyOf(hashes, length);
        keys = Arrays.copyOf(keys, length);
        numbers = Arrays.copyOf(numbers, length);
        seenAt = Arrays.copyOf(seenAt, length);
        values = Arrays.copyOf(values, length);
      }
      int slotCount = Integer.highestOneBit(Math.max(2, length + length / 3) - 1) << 1;
      if (slots != null && slots.length == slotCount) {
        return;
      }
      slots = new int[slotCount];
      Arrays.fill(slots, NONE);
      for (int e = head; e != NONE; e = after[e]) {
        int slot = hashes[e] & (slotCount - 1);
        chain[e] = slots[slot];
        slots[slot] = e;
      }
    }
  }
}
