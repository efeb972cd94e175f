package io.servicehooks.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Moves the rest of a delivery from a thread that must not block to the adapter's worker executor,
 * when {@link ListenerThreads} (its only caller) decides it must. The request is answered whatever
 * happens there: with the work's own answer, 500 if the work throws, or 503 busy (its claims
 * released) if the executor refuses it or starts it only after the queueing deadline.
 */
final class HandOff {

  private final DedupGate gate;
  private final Answers answers;

  private final long deadlineNanos;
  private final LongSupplier nanoTime;

  HandOff(DedupGate gate, Answers answers, Duration queueingDeadline, LongSupplier nanoTime) {
    this.gate = gate;
    this.answers = answers;
    this.deadlineNanos = queueingDeadline.toNanos();
    this.nanoTime = nanoTime;
  }

  /**
   * Runs {@code work} on {@code executor}; if it refuses, releases {@code claims}, answers 503. An
   * executor that took the task and later finds it cannot run it hands it to {@link #refuse}.
   */
  CompletableFuture<WebhookResponse> run(
      Executor executor,
      long start,
      Supplier<CompletableFuture<WebhookResponse>> work,
      List<DedupGate.Claim> claims) {
    Task task = new Task(start, work, claims, nanoTime.getAsLong());
    try {
      executor.execute(task);
    } catch (RejectedExecutionException refused) {
      task.refuse();
    }
    return task.result;
  }

  /**
   * Answers a task this class gave an executor, which took it and cannot run it, as a refusal: 503
   * busy, its claims released. A task that already ran or was refused is left as it is.
   *
   * @throws IllegalArgumentException if {@code task} did not come from a hand-off
   */
  static void refuse(Runnable task) {
    if (!(task instanceof Task t)) {
      throw new IllegalArgumentException("not a task handed off by a consumer: " + task);
    }
    t.refuse();
  }

  /**
   * One delivery's work waiting for, then running on, a worker: it runs at most once, and is
   * answered whatever happens (its work's own answer, 500, or 503 busy when late or refused).
   */
  private final class Task implements Runnable {
    final CompletableFuture<WebhookResponse> result = new CompletableFuture<>();
    private final AtomicBoolean taken = new AtomicBoolean();
    private final long start;
    private final Supplier<CompletableFuture<WebhookResponse>> work;
    private final List<DedupGate.Claim> claims;
    private final long enqueued;

    Task(
        long start,
        Supplier<CompletableFuture<WebhookResponse>> work,
        List<DedupGate.Claim> claims,
        long enqueued) {
      this.start = start;
      this.work = work;
      this.claims = claims;
      this.enqueued = enqueued;
    }

    @Override
    public void run() {
      if (!taken.compareAndSet(false, true)) {
        return;
      }
      if (nanoTime.getAsLong() - enqueued > deadlineNanos) {
        // Waited too long for a thread: the platform has given up on this attempt or soon will.
        // Answer its retry instead of running the listeners for nobody.
        result.complete(busy(claims, start, "no thread free in time to run listeners"));
        return;
      }
      try {
        work.get().whenComplete((response, error) -> result.complete(response));
      } catch (RuntimeException | Error unexpected) {
        // Listeners' own failures are caught by the Dispatcher; this is the store or a bug. The
        // request must still be answered, never left hanging.
        result.complete(answers.internalError(unexpected, start));
        if (unexpected instanceof VirtualMachineError vmError) {
          throw vmError;
        }
      }
    }

    void refuse() {
      if (taken.compareAndSet(false, true)) {
        result.complete(busy(claims, start, "no thread free to run listeners"));
      }
    }

    @Override
    public String toString() {
      return "HandOff.Task";
    }
  }

  /** Releases the claims and answers 503 busy, so the platform's retry runs the events. */
  private WebhookResponse busy(List<DedupGate.Claim> claims, long start, String why) {
    try {
      gate.releaseAll(claims);
    } catch (RuntimeException | Error unexpected) {
      return answers.internalError(unexpected, start);
    }
    return answers.record(Answers.retryLater("busy", why + ", retry later"), start);
  }

  @Override
  public String toString() {
    return "HandOff";
  }
}
