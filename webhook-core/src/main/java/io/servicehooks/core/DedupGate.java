package io.servicehooks.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims events at the {@link Deduplicator} and ends the claims, composing the store's asynchronous
 * answers so no thread waits on a network store. In front of the store sit the events this process
 * is running: a copy that arrives while its original runs here waits for the original's outcome,
 * and the store sees each event at most once per attempt. A copy whose original runs on another
 * instance polls the store a bounded time. An owner's lease is renewed while its listeners run.
 *
 * <p>Every store call is bounded by the dedup time-out. A claim the store cannot answer (failed,
 * thrown, timed out) fails closed ({@link Kind#STORE_FAILED}, the delivery is answered 503) or,
 * when the consumer was built to fail open, runs the event without dedup. Ending a claim never
 * fails a delivery: a {@code markDone} or {@code release} the store cannot answer is logged, and
 * the answer already decided stands.
 *
 * <p>The gate composes a delivery's claims and ends them; each step is its own collaborator: {@link
 * ClaimTaker} takes one claim, {@link RunningElsewhere} polls for a copy whose original runs on
 * another instance, {@link LeaseRenewal} renews owners' leases, {@link ClaimEnding} marks done or
 * releases, and {@link DedupStoreCalls} bounds, times and logs every store call.
 */
final class DedupGate {

  // Logs under the consumer's name, as before the split: users' log configuration names it.
  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);

  /** What a claim found. */
  enum Kind {
    /**
     * The caller owns the event and must call {@link #succeeded} or {@link #failed}. Without a
     * store token when the store failed and the consumer fails open.
     */
    OWNER,
    /** The event was handled before, here or on another instance. */
    DONE,
    /** The event is running in this process now; {@link Claim#running()} completes with it. */
    IN_FLIGHT,
    /** Another instance still held the event when this copy's wait ran out. */
    STILL_RUNNING,
    /** The store could not be asked (logged) and the consumer fails closed: nobody owns it. */
    STORE_FAILED
  }

  /** How an event's attempt in this process ended, as its copies learn it. */
  enum Outcome {
    /** The original's listeners succeeded, or the store found the event done. */
    SUCCEEDED,
    /** The original's listeners failed, or it was never run. */
    FAILED,
    /** The event is still running (here past the copy's wait, or on another instance). */
    STILL_RUNNING,
    /** The store could not be asked about the event. */
    UNAVAILABLE
  }

  /**
   * An event this process is claiming or running, in {@link RunningEvents} under its key until its
   * attempt ends. Copies wait on {@link #outcome}.
   */
  static final class Running {
    final String key;

    /**
     * The event has nothing to run: it is claimed with {@link Deduplicator#claimDone}, done at the
     * store once claimed, and its owner holds no token to end.
     */
    final boolean doneOnClaim;

    final CompletableFuture<Outcome> outcome = new CompletableFuture<>();

    /** The store's owner token once claimed; null while asking, once ended, or unguarded. */
    volatile String token;

    /** True once this process owns the event (with a token, or failing open). */
    volatile boolean owned;

    /** {@link System#nanoTime()} from which the lease is renewed. */
    volatile long renewAt;

    /**
     * {@link System#nanoTime()} before which the store certainly still holds the claim: the lease
     * from the moment the last successful claim or renewal was sent.
     */
    volatile long leaseSure;

    /** {@link System#nanoTime()} when the claim was taken. */
    volatile long claimedAt;

    Running(String key, boolean doneOnClaim) {
      this.key = key;
      this.doneOnClaim = doneOnClaim;
    }
  }

  /** One claim's result; for {@link Kind#IN_FLIGHT}, {@code running} is the original's. */
  record Claim(Kind kind, Running running) {}

  private final DedupStoreCalls calls;
  private final RunningEvents running = new RunningEvents();
  private final ClaimTaker taker;
  private final ClaimEnding ending;
  private final long inFlightWaitNanos;
  private final AtomicInteger waiting = new AtomicInteger();

  DedupGate(
      Deduplicator store,
      Duration inFlightWait,
      Duration lease,
      Duration timeout,
      boolean failOpen,
      ScheduledExecutorService scheduler,
      LongSupplier leaseTicker) {
    this.inFlightWaitNanos = inFlightWait.toNanos();
    this.calls = new DedupStoreCalls(store, timeout.toNanos());
    LeaseRenewal leases = new LeaseRenewal(calls, running, lease, scheduler, leaseTicker);
    RunningElsewhere elsewhere = new RunningElsewhere(calls, running, inFlightWaitNanos, scheduler);
    this.taker = new ClaimTaker(calls, running, leases, elsewhere, failOpen);
    this.ending = new ClaimEnding(calls, running, leases);
  }

  /** The consumer's meters; set once at build time, before any delivery. */
  void metrics(Metrics metrics) {
    calls.metrics(metrics);
  }

  /**
   * Claims every event of a delivery. The future completes (never exceptionally) when each claim
   * has its answer; with a store in memory it is complete on return. If an {@code Error} is thrown,
   * the claims taken so far are released first, so none stays open.
   */
  CompletableFuture<List<Claim>> claimAll(List<WebhookEvent> events) {
    return claimAll(events, false);
  }

  /**
   * {@link #claimAll(List)}; with {@code runsNothing} (no event of the delivery has a listener)
   * each event is claimed and marked done at the store in one call ({@link
   * Deduplicator#claimDone}): its owner then has no token, and ending its claim asks the store
   * nothing.
   */
  CompletableFuture<List<Claim>> claimAll(List<WebhookEvent> events, boolean runsNothing) {
    // Each element a Claim, or a CompletableFuture<Claim> for one the store answers later: the
    // in-memory path then allocates no future per event.
    Object[] answers = new Object[events.size()];
    boolean allDone = true;
    try {
      for (int i = 0; i < answers.length; i++) {
        answers[i] = taker.claim(events.get(i), runsNothing);
        allDone &= answers[i] instanceof Claim;
      }
    } catch (RuntimeException | Error unexpected) {
      for (Object answer : answers) {
        ClaimTaker.toFuture(answer)
            .thenAccept(
                c -> {
                  if (c.kind() == Kind.OWNER) {
                    failed(c);
                  }
                });
      }
      throw unexpected;
    }
    if (allDone) {
      List<Claim> claims = new ArrayList<>(answers.length);
      for (Object answer : answers) {
        claims.add((Claim) answer);
      }
      return CompletableFuture.completedFuture(claims);
    }
    CompletableFuture<?>[] pending = new CompletableFuture<?>[answers.length];
    for (int i = 0; i < answers.length; i++) {
      pending[i] = ClaimTaker.toFuture(answers[i]);
    }
    return CompletableFuture.allOf(pending)
        .thenApply(
            ignored -> {
              List<Claim> claims = new ArrayList<>(pending.length);
              for (CompletableFuture<?> claim : pending) {
                claims.add((Claim) claim.join());
              }
              return claims;
            });
  }

  /** See {@link ClaimEnding#succeeded}. */
  CompletableFuture<Void> succeeded(Claim claim) {
    return ending.succeeded(claim);
  }

  /** See {@link ClaimEnding#failed}. */
  CompletableFuture<Void> failed(Claim claim) {
    return ending.failed(claim);
  }

  private void end(Running r, Outcome outcome) {
    running.end(r, outcome);
  }

  /**
   * Runs each owned event through {@code dispatch} and ends its claim, whatever is thrown: the
   * claim is the only thing that lets later copies of the event go, so none may stay open. A {@link
   * VirtualMachineError} (from a listener or its error handler) stops the listeners, the claims not
   * yet ended are released, and it propagates.
   *
   * @return how many events' listeners succeeded, once every claim's end was answered by the store
   *     (or timed out); never completes exceptionally
   */
  CompletableFuture<Integer> runOwned(
      List<WebhookEvent> events, List<Claim> claims, Predicate<WebhookEvent> dispatch) {
    int succeeded = 0;
    List<CompletableFuture<Void>> ending = null;
    for (int i = 0; i < events.size(); i++) {
      boolean ok;
      try {
        ok = dispatch.test(events.get(i));
      } catch (RuntimeException | Error fatal) {
        releaseAll(claims.subList(i, claims.size()));
        throw fatal;
      }
      CompletableFuture<Void> ended;
      try {
        ended = ok ? succeeded(claims.get(i)) : failed(claims.get(i));
      } catch (RuntimeException | Error fatal) {
        end(claims.get(i).running(), ok ? Outcome.SUCCEEDED : Outcome.FAILED);
        releaseAll(claims.subList(i + 1, claims.size()));
        throw fatal;
      }
      if (ok) {
        succeeded++;
      }
      if (!ended.isDone()) {
        if (ending == null) {
          ending = new ArrayList<>();
        }
        ending.add(ended);
      }
    }
    if (ending == null) {
      return CompletableFuture.completedFuture(succeeded);
    }
    int count = succeeded;
    return CompletableFuture.allOf(ending.toArray(CompletableFuture[]::new))
        .handle((ignored, failure) -> count);
  }

  /**
   * Releases every claim, going on past a store that throws (logged); each in-process claim ends
   * whatever the store does. A {@link VirtualMachineError} is rethrown once all were tried.
   */
  void releaseAll(List<Claim> claims) {
    VirtualMachineError fatal = null;
    for (Claim claim : claims) {
      try {
        failed(claim);
      } catch (RuntimeException | Error unexpected) {
        end(claim.running(), Outcome.FAILED);
        log.error("Dedup store failed to release a claim", unexpected);
        if (unexpected instanceof VirtualMachineError vmError && fatal == null) {
          fatal = vmError;
        }
      }
    }
    if (fatal != null) {
      throw fatal;
    }
  }

  /**
   * For a copy that waits on its {@link Kind#IN_FLIGHT} original: {@code then} applied to the
   * original's outcome, or to {@link Outcome#STILL_RUNNING} once the in-flight wait ran out, so no
   * copy waits unbounded. The copy counts in {@link #waiting()} until one of them happens.
   */
  <T> CompletableFuture<T> afterOriginal(Claim inFlight, Function<Outcome, T> then) {
    waiting.incrementAndGet();
    // A dependent future, so the time-out never completes the original's own future.
    return inFlight
        .running()
        .outcome
        .thenApply(Function.<Outcome>identity())
        .completeOnTimeout(Outcome.STILL_RUNNING, inFlightWaitNanos, TimeUnit.NANOSECONDS)
        .thenApply(
            outcome -> {
              waiting.decrementAndGet();
              return then.apply(outcome);
            });
  }

  int running() {
    return running.size();
  }

  /** How many copies wait on an original still running in this process now. */
  int waiting() {
    return waiting.get();
  }

  @Override
  public String toString() {
    return "DedupGate[running=" + running.size() + ", waiting=" + waiting.get() + "]";
  }
}
