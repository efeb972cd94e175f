package io.servicehooks.benchmarks;

import io.servicehooks.core.Deduplicator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link Deduplicator#inMemory()} under contention: each operation claims a key never seen before
 * and marks it done, as the consumer does for every new event. Keys look like the consumer's
 * ({@code e:} and a 19-digit id). The store fills to its one-million bound and then evicts, as a
 * busy consumer's does. Scores are for all threads together.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 2,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+UseParallelGC"})
public class DedupBenchmark {

  /** The store every thread shares. */
  @State(Scope.Benchmark)
  public static class Store {
    final Deduplicator dedup = Deduplicator.inMemory();
    final AtomicInteger threads = new AtomicInteger();
  }

  /** Each thread's own run of keys, so no two threads ever claim the same one. */
  @State(Scope.Thread)
  public static class Keys {
    private long seed;
    private long n;

    @Setup
    public void setUp(Store store) {
      seed = store.threads.getAndIncrement();
    }

    String next() {
      return "e:" + Payloads.eventUuid(seed, n++);
    }
  }

  @Benchmark
  @Threads(1)
  public boolean claimNew1Thread(Store store, Keys keys) {
    return claim(store.dedup, keys.next());
  }

  @Benchmark
  @Threads(2)
  public boolean claimNew2Threads(Store store, Keys keys) {
    return claim(store.dedup, keys.next());
  }

  @Benchmark
  @Threads(4)
  public boolean claimNew4Threads(Store store, Keys keys) {
    return claim(store.dedup, keys.next());
  }

  /** The key alone, to subtract: building the string is the consumer's cost, not the store's. */
  @Benchmark
  @Threads(1)
  public String keyOnly(Keys keys) {
    return keys.next();
  }

  private static boolean claim(Deduplicator dedup, String key) {
    Deduplicator.Claim claim =
        dedup.claim(key, Deduplicator.DEFAULT_LEASE).toCompletableFuture().join();
    return dedup.markDone(key, claim.token()).toCompletableFuture().join();
  }
}
