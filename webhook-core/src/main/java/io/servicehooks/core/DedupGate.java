package io.servicehooks.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims events at the {@link Deduplicator} and ends the claims, composing the store's asynchronous
 * answers so no thread waits on a network store. In front of the store sit the events this process
 * is claiming or running: a copy that arrives while its original is here waits for the original's
 * outcome, so the store sees each event at most once per attempt. A copy whose original runs on
 * another instance asks the store again, a bounded time. This class is the one owner of what the
 * process knows about those events.
 *
 * <h2>The states of an event</h2>
 *
 * An attempt at an event is a {@link Running} record in the {@code running} map under the event's
 * dedup key. It moves one way through four states:
 *
 * <pre>
 * absent -putIfAbsent-> ASKING -claimed, or fail open-> OWNED -succeeded/failed-> ENDING
 *                       |  ^                            |                         |
 *                       +--+ held elsewhere: ask again  | no lease                | store answered,
 *                       |                               v                         | or timed out
 *                       +-done, fail closed, wait out-> ENDED <-------------------+
 * </pre>
 *
 * <ul>
 *   <li><b>ASKING</b>: in the map, not {@linkplain Running#owned() owned}, no lease. The store is
 *       being asked, or is asked again after a pause (50 ms doubling to 500 ms) while another
 *       instance holds the key. A claim of the same key meanwhile is a copy: an {@link
 *       Kind#IN_FLIGHT} claim on this record.
 *   <li><b>OWNED</b>: {@link Running#owned()} is true. With a lease when the store answered claimed
 *       (the token is held by the lease, which {@link LeaseRenewal} renews while the listeners
 *       run); without one when the event has nothing to run (claimed done at the store in one call)
 *       or when the store failed and the consumer fails open.
 *   <li><b>ENDING</b>: the owner's listeners ended; the token was taken from the lease (no more
 *       renewals) and {@code markDone} or {@code release} sent. Still in the map: copies keep
 *       waiting for the outcome.
 *   <li><b>ENDED</b>: out of the map, its outcome complete; the copies that waited learn it, and
 *       the next copy to arrive asks the store afresh.
 * </ul>
 *
 * <h2>Who moves them</h2>
 *
 * Only this class writes a record's state: its ownership, its outcome, its place in the map. The
 * lease fields a record inherits from {@link LeaseRenewal.Lease} are written by {@link
 * LeaseRenewal} alone, when this class calls {@link LeaseRenewal#held} and {@link
 * LeaseRenewal#stop}; its sweep walks the map's values and never moves a state. (A record extends
 * its lease rather than holding one, so a claim costs one object.) {@link DedupStoreCalls} bounds
 * and times each store call and holds nothing per event. Others (the acknowledgement modes) read a
 * claim and call this class's methods.
 *
 * <p>The thread that calls {@link #claim} or {@link #claimAll} (an IO thread) moves an event from
 * absent to ASKING and, with a store that answers at once (in memory), on to OWNED or ENDED before
 * it returns. A network store's answer is settled on the thread that completes it (the store
 * client's); a pause before asking again ends on the dedup scheduler. The owner moves OWNED to
 * ENDING: the thread that runs the listeners ({@link #runOwned}) or gives the claims back ({@link
 * #releaseAll}); ENDING ends on the thread that brings the store's answer or its time-out. Copies
 * never move their original: they wait on its outcome through a dependent future with its own
 * time-out ({@link #afterOriginal}), so a copy's wait cannot complete the original's outcome.
 *
 * <h2>Why each transition is safe</h2>
 *
 * <ul>
 *   <li>absent to ASKING: {@link ConcurrentMap#putIfAbsent} admits one record per key; every other
 *       claim of the key while it is there is a copy of it.
 *   <li>ASKING to OWNED, to ENDED, or asking again: a record has one store question outstanding at
 *       a time (the next is scheduled only from the answer to the last), and each answer is settled
 *       once, by the thread that completes it, so the record has one writer at a time. The lease is
 *       recorded before {@code owned} is set (both volatile), so whoever sees a record owned sees
 *       its lease. A claim the store takes only after this process gave up on it (the time-out)
 *       belongs to nobody: it is released as soon as it arrives, or it would hold the event's
 *       copies on every instance off for a whole lease.
 *   <li>OWNED to ENDING: an owner's claim is ended by one call on one thread (a mode hands it to
 *       {@link #runOwned} or to {@link #releaseAll}, never to both), and {@link LeaseRenewal#stop}
 *       hands the token over once, so a claim is marked done or released at most once. A sweep that
 *       read the token just before sends a renewal the store refuses (the key is done or released),
 *       and that refusal is not taken for a lost claim, since the lease was stopped.
 *   <li>to ENDED: {@link #end} runs whatever the store answered, threw or left unanswered (in a
 *       {@code finally}, or on the failure path), and may run twice: stopping a stopped lease,
 *       removing a removed record and completing a complete future do nothing. It removes by key
 *       and record, so it never removes a later attempt's record, and it removes before it
 *       completes the outcome, so a copy woken by the outcome that claims again asks the store
 *       instead of finding the ended record.
 *   <li>Nothing stays in the map: a record left there would make every copy of its event wait out
 *       its in-flight wait, for as long as the process runs. So every path that throws (a
 *       listener's {@code Error}, a store that throws instead of answering) ends or releases the
 *       claims it took ({@link #claimAll}, {@link #runOwned}, {@link #releaseAll}), and the {@code
 *       Error} propagates after.
 * </ul>
 *
 * <p>Every store call is bounded by the dedup time-out. A claim the store cannot answer (failed,
 * thrown, timed out) fails closed ({@link Kind#STORE_FAILED}, the delivery is answered 503) or,
 * when the consumer was built to fail open, runs the event without dedup. Ending a claim never
 * fails a delivery: a {@code markDone} or {@code release} the store cannot answer is logged, and
 * the answer already decided stands.
 *
 * <p>One claim's answer is a {@link ClaimAnswer}: the {@link Claim} itself when it is known at
 * once, which with the store in memory is always, so that path allocates no future per event; a
 * {@link PendingClaim} when the store answers later.
 */
final class DedupGate {

  // Logs under the consumer's name: users' log configuration names it.
  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);

  /** First pause before a copy asks the store again about an event running elsewhere. */
  static final Duration FIRST_POLL = Duration.ofMillis(50);

  /** Longest pause between two such questions; the pause doubles up to it. */
  static final Duration MAX_POLL = Duration.ofMillis(500);

  private static final CompletableFuture<Void> ENDED = CompletableFuture.completedFuture(null);
  private static final CompletableFuture<Boolean> SUCCEEDED_AT_ONCE =
      CompletableFuture.completedFuture(true);
  private static final CompletableFuture<Boolean> FAILED_AT_ONCE =
      CompletableFuture.completedFuture(false);

  /** What a claim found. */
  enum Kind {
    /**
     * The caller owns the event and must call {@link #succeeded} or {@link #failed}. Without a
     * store token when the store failed and the consumer fails open.
     */
    OWNER,
    /** The event was handled before, here or on another instance. */
    DONE,
    /** The event is running in this process now; {@link Claim#running()} is the original's. */
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
   * An attempt at an event in this process, in the gate's map under its key from ASKING until
   * ENDED. Its state is written by the gate alone; others read it through its methods.
   */
  static final class Running extends LeaseRenewal.Lease {

    /**
     * The event has nothing to run: it is claimed with {@link Deduplicator#claimDone}, done at the
     * store once claimed, and its owner holds no token to end.
     */
    final boolean doneOnClaim;

    /** Completed once, when the attempt ends; copies wait on it. */
    private final CompletableFuture<Outcome> outcome = new CompletableFuture<>();

    /** Set once, from ASKING to OWNED. */
    private volatile boolean owned;

    private Running(String key, boolean doneOnClaim) {
      super(key);
      this.doneOnClaim = doneOnClaim;
    }

    /** True once this process owns the event (with a lease, or without when failing open). */
    boolean owned() {
      return owned;
    }
  }

  /** One claim's answer: the claim, or (the store answers later) a future of it. */
  sealed interface ClaimAnswer permits Claim, PendingClaim {}

  /** One claim's result; for {@link Kind#IN_FLIGHT}, {@code running} is the original's. */
  record Claim(Kind kind, Running running) implements ClaimAnswer {}

  /** A claim the store has not answered yet; the future completes normally whatever it does. */
  record PendingClaim(CompletableFuture<Claim> future) implements ClaimAnswer {}

  /** One copy's wait for an original running on another instance: when it ends, the next pause. */
  private static final class Poll {
    final long deadline;
    long pauseNanos = FIRST_POLL.toNanos();

    Poll(long deadline) {
      this.deadline = deadline;
    }
  }

  private final ConcurrentMap<String, Running> running = new ConcurrentHashMap<>();
  private final DedupStoreCalls calls;
  private final LeaseRenewal leases;
  private final long inFlightWaitNanos;
  private final boolean failOpen;
  private final ScheduledExecutorService scheduler;
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
    this.failOpen = failOpen;
    this.scheduler = scheduler;
    this.calls = new DedupStoreCalls(store, timeout.toNanos());
    this.leases = new LeaseRenewal(calls, running.values(), lease, scheduler, leaseTicker);
  }

  /**
   * The scheduler that times the pauses of copies asking again and the lease sweeps: one daemon
   * thread for every consumer in the JVM, since it only asks stores and never runs listeners.
   */
  static ScheduledExecutorService sharedScheduler() {
    return SharedScheduler.INSTANCE;
  }

  private static final class SharedScheduler {
    static final ScheduledExecutorService INSTANCE = create();

    private static ScheduledExecutorService create() {
      ScheduledThreadPoolExecutor executor =
          new ScheduledThreadPoolExecutor(
              1,
              r -> {
                Thread t = new Thread(r, "servicehooks-dedup");
                t.setDaemon(true);
                return t;
              });
      executor.setRemoveOnCancelPolicy(true);
      return executor;
    }
  }

  /** The consumer's meters; set once at build time, before any delivery. */
  void metrics(Metrics metrics) {
    calls.metrics(metrics);
  }

  // ---- claiming: absent to ASKING, and on to OWNED or ENDED ----

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
    ClaimAnswer[] answers = new ClaimAnswer[events.size()];
    boolean allKnown = true;
    try {
      for (int i = 0; i < answers.length; i++) {
        answers[i] = claim(events.get(i), runsNothing);
        allKnown &= answers[i] instanceof Claim;
      }
    } catch (RuntimeException | Error unexpected) {
      for (ClaimAnswer answer : answers) {
        future(answer)
            .thenAccept(
                c -> {
                  if (c.kind() == Kind.OWNER) {
                    failed(c);
                  }
                });
      }
      throw unexpected;
    }
    if (allKnown) {
      List<Claim> claims = new ArrayList<>(answers.length);
      for (ClaimAnswer answer : answers) {
        claims.add((Claim) answer);
      }
      return CompletableFuture.completedFuture(claims);
    }
    @SuppressWarnings("unchecked")
    CompletableFuture<Claim>[] pending = new CompletableFuture[answers.length];
    for (int i = 0; i < answers.length; i++) {
      pending[i] = future(answers[i]);
    }
    return CompletableFuture.allOf(pending)
        .thenApply(
            ignored -> {
              List<Claim> claims = new ArrayList<>(pending.length);
              for (CompletableFuture<Claim> claim : pending) {
                claims.add(claim.join());
              }
              return claims;
            });
  }

  /** A claim's answer as a future; null (never asked: an error came first) never completes. */
  private static CompletableFuture<Claim> future(ClaimAnswer answer) {
    if (answer == null) {
      return new CompletableFuture<>();
    }
    return answer instanceof Claim claim
        ? CompletableFuture.completedFuture(claim)
        : ((PendingClaim) answer).future();
  }

  /**
   * Claims one event: in this process first (a copy of an event running here finds its original),
   * then at the store. The {@link Claim} when the store answered at once (always, with the store in
   * memory), else a {@link PendingClaim} whose future completes normally whatever the store does. A
   * delivery of one event is claimed with this alone, with no list, array or future. If an {@code
   * Error} is thrown, the claim was ended first.
   *
   * @param doneOnClaim the event has nothing to run: the store marks it done with the claim
   */
  ClaimAnswer claim(WebhookEvent event, boolean doneOnClaim) {
    String key = event.dedupKey();
    Running mine = new Running(key, doneOnClaim);
    Running existing = running.putIfAbsent(key, mine);
    if (existing != null) {
      return new Claim(Kind.IN_FLIGHT, existing);
    }
    try {
      return ask(event, mine, null);
    } catch (RuntimeException | Error unexpected) {
      end(mine, Outcome.FAILED);
      throw unexpected;
    }
  }

  /**
   * Asks the store for {@code mine}'s key, then settles what it answered. {@code poll} is null on
   * the first question, and the copy's wait on the questions after "running elsewhere".
   */
  private ClaimAnswer ask(WebhookEvent event, Running mine, Poll poll) {
    long begin = calls.begin();
    long sent = leases.tick();
    CompletionStage<Deduplicator.Claim> stage;
    try {
      stage =
          mine.doneOnClaim
              ? calls.store.claimDone(mine.key, leases.lease())
              : calls.store.claim(mine.key, leases.lease());
    } catch (RuntimeException thrown) {
      stage = CompletableFuture.failedFuture(thrown);
    }
    CompletableFuture<Deduplicator.Claim> asked = calls.bounded("claim", begin, stage);
    if (asked.isDone()) {
      Deduplicator.Claim found;
      try {
        found = asked.join();
      } catch (CompletionException | CancellationException failure) {
        return storeFailed(mine, failure);
      }
      return settle(event, mine, found, poll, sent);
    }
    CompletionStage<Deduplicator.Claim> original = stage;
    return new PendingClaim(
        asked
            .handle(
                (found, failure) -> {
                  if (failure == null) {
                    return settle(event, mine, found, poll, sent);
                  }
                  // A late claimDone leaves the key done, which is right for an event with nothing
                  // to run; a late claim is given back.
                  if (original != null
                      && !mine.doneOnClaim
                      && DedupStoreCalls.unwrap(failure) instanceof TimeoutException) {
                    releaseIfClaimedLate(mine.key, original);
                  }
                  return storeFailed(mine, failure);
                })
            .thenCompose(DedupGate::future));
  }

  /**
   * The claim timed out here but the store may still take it (its own time-out is longer, or its
   * answer was on the way): a claim that arrives after this process gave up belongs to nobody and
   * would hold the event's copies off for a whole lease. Released as soon as it is known.
   */
  private void releaseIfClaimedLate(String key, CompletionStage<Deduplicator.Claim> stage) {
    stage.whenComplete(
        (late, failure) -> {
          if (late == null || late.status() != Deduplicator.Claim.Status.CLAIMED) {
            return;
          }
          try {
            calls
                .store
                .release(key, late.token())
                .whenComplete(
                    (released, releaseFailure) -> {
                      if (releaseFailure != null) {
                        log.warn(
                            "Dedup store took the claim on {} after its time-out and could not"
                                + " release it; its copies wait until the lease ends",
                            LogSafe.escape(key),
                            DedupStoreCalls.unwrap(releaseFailure));
                      } else {
                        log.debug(
                            "Released the claim on {} that the store took after its time-out",
                            LogSafe.escape(key));
                      }
                    });
          } catch (RuntimeException thrown) {
            log.warn(
                "Dedup store failed to release a late claim on {}", LogSafe.escape(key), thrown);
          }
        });
  }

  /** What the store found: ASKING to OWNED or ENDED, or (running elsewhere) ask again later. */
  private ClaimAnswer settle(
      WebhookEvent event, Running mine, Deduplicator.Claim found, Poll poll, long sent) {
    if (found == null) {
      return storeFailed(mine, new NullPointerException("the store answered null"));
    }
    calls.outage.worked();
    switch (found.status()) {
      case CLAIMED:
        if (!mine.doneOnClaim) {
          leases.held(mine, found.token(), sent);
        }
        // With doneOnClaim, done at the store already: an owner without a token, whose end asks
        // nothing.
        mine.owned = true;
        return new Claim(Kind.OWNER, mine);
      case DONE:
        end(mine, Outcome.SUCCEEDED); // copies waiting here learn it was done
        return new Claim(Kind.DONE, mine);
      default:
        return askAgainLater(event, mine, poll);
    }
  }

  /**
   * Another instance holds the event: asks the store again after a pause (doubling, up to {@link
   * #MAX_POLL}) until it answers done or claimed, or the in-flight wait runs out: {@link
   * Kind#STILL_RUNNING}. Never answers done while the original's outcome is unknown. The pauses are
   * timers on the scheduler; no thread waits.
   */
  private ClaimAnswer askAgainLater(WebhookEvent event, Running mine, Poll poll) {
    long now = leases.tick();
    if (poll == null) {
      calls.metrics().runningElsewhere();
      poll = new Poll(now + inFlightWaitNanos);
    }
    long left = poll.deadline - now;
    if (left <= 0) {
      end(mine, Outcome.STILL_RUNNING);
      return new Claim(Kind.STILL_RUNNING, mine);
    }
    long pause = Math.min(poll.pauseNanos, left);
    poll.pauseNanos = Math.min(poll.pauseNanos * 2, MAX_POLL.toNanos());
    Poll next = poll;
    CompletableFuture<Claim> result = new CompletableFuture<>();
    try {
      scheduler.schedule(
          () -> {
            try {
              future(ask(event, mine, next))
                  .whenComplete((claim, failure) -> result.complete(claim));
            } catch (RuntimeException | Error unexpected) {
              result.complete(storeFailed(mine, unexpected));
            }
          },
          pause,
          TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException stopped) {
      end(mine, Outcome.STILL_RUNNING);
      return new Claim(Kind.STILL_RUNNING, mine);
    }
    return new PendingClaim(result);
  }

  /**
   * The store could not answer a claim: fail closed (ENDED), or run unguarded when failing open.
   */
  private Claim storeFailed(Running mine, Throwable failure) {
    Throwable cause = DedupStoreCalls.unwrap(failure);
    if (failOpen) {
      calls.metrics().failOpen();
      calls.outage.failed(
          "claim",
          "running events without dedup (failOpen, counted in webhook.dedup.fail.open)",
          cause);
      mine.owned = true;
      return new Claim(Kind.OWNER, mine);
    }
    calls.outage.failed("claim", "answering deliveries 503 dedup_unavailable", cause);
    end(mine, Outcome.UNAVAILABLE);
    return new Claim(Kind.STORE_FAILED, mine);
  }

  // ---- ending: OWNED to ENDING to ENDED ----

  /**
   * The owner's listeners succeeded: marks the event done, then lets waiting copies go. The future
   * completes (never exceptionally) once the store answered or the time-out passed; a failure or a
   * lost lease is logged and counted, never thrown.
   */
  CompletableFuture<Void> succeeded(Claim claim) {
    Running r = claim.running();
    String token = leases.stop(r);
    if (token == null) {
      end(r, Outcome.SUCCEEDED); // no lease: failing open, or done on claim
      return ENDED;
    }
    long sent = leases.tick();
    long begin = calls.begin();
    CompletionStage<Boolean> stage;
    try {
      stage = calls.store.markDone(r.key, token);
    } catch (RuntimeException thrown) {
      stage = CompletableFuture.failedFuture(thrown);
    }
    CompletableFuture<Boolean> done = calls.bounded("done", begin, stage);
    if (done.isDone()) {
      markedDone(r, done, sent);
      return ENDED;
    }
    return done.handle(
        (ignored, failure) -> {
          markedDone(r, done, sent);
          return null;
        });
  }

  private void markedDone(Running r, CompletableFuture<Boolean> done, long sent) {
    try {
      Boolean marked = done.join();
      calls.outage.worked();
      if (!Boolean.TRUE.equals(marked)) {
        leases.claimNotHeld(r, sent, "marked done", true);
      }
    } catch (CompletionException | CancellationException failure) {
      calls.outage.failed(
          "markDone " + LogSafe.escape(r.key),
          "events whose listeners ran are not marked done, so a redelivery after the lease may"
              + " run them again",
          DedupStoreCalls.unwrap(failure));
    } finally {
      end(r, Outcome.SUCCEEDED);
    }
  }

  /**
   * The owner's listeners failed (or it was never run): forgets the claim for a redelivery. Never
   * throws for the store; the future completes once the store answered or the time-out passed.
   */
  CompletableFuture<Void> failed(Claim claim) {
    Running r = claim.running();
    String token = leases.stop(r);
    if (token == null) {
      end(r, Outcome.FAILED);
      return ENDED;
    }
    long begin = calls.begin();
    CompletionStage<Boolean> stage;
    try {
      stage = calls.store.release(r.key, token);
    } catch (RuntimeException thrown) {
      stage = CompletableFuture.failedFuture(thrown);
    }
    CompletableFuture<Boolean> released = calls.bounded("release", begin, stage);
    if (released.isDone()) {
      released(r, released);
      return ENDED;
    }
    return released.handle(
        (ignored, failure) -> {
          released(r, released);
          return null;
        });
  }

  private void released(Running r, CompletableFuture<Boolean> released) {
    try {
      Boolean freed = released.join();
      calls.outage.worked();
      if (!Boolean.TRUE.equals(freed)) {
        log.warn(
            "Dedup lease on {} ran out before it was released (lease {})",
            LogSafe.escape(r.key),
            leases.lease());
      }
    } catch (CompletionException | CancellationException failure) {
      calls.outage.failed(
          "release " + LogSafe.escape(r.key),
          "failed events stay claimed, and their redeliveries wait until the lease ends",
          DedupStoreCalls.unwrap(failure));
    } finally {
      end(r, Outcome.FAILED);
    }
  }

  /** To ENDED: no more renewals, out of the map, copies learn {@code outcome}. Idempotent. */
  private void end(Running r, Outcome outcome) {
    leases.stop(r);
    running.remove(r.key, r);
    r.outcome.complete(outcome);
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
      CompletableFuture<Void> ended =
          endOwned(claims.get(i), ok, claims.subList(i + 1, claims.size()));
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
   * {@link #runOwned(List, List, Predicate)} for a delivery of one event: whether its listeners
   * succeeded, once its claim's end was answered (or timed out); never completes exceptionally.
   */
  CompletableFuture<Boolean> runOwned(
      WebhookEvent event, Claim claim, Predicate<WebhookEvent> dispatch) {
    boolean ok;
    try {
      ok = dispatch.test(event);
    } catch (RuntimeException | Error fatal) {
      releaseAll(List.of(claim));
      throw fatal;
    }
    CompletableFuture<Void> ended = endOwned(claim, ok, List.of());
    if (ended.isDone()) {
      return ok ? SUCCEEDED_AT_ONCE : FAILED_AT_ONCE;
    }
    return ended.handle((ignored, failure) -> ok);
  }

  /**
   * Ends an owner's claim after its listeners ran ({@code ok}: they succeeded). If ending it
   * throws, the claim is ended here regardless and {@code rest} (the claims of the delivery not yet
   * run) released before the throwable propagates.
   */
  private CompletableFuture<Void> endOwned(Claim claim, boolean ok, List<Claim> rest) {
    try {
      return ok ? succeeded(claim) : failed(claim);
    } catch (RuntimeException | Error fatal) {
      end(claim.running(), ok ? Outcome.SUCCEEDED : Outcome.FAILED);
      releaseAll(rest);
      throw fatal;
    }
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

  // ---- copies ----

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
