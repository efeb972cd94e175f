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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
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
 */
final class DedupGate {

  // Logs under the consumer's name, as before the split: users' log configuration names it.
  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);

  private final StoreOutage outage = new StoreOutage();

  /** First pause before a copy asks the store again about an event running elsewhere. */
  static final Duration FIRST_POLL = Duration.ofMillis(50);

  /** Longest pause between two such questions; the pause doubles up to it. */
  static final Duration MAX_POLL = Duration.ofMillis(500);

  private static final CompletableFuture<Void> ENDED = CompletableFuture.completedFuture(null);

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
   * An event this process is claiming or running, in the {@code running} map under its key until
   * its attempt ends. Copies wait on {@link #outcome}.
   */
  static final class Running {
    final String key;
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

    Running(String key) {
      this.key = key;
    }
  }

  /** One claim's result; for {@link Kind#IN_FLIGHT}, {@code running} is the original's. */
  record Claim(Kind kind, Running running) {}

  private final Deduplicator store;
  private final Duration lease;
  private final long halfLeaseNanos;
  private final long sweepNanos;
  private final long timeoutNanos;
  private final long inFlightWaitNanos;
  private final boolean failOpen;
  private final boolean timed;
  private final ScheduledExecutorService scheduler;
  private final java.util.function.LongSupplier leaseTicker;
  private Metrics metrics = Metrics.NOOP;

  private final ConcurrentMap<String, Running> running = new ConcurrentHashMap<>();
  private final AtomicInteger waiting = new AtomicInteger();
  private final AtomicBoolean sweepScheduled = new AtomicBoolean();

  DedupGate(
      Deduplicator store,
      Duration inFlightWait,
      Duration lease,
      Duration timeout,
      boolean failOpen,
      ScheduledExecutorService scheduler,
      java.util.function.LongSupplier leaseTicker) {
    this.store = store;
    this.leaseTicker = leaseTicker;
    this.inFlightWaitNanos = inFlightWait.toNanos();
    this.lease = lease;
    this.halfLeaseNanos = lease.toNanos() / 2;
    this.sweepNanos = Math.max(1, lease.toNanos() / 4);
    this.timeoutNanos = timeout.toNanos();
    this.failOpen = failOpen;
    // A store in memory answers in well under a microsecond: a timer per call would cost more
    // than the call, and its cache meters say what matters. A store that may block is timed on
    // every call; one that never blocks is timed on the calls that did not answer at once (an
    // asynchronous network client's).
    this.timed = store.mayBlock();
    this.scheduler = scheduler;
  }

  /** The consumer's meters; set once at build time, before any delivery. */
  void metrics(Metrics metrics) {
    this.metrics = metrics;
  }

  /**
   * The shared scheduler that polls for copies and renews leases: one daemon thread for every
   * consumer in the JVM, since it only asks stores and never runs listeners.
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

  /**
   * Claims every event of a delivery. The future completes (never exceptionally) when each claim
   * has its answer; with a store in memory it is complete on return. If an {@code Error} is thrown,
   * the claims taken so far are released first, so none stays open.
   */
  CompletableFuture<List<Claim>> claimAll(List<WebhookEvent> events) {
    // Each element a Claim, or a CompletableFuture<Claim> for one the store answers later: the
    // in-memory path then allocates no future per event.
    Object[] answers = new Object[events.size()];
    boolean allDone = true;
    try {
      for (int i = 0; i < answers.length; i++) {
        answers[i] = claim(events.get(i));
        allDone &= answers[i] instanceof Claim;
      }
    } catch (RuntimeException | Error unexpected) {
      for (Object answer : answers) {
        toFuture(answer)
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
      pending[i] = toFuture(answers[i]);
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

  @SuppressWarnings("unchecked")
  private static CompletableFuture<Claim> toFuture(Object answer) {
    if (answer == null) {
      return new CompletableFuture<>(); // never asked (an Error came first): nothing to release
    }
    return answer instanceof Claim claim
        ? CompletableFuture.completedFuture(claim)
        : (CompletableFuture<Claim>) answer;
  }

  /** Claims one event: a Claim, or a future of one; completes normally whatever the store does. */
  private Object claim(WebhookEvent event) {
    String key = event.dedupKey();
    Running mine = new Running(key);
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
   * Asks the store for {@code mine}'s key, then settles what it answered: a Claim when that is
   * known now, else a future of one.
   */
  private Object ask(WebhookEvent event, Running mine, Poll poll) {
    long begin = timed ? System.nanoTime() : 0;
    long sent = leaseTicker.getAsLong();
    CompletionStage<Deduplicator.Claim> stage;
    try {
      stage = store.claim(mine.key, lease);
    } catch (RuntimeException thrown) {
      stage = CompletableFuture.failedFuture(thrown);
    }
    CompletableFuture<Deduplicator.Claim> asked = bounded("claim", begin, stage);
    if (asked.isDone()) {
      Deduplicator.Claim found;
      try {
        found = asked.join();
      } catch (CompletionException | CancellationException failure) {
        return storeFailed(event, mine, failure);
      }
      return settle(event, mine, found, poll, sent);
    }
    CompletionStage<Deduplicator.Claim> original = stage;
    return asked
        .handle(
            (found, failure) -> {
              if (failure == null) {
                return settle(event, mine, found, poll, sent);
              }
              if (original != null && unwrap(failure) instanceof TimeoutException) {
                releaseIfClaimedLate(mine.key, original);
              }
              return storeFailed(event, mine, failure);
            })
        .thenCompose(DedupGate::toFuture);
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
            store
                .release(key, late.token())
                .whenComplete(
                    (released, releaseFailure) -> {
                      if (releaseFailure != null) {
                        log.warn(
                            "Dedup store took the claim on {} after its time-out and could not"
                                + " release it; its copies wait until the lease ends",
                            LogSafe.escape(key),
                            unwrap(releaseFailure));
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

  /** What the store found: a Claim, or (running elsewhere) a future of the copy's wait. */
  private Object settle(
      WebhookEvent event, Running mine, Deduplicator.Claim found, Poll poll, long sent) {
    if (found == null) {
      return storeFailed(event, mine, new NullPointerException("the store answered null"));
    }
    outage.worked();
    switch (found.status()) {
      case CLAIMED:
        mine.claimedAt = sent;
        mine.leaseSure = sent + lease.toNanos();
        mine.renewAt = System.nanoTime() + halfLeaseNanos;
        mine.token = found.token();
        mine.owned = true;
        scheduleSweep();
        return new Claim(Kind.OWNER, mine);
      case DONE:
        end(mine, Outcome.SUCCEEDED); // copies waiting here learn it was already done
        return new Claim(Kind.DONE, mine);
      default:
        return waitElsewhere(event, mine, poll);
    }
  }

  /** A copy's wait for an original on another instance: when it ends, and the next pause. */
  private static final class Poll {
    final long deadline;
    long pauseNanos = FIRST_POLL.toNanos();

    Poll(long deadline) {
      this.deadline = deadline;
    }
  }

  /**
   * Asks the store again after a pause (doubling, up to {@link #MAX_POLL}) until it answers done or
   * claimed, or the in-flight wait runs out: {@link Kind#STILL_RUNNING}. Never answers done while
   * the original's outcome is unknown. The pauses are timers on the shared scheduler; no thread
   * waits.
   */
  private Object waitElsewhere(WebhookEvent event, Running mine, Poll poll) {
    long now = System.nanoTime();
    if (poll == null) {
      metrics.runningElsewhere();
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
              toFuture(ask(event, mine, next))
                  .whenComplete((claim, failure) -> result.complete(claim));
            } catch (RuntimeException | Error unexpected) {
              result.complete(storeFailed(event, mine, unexpected));
            }
          },
          pause,
          TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException stopped) {
      end(mine, Outcome.STILL_RUNNING);
      return new Claim(Kind.STILL_RUNNING, mine);
    }
    return result;
  }

  /** The store could not answer a claim: fail closed, or run unguarded when failing open. */
  private Claim storeFailed(WebhookEvent event, Running mine, Throwable failure) {
    Throwable cause = unwrap(failure);
    if (failOpen) {
      metrics.failOpen();
      outage.failed(
          "claim",
          "running events without dedup (failOpen, counted in webhook.dedup.fail.open)",
          cause);
      mine.owned = true;
      return new Claim(Kind.OWNER, mine);
    }
    outage.failed("claim", "answering deliveries 503 dedup_unavailable", cause);
    end(mine, Outcome.UNAVAILABLE);
    return new Claim(Kind.STORE_FAILED, mine);
  }

  /**
   * The owner's listeners succeeded: marks the event done, then lets waiting copies go. The future
   * completes (never exceptionally) once the store answered or the time-out passed; a failure or a
   * lost lease is logged and counted, never thrown.
   */
  CompletableFuture<Void> succeeded(Claim claim) {
    Running r = claim.running();
    String token = r.token;
    if (token == null) {
      end(r, Outcome.SUCCEEDED); // unguarded: failing open, the store was never claimed
      return ENDED;
    }
    r.token = null; // no more renewals
    long sent = leaseTicker.getAsLong();
    long begin = timed ? System.nanoTime() : 0;
    CompletionStage<Boolean> stage;
    try {
      stage = store.markDone(r.key, token);
    } catch (RuntimeException thrown) {
      stage = CompletableFuture.failedFuture(thrown);
    }
    CompletableFuture<Boolean> done = bounded("done", begin, stage);
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
      outage.worked();
      if (!Boolean.TRUE.equals(marked)) {
        claimNotHeld(r, sent, "marked done", true);
      }
    } catch (CompletionException | CancellationException failure) {
      outage.failed(
          "markDone " + LogSafe.escape(r.key),
          "events whose listeners ran are not marked done, so a redelivery after the lease may"
              + " run them again",
          unwrap(failure));
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
    String token = r.token;
    if (token == null) {
      end(r, Outcome.FAILED);
      return ENDED;
    }
    r.token = null;
    long begin = timed ? System.nanoTime() : 0;
    CompletionStage<Boolean> stage;
    try {
      stage = store.release(r.key, token);
    } catch (RuntimeException thrown) {
      stage = CompletableFuture.failedFuture(thrown);
    }
    CompletableFuture<Boolean> released = bounded("release", begin, stage);
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
      outage.worked();
      if (!Boolean.TRUE.equals(freed)) {
        log.warn(
            "Dedup lease on {} ran out before it was released (lease {})",
            LogSafe.escape(r.key),
            lease);
      }
    } catch (CompletionException | CancellationException failure) {
      outage.failed(
          "release " + LogSafe.escape(r.key),
          "failed events stay claimed, and their redeliveries wait until the lease ends",
          unwrap(failure));
    } finally {
      end(r, Outcome.FAILED);
    }
  }

  /**
   * The store answered that {@code r}'s token no longer holds its key. When the question was sent
   * while the lease certainly still ran, the store lost the key (evicted, or its data lost in a
   * restart or fail-over): a slow listener is not to blame. Otherwise the lease ran out. Counted
   * once per event, at its mark (a lost renewal is followed by a mark that finds the key lost too).
   */
  private void claimNotHeld(Running r, long sent, String when, boolean count) {
    long held = Math.max(0, sent - r.claimedAt);
    if (sent - r.leaseSure < 0) {
      if (count) {
        metrics.claimLost();
      }
      log.warn(
          "Dedup store no longer held the claim on {} when it was {}, although its lease still ran"
              + " (held {} ms of {}): the store lost the key (Redis: an eviction policy other than"
              + " noeviction, a restart without persistence, a fail-over); a copy may run the"
              + " event again",
          LogSafe.escape(r.key),
          when,
          TimeUnit.NANOSECONDS.toMillis(held),
          lease);
    } else {
      if (count) {
        metrics.leaseExpired();
      }
      log.warn(
          "Dedup lease on {} ran out before its listeners finished (held {} ms, lease {}): another"
              + " copy may have run it too",
          LogSafe.escape(r.key),
          TimeUnit.NANOSECONDS.toMillis(held),
          lease);
    }
  }

  private void end(Running r, Outcome outcome) {
    r.token = null;
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

  /**
   * A store call's answer, bounded by the dedup time-out and timed (from {@code begin}) when the
   * store may block. A null stage counts as a failed one.
   */
  private <T> CompletableFuture<T> bounded(String operation, long begin, CompletionStage<T> stage) {
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

  private static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    while (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof TimeoutException) {
      return new TimeoutException("the dedup store did not answer within the dedup time-out");
    }
    return t;
  }

  /** Makes sure a sweep that renews long-running owners' leases is due while any runs. */
  private void scheduleSweep() {
    if (!sweepScheduled.get() && sweepScheduled.compareAndSet(false, true)) {
      try {
        scheduler.schedule(this::sweep, sweepNanos, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException stopped) {
        sweepScheduled.set(false);
      }
    }
  }

  /**
   * Renews the lease of every owner that has held its claim past half of it; runs every quarter
   * lease while this process owns events, and stops when it owns none.
   */
  private void sweep() {
    long now = System.nanoTime();
    for (Running r : running.values()) {
      String token = r.token;
      if (token != null && now - r.renewAt >= 0) {
        r.renewAt = now + halfLeaseNanos;
        renew(r, token);
      }
    }
    sweepScheduled.set(false);
    if (!running.isEmpty()) {
      scheduleSweep();
    }
  }

  private void renew(Running r, String token) {
    try {
      long sent = leaseTicker.getAsLong();
      long begin = timed ? System.nanoTime() : 0;
      CompletionStage<Boolean> stage;
      try {
        stage = store.renew(r.key, token, lease);
      } catch (RuntimeException thrown) {
        stage = CompletableFuture.failedFuture(thrown);
      }
      bounded("renew", begin, stage)
          .whenComplete(
              (ok, failure) -> {
                if (failure != null) {
                  log.warn(
                      "Dedup store failed to renew the lease on {}",
                      LogSafe.escape(r.key),
                      unwrap(failure));
                } else if (Boolean.TRUE.equals(ok)) {
                  r.leaseSure = sent + lease.toNanos();
                } else if (r.token != null) {
                  claimNotHeld(r, sent, "renewed", false);
                }
              });
    } catch (RuntimeException | Error unexpected) {
      log.warn("Dedup store failed to renew the lease on {}", LogSafe.escape(r.key), unexpected);
      if (unexpected instanceof VirtualMachineError vmError) {
        throw vmError;
      }
    }
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
