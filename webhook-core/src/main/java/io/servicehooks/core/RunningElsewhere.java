package io.servicehooks.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A copy's wait for an original that runs on another instance: asks the store again after pauses
 * that double, until it answers done or claimed, or the in-flight wait runs out. The pauses are
 * timers on the shared scheduler; no thread waits.
 */
final class RunningElsewhere {

  /** First pause before a copy asks the store again about an event running elsewhere. */
  static final Duration FIRST_POLL = Duration.ofMillis(50);

  /** Longest pause between two such questions; the pause doubles up to it. */
  static final Duration MAX_POLL = Duration.ofMillis(500);

  /** One copy's wait: when it ends, and the next pause. */
  static final class Poll {
    final long deadline;
    long pauseNanos = FIRST_POLL.toNanos();

    Poll(long deadline) {
      this.deadline = deadline;
    }
  }

  private final DedupStoreCalls calls;
  private final RunningEvents running;
  private final long inFlightWaitNanos;
  private final ScheduledExecutorService scheduler;

  RunningElsewhere(
      DedupStoreCalls calls,
      RunningEvents running,
      long inFlightWaitNanos,
      ScheduledExecutorService scheduler) {
    this.calls = calls;
    this.running = running;
    this.inFlightWaitNanos = inFlightWaitNanos;
    this.scheduler = scheduler;
  }

  /**
   * Has {@code taker} ask the store again after a pause (doubling, up to {@link #MAX_POLL}) until
   * it answers done or claimed, or the in-flight wait runs out: {@link
   * DedupGate.Kind#STILL_RUNNING}. Never answers done while the original's outcome is unknown.
   * {@code poll} is null on the first answer "running elsewhere".
   *
   * @return a Claim when known now, else a future of one
   */
  Object waitFor(WebhookEvent event, DedupGate.Running mine, Poll poll, ClaimTaker taker) {
    long now = System.nanoTime();
    if (poll == null) {
      calls.metrics().runningElsewhere();
      poll = new Poll(now + inFlightWaitNanos);
    }
    long left = poll.deadline - now;
    if (left <= 0) {
      running.end(mine, DedupGate.Outcome.STILL_RUNNING);
      return new DedupGate.Claim(DedupGate.Kind.STILL_RUNNING, mine);
    }
    long pause = Math.min(poll.pauseNanos, left);
    poll.pauseNanos = Math.min(poll.pauseNanos * 2, MAX_POLL.toNanos());
    Poll next = poll;
    CompletableFuture<DedupGate.Claim> result = new CompletableFuture<>();
    try {
      scheduler.schedule(
          () -> {
            try {
              ClaimTaker.toFuture(taker.ask(event, mine, next))
                  .whenComplete((claim, failure) -> result.complete(claim));
            } catch (RuntimeException | Error unexpected) {
              result.complete(taker.storeFailed(mine, unexpected));
            }
          },
          pause,
          TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException stopped) {
      running.end(mine, DedupGate.Outcome.STILL_RUNNING);
      return new DedupGate.Claim(DedupGate.Kind.STILL_RUNNING, mine);
    }
    return result;
  }
}
