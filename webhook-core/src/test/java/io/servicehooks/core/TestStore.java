package io.servicehooks.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A real {@link Deduplicator} in memory (one map, atomic operations, owner tokens) whose answers a
 * test can steer: claims answered by a function of the key (running elsewhere, a failed or never
 * completing stage, a slow answer), {@code markDone} answered late, and {@code markDone} or {@code
 * release} failing for chosen keys. It records every call, and the thread each claim was asked on.
 */
final class TestStore implements Deduplicator {

  private static final String DONE = "\u0000done";

  final Map<String, String> entries = new ConcurrentHashMap<>();
  final List<String> claims = new CopyOnWriteArrayList<>();
  final List<String> claimThreads = new CopyOnWriteArrayList<>();
  final List<String> done = new CopyOnWriteArrayList<>();
  final List<String> released = new CopyOnWriteArrayList<>();
  final List<String> renewals = new CopyOnWriteArrayList<>();
  private final AtomicLong tokens = new AtomicLong();
  private final boolean mayBlock;

  /** Answers a claim instead of the map when it returns non-null. */
  volatile Function<String, CompletionStage<Claim>> claimOverride = key -> null;

  volatile Predicate<String> failMarkDone = key -> false;

  /** Every {@code markDone} is answered once this completes: a store slow to answer it. */
  volatile CompletionStage<?> markDoneAnswered = CompletableFuture.completedFuture(null);

  volatile Predicate<String> failRelease = key -> false;

  TestStore() {
    this(false);
  }

  TestStore(boolean mayBlock) {
    this.mayBlock = mayBlock;
  }

  /** A stage that never completes: a store that hangs. */
  static <T> CompletionStage<T> hang() {
    return new CompletableFuture<>();
  }

  static <T> CompletionStage<T> failure(String message) {
    return CompletableFuture.failedFuture(new IllegalStateException(message));
  }

  @Override
  public CompletionStage<Claim> claim(String key, Duration lease) {
    claims.add(key);
    claimThreads.add(Thread.currentThread().getName());
    CompletionStage<Claim> steered = claimOverride.apply(key);
    if (steered != null) {
      return steered;
    }
    String token = "t" + tokens.incrementAndGet();
    String existing = entries.putIfAbsent(key, token);
    if (existing == null) {
      return CompletableFuture.completedFuture(Claim.claimed(token));
    }
    return CompletableFuture.completedFuture(
        existing.equals(DONE) ? Claim.done() : Claim.runningElsewhere(lease));
  }

  @Override
  public CompletionStage<Boolean> markDone(String key, String token) {
    if (failMarkDone.test(key)) {
      return failure("store unreachable");
    }
    boolean owned = entries.replace(key, token, DONE);
    if (owned) {
      done.add(key);
    }
    return markDoneAnswered.thenApply(answered -> owned);
  }

  @Override
  public CompletionStage<Boolean> release(String key, String token) {
    if (failRelease.test(key)) {
      return failure("store unreachable");
    }
    boolean owned = entries.remove(key, token);
    if (owned) {
      released.add(key);
    }
    return CompletableFuture.completedFuture(owned);
  }

  @Override
  public CompletionStage<Boolean> renew(String key, String token, Duration lease) {
    boolean owned = token.equals(entries.get(key));
    if (owned) {
      renewals.add(key);
    }
    return CompletableFuture.completedFuture(owned);
  }

  /** Marks {@code key} done as another instance would. */
  void markDoneElsewhere(String key) {
    entries.put(key, DONE);
  }

  /** Ends another instance's claim on {@code key} as its release would. */
  void releaseElsewhere(String key) {
    entries.remove(key);
  }

  /** Claims {@code key} as another instance would; its token is returned. */
  String claimElsewhere(String key) {
    String token = "elsewhere" + tokens.incrementAndGet();
    entries.put(key, token);
    return token;
  }

  @Override
  public boolean mayBlock() {
    return mayBlock;
  }

  @Override
  public String toString() {
    return "TestStore[entries=" + entries.size() + "]";
  }
}
