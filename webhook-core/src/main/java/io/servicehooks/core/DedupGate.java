package io.servicehooks.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts the events this process is running in front of the {@link Deduplicator}: a duplicate that
 * arrives while its original is still running waits for the original's outcome instead of being
 * answered 200 early, and the store sees each event at most once per attempt.
 */
final class DedupGate {

  // Logs under the consumer's name, as before the split: users' log configuration names it.
  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);

  /** What a claim found. */
  enum Kind {
    /** The caller owns the event and must call {@link #succeeded} or {@link #failed}. */
    OWNER,
    /** The event was handled before (or is being handled by another process). */
    DONE,
    /** The event is running in this process now; {@link Claim#original()} completes with it. */
    IN_FLIGHT,
    /** Another process holds a live claim on the event; its outcome is not known yet. */
    RUNNING_ELSEWHERE,
    /** The store could not be asked (logged): the event counts as failed and nobody owns it. */
    STORE_FAILED
  }

  /**
   * One claim's result. For {@link Kind#OWNER} {@code original} is the caller's own future; for
   * {@link Kind#IN_FLIGHT} it is the running original's, completing with {@code true} when its
   * listeners succeeded.
   */
  record Claim(Kind kind, String key, String token, CompletableFuture<Boolean> original) {}

  private final Deduplicator store;
  private final ConcurrentMap<String, CompletableFuture<Boolean>> running =
      new ConcurrentHashMap<>();
  private final AtomicInteger waiting = new AtomicInteger();

  /** How a copy's wait on its in-flight original ended. */
  enum Outcome {
    /** The original's listeners succeeded. */
    SUCCEEDED,
    /** The original's listeners failed, or it was never run. */
    FAILED,
    /** The original was still running when the copy's wait ran out. */
    STILL_RUNNING
  }

  private final long inFlightWaitNanos;

  DedupGate(Deduplicator store, Duration inFlightWait) {
    this.store = store;
    this.inFlightWaitNanos = inFlightWait.toNanos();
  }

  /**
   * Claims the event for a delivery that already holds {@code taken}; if anything but a store
   * failure is thrown (an {@code Error}), the claims taken so far are released first, so none stays
   * open.
   */
  Claim claim(WebhookEvent event, List<Claim> taken) {
    try {
      return claim(event);
    } catch (RuntimeException | Error unexpected) {
      releaseAll(taken);
      throw unexpected;
    }
  }

  /** Claims the event; a store failure is logged and answered {@link Kind#STORE_FAILED}. */
  private Claim claim(WebhookEvent event) {
    try {
      return claim(event.dedupKey());
    } catch (RuntimeException storeFailure) {
      log.error(
          "Dedup store failed for {} event {}",
          LogSafe.escape(event.type()),
          LogSafe.escape(event.id()),
          storeFailure);
      return new Claim(Kind.STORE_FAILED, event.dedupKey(), null, null);
    }
  }

  private Claim claim(String key) {
    CompletableFuture<Boolean> mine = new CompletableFuture<>();
    CompletableFuture<Boolean> existing = running.putIfAbsent(key, mine);
    if (existing != null) {
      return new Claim(Kind.IN_FLIGHT, key, null, existing);
    }
    Deduplicator.Claim found;
    try {
      found = join(store.claim(key, Deduplicator.DEFAULT_LEASE));
    } catch (RuntimeException | Error storeFailure) {
      running.remove(key, mine);
      mine.complete(false);
      throw storeFailure;
    }
    switch (found.status()) {
      case CLAIMED:
        return new Claim(Kind.OWNER, key, found.token(), mine);
      case DONE:
        running.remove(key, mine);
        mine.complete(true); // anyone who saw our placeholder learns it was already done
        return new Claim(Kind.DONE, key, null, mine);
      default:
        running.remove(key, mine);
        mine.complete(false);
        return new Claim(Kind.RUNNING_ELSEWHERE, key, null, mine);
    }
  }

  private static <T> T join(java.util.concurrent.CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().join();
    } catch (java.util.concurrent.CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
  }

  /** The owner's listeners succeeded: remember the event, then let waiting duplicates go. */
  void succeeded(Claim claim) {
    try {
      join(store.markDone(claim.key(), claim.token()));
    } finally {
      running.remove(claim.key(), claim.original());
      claim.original().complete(true);
    }
  }

  /** The owner's listeners failed (or it was never run): forget the claim for a redelivery. */
  void failed(Claim claim) {
    try {
      join(store.release(claim.key(), claim.token()));
    } finally {
      running.remove(claim.key(), claim.original());
      claim.original().complete(false);
    }
  }

  /**
   * Runs each owned event through {@code dispatch} and ends its claim, whatever is thrown: the
   * claim is the only thing that lets later copies of the event go, so none may stay open. A store
   * failure on one item does not stop the others; the first is rethrown once every claim ended. A
   * {@link VirtualMachineError} (from a listener or its error handler) stops the listeners, the
   * claims not yet ended are released, and it propagates.
   *
   * @return how many events' listeners succeeded
   */
  int runOwned(List<WebhookEvent> events, List<Claim> claims, Predicate<WebhookEvent> dispatch) {
    int succeeded = 0;
    RuntimeException storeFailure = null;
    for (int i = 0; i < events.size(); i++) {
      boolean ok;
      try {
        ok = dispatch.test(events.get(i));
      } catch (RuntimeException | Error fatal) {
        releaseAll(claims.subList(i, claims.size()));
        throw fatal;
      }
      try {
        if (ok) {
          succeeded(claims.get(i));
          succeeded++;
        } else {
          failed(claims.get(i));
        }
      } catch (RuntimeException failure) {
        if (storeFailure == null) {
          storeFailure = failure;
        } else {
          storeFailure.addSuppressed(failure);
        }
      } catch (Error fatal) {
        releaseAll(claims.subList(i + 1, claims.size()));
        throw fatal;
      }
    }
    if (storeFailure != null) {
      throw storeFailure;
    }
    return succeeded;
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
      } catch (RuntimeException | Error storeFailure) {
        log.error("Dedup store failed to release a claim", storeFailure);
        if (storeFailure instanceof VirtualMachineError vmError && fatal == null) {
          fatal = vmError;
        }
      }
    }
    if (fatal != null) {
      throw fatal;
    }
  }

  /**
   * For a duplicate that waits on its {@link Kind#IN_FLIGHT} original: {@code then} applied to the
   * original's outcome, or to {@link Outcome#STILL_RUNNING} once the in-flight wait ran out, so no
   * copy waits unbounded. The duplicate counts in {@link #waiting()} until one of them happens.
   */
  <T> CompletableFuture<T> afterOriginal(Claim inFlight, Function<Outcome, T> then) {
    waiting.incrementAndGet();
    // A dependent future, so the time-out never completes the original's own future.
    return inFlight
        .original()
        .thenApply(succeeded -> succeeded ? Outcome.SUCCEEDED : Outcome.FAILED)
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

  /** How many duplicates wait on an original running in this process now. */
  int waiting() {
    return waiting.get();
  }
}
