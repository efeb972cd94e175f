package io.servicehooks.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link SeenTable} against an independent model: a {@link LinkedHashMap} kept in order of last
 * sighting with each entry's last-seen time, trimmed by window and bound after every insertion.
 * With one segment the two must agree on every answer and every eviction.
 */
final class SeenTableTest {

  private static final long WINDOW = 1_000;

  /** The model: entries kept oldest sighting first, moved to the end when seen. */
  private static final class Model {
    private final long window;
    private final int bound;
    private final LinkedHashMap<Object, Object[]> map = new LinkedHashMap<>(); // oldest first
    long evictions;

    Model(long window, int bound) {
      this.window = window;
      this.bound = bound;
    }

    private Object[] live(Object key, long now) {
      Object[] entry = map.get(key);
      if (entry == null) {
        return null;
      }
      if (now - (long) entry[1] >= window) {
        map.remove(key);
        evictions++;
        return null;
      }
      return entry;
    }

    /** Marks a live entry seen: it moves to the end. */
    private void seen(Object key, Object[] entry, long now) {
      entry[1] = now;
      map.remove(key);
      map.put(key, entry);
    }

    Object putIfAbsent(Object key, Object value, long now) {
      Object[] entry = live(key, now);
      if (entry != null) {
        seen(key, entry, now);
        return entry[0];
      }
      map.put(key, new Object[] {value, now});
      Iterator<Map.Entry<Object, Object[]>> eldest = map.entrySet().iterator();
      while (map.size() > 1) {
        Map.Entry<Object, Object[]> head = eldest.next();
        if (map.size() > bound || now - (long) head.getValue()[1] >= window) {
          eldest.remove();
          evictions++;
        } else {
          break;
        }
      }
      return null;
    }

    Object peek(Object key, long now) {
      Object[] entry = live(key, now);
      return entry == null ? null : entry[0];
    }

    boolean replace(Object key, Object expected, Object value, long now) {
      Object[] entry = live(key, now);
      if (entry == null || entry[0] != expected) {
        return false;
      }
      entry[0] = value;
      seen(key, entry, now);
      return true;
    }

    boolean remove(Object key, Object expected, long now) {
      Object[] entry = live(key, now);
      if (entry == null || entry[0] != expected) {
        return false;
      }
      map.remove(key);
      return true;
    }
  }

  /** The live value of {@code key}, read through a comparison that never accepts it. */
  private static Object peek(SeenTable table, Object key, long now) {
    Object[] seen = new Object[1];
    table.replace(
        key,
        value -> {
          seen[0] = value;
          return false;
        },
        null,
        now);
    return seen[0];
  }

  @Test
  void randomOperations_oneSegment_agreeWithTheModelOnEveryAnswerAndEviction() {
    for (long seed = 1; seed <= 20; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      int bound = 1 + random.nextInt(64);
      SeenTable table = new SeenTable(WINDOW, bound);
      Model model = new Model(WINDOW, bound);
      Object[] values = {"a", "b", "c"};
      long now = 0;
      for (int op = 0; op < 20_000; op++) {
        now += random.nextInt(3) == 0 ? random.nextInt(200) : 0;
        Long key = (long) random.nextInt(bound * 2 + 8);
        Object value = values[random.nextInt(values.length)];
        Object expected = values[random.nextInt(values.length)];
        String at = "seed " + seed + " op " + op;
        switch (random.nextInt(4)) {
          case 0 ->
              assertThat(table.putIfAbsent(key, value, now))
                  .as(at)
                  .isSameAs(model.putIfAbsent(key, value, now));
          case 1 -> assertThat(peek(table, key, now)).as(at).isSameAs(model.peek(key, now));
          case 2 ->
              assertThat(table.replace(key, v -> v == expected, value, now))
                  .as(at)
                  .isEqualTo(model.replace(key, expected, value, now));
          default ->
              assertThat(table.remove(key, v -> v == expected, now))
                  .as(at)
                  .isEqualTo(model.remove(key, expected, now));
        }
        assertThat(table.size()).as(at).isEqualTo(model.map.size());
        assertThat(table.evictions()).as(at).isEqualTo(model.evictions);
      }
    }
  }

  @Test
  void leastRecentlySeenGoesFirst_aSeenEntryStays() {
    SeenTable table = new SeenTable(WINDOW, 3);
    table.putIfAbsent("a", "1", 0);
    table.putIfAbsent("b", "2", 0);
    table.putIfAbsent("c", "3", 0);
    assertThat(table.putIfAbsent("a", "x", 1)).isEqualTo("1"); // a is now the most recently seen
    table.putIfAbsent("d", "4", 2); // the bound forgets b
    assertThat(peek(table, "b", 2)).isNull();
    assertThat(peek(table, "a", 2)).isEqualTo("1");
    assertThat(peek(table, "c", 2)).isEqualTo("3");
    assertThat(table.evictions()).isEqualTo(1);
  }

  @Test
  void windowCountsFromTheLastSighting() {
    SeenTable table = new SeenTable(WINDOW, 100);
    table.putIfAbsent("a", "1", 0);
    assertThat(table.putIfAbsent("a", "2", WINDOW - 1)).isEqualTo("1"); // seen again
    assertThat(peek(table, "a", 2 * WINDOW - 2)).isEqualTo("1");
    assertThat(peek(table, "a", 3 * WINDOW - 2)).isNull(); // a full window since last seen
    assertThat(table.putIfAbsent("a", "3", 3 * WINDOW)).isNull();
  }

  @Test
  void manySegments_neverHoldMoreThanTheBound_andKeepTheRecentIds() {
    int bound = 1 << 18; // enough for several segments
    SeenTable table = new SeenTable(Long.MAX_VALUE, bound);
    int inserted = 3 * bound;
    for (long id = 0; id < inserted; id++) {
      table.putIfAbsent(id, Boolean.TRUE, 0);
      if ((id & 0xFFF) == 0) {
        assertThat(table.size()).isLessThanOrEqualTo(bound);
      }
    }
    assertThat(table.size()).isLessThanOrEqualTo(bound).isGreaterThan(bound * 9L / 10);
    assertThat(table.evictions()).isEqualTo(inserted - table.size());
    // Every segment evicts least recently seen first, so the newest ids are all still there.
    for (long id = inserted - bound / 2; id < inserted; id++) {
      assertThat(peek(table, id, 0)).as("id %d", id).isSameAs(Boolean.TRUE);
    }
  }

  @Test
  void numberKeysAndObjectKeys_neverMeet() {
    SeenTable table = new SeenTable(WINDOW, 100);
    table.putIfAbsent(7L, "number", 0);
    table.putIfAbsent("7", "string", 0);
    table.putIfAbsent(new java.util.UUID(0, 7), "uuid", 0);
    assertThat(peek(table, 7L, 1)).isEqualTo("number");
    assertThat(peek(table, "7", 1)).isEqualTo("string");
    assertThat(peek(table, new java.util.UUID(0, 7), 1)).isEqualTo("uuid");
    assertThat(table.remove(7L, "number"::equals, 2)).isTrue();
    assertThat(peek(table, 7L, 2)).isNull();
    assertThat(peek(table, "7", 2)).isEqualTo("string");
  }

  @Test
  void badSettings_nameTheValue() {
    assertThatThrownBy(() -> new SeenTable(0, 1)).hasMessageContaining("0 ns");
    assertThatThrownBy(() -> new SeenTable(1, 0)).hasMessageContaining("was 0");
  }
}
