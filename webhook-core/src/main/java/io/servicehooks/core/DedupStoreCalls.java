package io.servicehooks.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The dedup gate's side of every {@link Deduplicator} call: each answer bounded by the dedup
 * time-out and timed into {@code webhook.dedup.store}, and the store's outage logged once (not per
 * call) through {@link StoreOutage}.
 */
final class DedupStoreCalls {

  final Deduplicator store;
  final StoreOutage outage = new StoreOutage();
  private final long timeoutNanos;
  private final boolean timed;
  private Metrics metrics = Metrics.NOOP;

  DedupStoreCalls(Deduplicator store, long timeoutNanos) {
    this.store = store;
    this.timeoutNanos = timeoutNanos;
    // A store in memory answers in well under a microsecond: a timer per call would cost more
    // than the call, and its cache meters say what matters. A store that may block is timed on
    // every call; one that never blocks is timed on the calls that did not answer at once (an
    // asynchronous network client's).
    this.timed = store.mayBlock();
  }

  /** The consumer's meters; set once at build time, before any delivery. */
  void metrics(Metrics metrics) {
    this.metrics = metrics;
  }

  Metrics metrics() {
    return metrics;
  }

  /** Where a store call's time starts: {@link System#nanoTime()} when every call is timed. */
  long begin() {
    return timed ? System.nanoTime() : 0;
  }

  /**
   * A store call's answer, bounded by the dedup time-out and timed (from {@code begin}) when the
   * store may block. A null stage counts as a failed one.
   */
  <T> CompletableFuture<T> bounded(String operation, long begin, CompletionStage<T> stage) {
    CompletableFuture<T> answer =
        stage != null
            ? stage.toCompletableFuture()
            : CompletableFuture.failedFuture(
                new NullPointerException("the store returned no stage"));
    boolean pending = !answer.isDone();
    if (pending) {
      // A copy, so the time-out never completes the store's own future.
      answer = answer.copy().orTimeout(timeoutNanos, TimeUnit.NANOSECONDS);
    }
    // A failure is counted even when it came at once (a store whose connection is down refuses
    // without waiting): the store-failures panel and alert read it (ops/grafana).
    if (timed || pending || answer.isCompletedExceptionally()) {
      // Returned, so whoever reads the answer sees it already counted.
      answer =
          answer.whenComplete(
              (value, failure) ->
                  metrics.storeCall(operation, outcome(value, failure), System.nanoTime() - begin));
    }
    return answer;
  }

  private static String outcome(Object value, Throwable failure) {
    if (failure != null) {
      return unwrap(failure) instanceof TimeoutException ? "timeout" : "error";
    }
    if (value instanceof Deduplicator.Claim claim) {
      switch (claim.status()) {
        case CLAIMED:
          return "claimed";
        case DONE:
          return "done";
        default:
          return "running_elsewhere";
      }
    }
    return Boolean.TRUE.equals(value) ? "ok" : "lost";
  }

  static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    while (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof TimeoutException) {
      return new TimeoutException("the dedup store did not answer within the dedup time-out");
    }
    return t;
  }
}
