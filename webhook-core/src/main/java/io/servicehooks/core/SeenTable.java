package io.servicehooks.core;

import java.util.function.Predicate;

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
 * entries were last seen (head: longest ago). Each segment holds at most {@code maxEntries /
 * segments} entries, so the total never passes {@code maxEntries}; a table small enough to evict in
 * tests has one segment, and so evicts in exact least-recently-seen order.
 *
 * <p>An entry whose window has passed counts as absent from the moment it passed, whether or not it
 * was removed yet: every lookup checks it, and every insertion trims the list's head of entries
 * past their window or over the bound, counting the removals as evictions. Time is passed in by the
 * caller (nanoseconds from any origin, as {@link System#nanoTime}), so the table has no clock.
 *
 * <p>Memory per entry: one node (key, number, hash, value, time, three links: 56 bytes with
 * compressed references) and its slot, against a node in both a cache's own structure and a
 * concurrent map's in a general-purpose cache. A {@link Long} key is held in the node as a
 * primitive (its {@code key} field then {@link #NUMERIC}): no key object per entry, and one memory
 * access fewer per lookup in a table of a million ids.
 */
final class SeenTable {

  /** Segments beyond this gain nothing on the machines a consumer runs on. */
  private static final int MAX_SEGMENTS = 32;

  /** A segment is not split below this many entries, so small tables evict in exact order. */
  private static final int MIN_SEGMENT_ENTRIES = 4096;

  private static final int INITIAL_SLOTS = 16;

  /** The {@code key} of a node whose key is the {@code long} in its {@code number}. */
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
      segments[i] = new Segment((int) Math.min(perSegment, Integer.MAX_VALUE - 8));
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
      Node node = segment.live(key, hash, now, windowNanos);
      if (node != null) {
        segment.seen(node, now);
        return node.value;
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
      Node node = segment.live(key, hash, now, windowNanos);
      if (node == null || !expected.test(node.value)) {
        return false;
      }
      node.value = value;
      segment.seen(node, now);
      return true;
    }
  }

  /** Removes {@code key} if {@code expected} accepts its live value. */
  boolean remove(Object key, Predicate<Object> expected, long now) {
    int hash = mix(key.hashCode());
    Segment segment = segmentFor(hash);
    synchronized (segment) {
      Node node = segment.live(key, hash, now, windowNanos);
      if (node == null || !expected.test(node.value)) {
        return false;
      }
      segment.unlink(node);
      return true;
    }
  }

  /** Entries held, including any whose window passed but that were not removed yet. */
  long size() {
    long size = 0;
    for (Segment segment : segments) {
      synchronized (segment) {
        size += segment.size;
      }
    }
    return size;
  }

  /** Entries removed because their window passed or their segment was full. */
  long evictions() {
    long evictions = 0;
    for (Segment segment : segments) {
      synchronized (segment) {
        evictions += segment.evictions;
      }
    }
    return evictions;
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

  /** One entry: a chain link in its slot and a link in its segment's access-order list. */
  private static final class Node {
    final Object key; // NUMERIC for a Long key, held in number
    final long number;
    final int hash;
    Object value;
    long seen;
    Node next; // the slot's chain
    Node before; // toward the head: seen longer ago
    Node after; // toward the tail: seen more recently

    boolean holds(Object other) {
      return other instanceof Long numeric
          ? key == NUMERIC && number == numeric
          : key != NUMERIC && key.equals(other);
    }

    Node(Object key, int hash, Object value, long seen, Node next) {
      if (key instanceof Long numeric) {
        this.key = NUMERIC;
        this.number = numeric;
      } else {
        this.key = key;
        this.number = 0;
      }
      this.hash = hash;
      this.value = value;
      this.seen = seen;
      this.next = next;
    }
  }

  /** A chained hash table and its access-order list; every method runs under its monitor. */
  private static final class Segment {
    private final int capacity;
    private Node[] slots = new Node[INITIAL_SLOTS];
    private Node head;
    private Node tail;
    int size;
    long evictions;

    Segment(int capacity) {
      this.capacity = capacity;
    }

    /** The node of {@code key} if present and within its window; removes it if past it. */
    Node live(Object key, int hash, long now, long window) {
      for (Node node = slots[hash & (slots.length - 1)]; node != null; node = node.next) {
        if (node.hash == hash && node.holds(key)) {
          if (now - node.seen >= window) {
            unlink(node);
            evictions++;
            return null;
          }
          return node;
        }
      }
      return null;
    }

    /** Marks {@code node} seen at {@code now}: it moves to the tail of the list. */
    void seen(Node node, long now) {
      node.seen = now;
      if (node == tail) {
        return;
      }
      detachFromList(node);
      appendToList(node);
    }

    /** Adds a node for a key known to be absent, then trims the head to the window and bound. */
    void insert(Object key, int hash, Object value, long now, long window) {
      int index = hash & (slots.length - 1);
      Node node = new Node(key, hash, value, now, slots[index]);
      slots[index] = node;
      appendToList(node);
      size++;
      while (head != node && (size > capacity || now - head.seen >= window)) {
        unlink(head);
        evictions++;
      }
      if (size > slots.length - (slots.length >>> 2) && slots.length < (1 << 30)) {
        grow();
      }
    }

    /** Removes {@code node} from its chain and from the list. */
    void unlink(Node node) {
      int index = node.hash & (slots.length - 1);
      Node previous = null;
      for (Node current = slots[index]; current != null; current = current.next) {
        if (current == node) {
          if (previous == null) {
            slots[index] = node.next;
          } else {
            previous.next = node.next;
          }
          break;
        }
        previous = current;
      }
      detachFromList(node);
      size--;
    }

    private void detachFromList(Node node) {
      if (node.before == null) {
        head = node.after;
      } else {
        node.before.after = node.after;
      }
      if (node.after == null) {
        tail = node.before;
      } else {
        node.after.before = node.before;
      }
      node.before = null;
      node.after = null;
    }

    private void appendToList(Node node) {
      node.before = tail;
      if (tail == null) {
        head = node;
      } else {
        tail.after = node;
      }
      tail = node;
    }

    private void grow() {
      Node[] old = slots;
      Node[] grown = new Node[old.length * 2];
      int mask = grown.length - 1;
      for (Node chain : old) {
        while (chain != null) {
          Node next = chain.next;
          int index = chain.hash & mask;
          chain.next = grown[index];
          grown[index] = chain;
          chain = next;
        }
      }
      slots = grown;
    }
  }
}
