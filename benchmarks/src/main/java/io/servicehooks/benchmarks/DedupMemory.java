package io.servicehooks.benchmarks;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.servicehooks.core.Deduplicator;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Retained heap per remembered id in {@link Deduplicator#inMemory()}: fills a fresh store with keys
 * as the consumer builds them ({@code e:<19-digit event_uuid>}, claimed then marked done), forces
 * full collections until the used heap settles, and divides the growth over an empty store by the
 * number of ids. For comparison it measures the same for a few other layouts, to show where the
 * bytes go.
 *
 * <p>{@code java -Xms2g -Xmx2g -XX:+UseParallelGC -cp benchmarks.jar
 * io.servicehooks.benchmarks.DedupMemory 100000 1000000}
 */
public final class DedupMemory {

  private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

  private DedupMemory() {}

  public static void main(String[] args) throws InterruptedException {
    List<Integer> sizes = new ArrayList<>();
    for (String a : args) {
      sizes.add(Integer.parseInt(a.replace("_", "").replace(",", "")));
    }
    if (sizes.isEmpty()) {
      sizes = List.of(100_000, 1_000_000);
    }
    System.out.printf(Locale.ROOT, "%-44s %10s %14s%n", "store", "ids", "bytes per id");
    for (int ids : sizes) {
      report("Deduplicator.inMemory() (servicehooks)", ids, () -> fillDeduplicator(ids));
      report("  keys alone (String e:<19 digits>)", ids, () -> keys(ids));
      report("  Caffeine<String,Boolean>, no recordStats", ids, () -> fillCaffeine(ids));
      report("  Caffeine<Long,Boolean> (numeric uuid)", ids, () -> fillCaffeineLong(ids));
      report("  Caffeine<String,Boolean>, size bound only", ids, () -> fillSizeOnly(ids, false));
      report("  Caffeine<Long,Boolean>, size bound only", ids, () -> fillSizeOnly(ids, true));
      report("  ConcurrentHashMap<String,Boolean>", ids, () -> fillMap(ids));
    }
  }

  private static void report(String name, int ids, Supplier<Object> fill)
      throws InterruptedException {
    long before = settledUsedHeap();
    Object store = fill.get();
    long after = settledUsedHeap();
    System.out.printf(
        Locale.ROOT, "%-44s %,10d %14.1f%n", name, ids, (after - before) / (double) ids);
    if (store.hashCode() == 42) {
      System.out.print(""); // keeps the store reachable until here
    }
  }

  private static String key(SplittableRandom random) {
    // A 19-digit id, as the platform's event_uuid samples have (the consumer keys "e:" + id).
    long id = 1_000_000_000_000_000_000L + random.nextLong(8_000_000_000_000_000_000L);
    return "e:" + id;
  }

  private static Object fillDeduplicator(int ids) {
    Deduplicator dedup = Deduplicator.inMemory();
    SplittableRandom random = new SplittableRandom(ids);
    for (int i = 0; i < ids; i++) {
      String key = key(random);
      String token =
          dedup.claim(key, Deduplicator.DEFAULT_LEASE).toCompletableFuture().join().token();
      dedup.markDone(key, token);
    }
    return dedup;
  }

  private static Object keys(int ids) {
    SplittableRandom random = new SplittableRandom(ids);
    String[] keys = new String[ids];
    for (int i = 0; i < ids; i++) {
      keys[i] = key(random);
    }
    return keys;
  }

  private static Object fillCaffeine(int ids) {
    Cache<String, Boolean> cache =
        Caffeine.newBuilder().expireAfterWrite(Duration.ofHours(24)).maximumSize(1_000_000).build();
    SplittableRandom random = new SplittableRandom(ids);
    for (int i = 0; i < ids; i++) {
      String key = key(random);
      cache.asMap().putIfAbsent(key, Boolean.FALSE);
      cache.put(key, Boolean.TRUE);
    }
    cache.cleanUp();
    return cache;
  }

  private static Object fillCaffeineLong(int ids) {
    Cache<Long, Boolean> cache =
        Caffeine.newBuilder().expireAfterWrite(Duration.ofHours(24)).maximumSize(1_000_000).build();
    SplittableRandom random = new SplittableRandom(ids);
    for (int i = 0; i < ids; i++) {
      Long key = 1_000_000_000_000_000_000L + random.nextLong(8_000_000_000_000_000_000L);
      cache.asMap().putIfAbsent(key, Boolean.FALSE);
      cache.put(key, Boolean.TRUE);
    }
    cache.cleanUp();
    return cache;
  }

  /**
   * No expiry, only the size bound: the platform never redelivers after 24 h, so remembering longer
   * is harmless.
   */
  private static Object fillSizeOnly(int ids, boolean numeric) {
    Cache<Object, Boolean> cache = Caffeine.newBuilder().maximumSize(1_000_000).build();
    SplittableRandom random = new SplittableRandom(ids);
    for (int i = 0; i < ids; i++) {
      Object key =
          numeric
              ? (Object) (1_000_000_000_000_000_000L + random.nextLong(8_000_000_000_000_000_000L))
              : key(random);
      cache.asMap().putIfAbsent(key, Boolean.FALSE);
      cache.put(key, Boolean.TRUE);
    }
    cache.cleanUp();
    return cache;
  }

  private static Object fillMap(int ids) {
    ConcurrentHashMap<String, Boolean> map = new ConcurrentHashMap<>();
    SplittableRandom random = new SplittableRandom(ids);
    for (int i = 0; i < ids; i++) {
      map.put(key(random), Boolean.TRUE);
    }
    return map;
  }

  /**
   * Used heap after full collections, once two readings in a row agree within 64 KiB; Caffeine's
   * maintenance runs on the common pool, so its buffers get a moment to drain in between.
   */
  private static long settledUsedHeap() throws InterruptedException {
    long last = Long.MAX_VALUE;
    for (int i = 0; i < 10; i++) {
      System.gc();
      Thread.sleep(100);
      long used = MEMORY.getHeapMemoryUsage().getUsed();
      if (Math.abs(used - last) < 64 * 1024) {
        return used;
      }
      last = used;
    }
    return last;
  }
}
