package io.servicehooks.core;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends an owner's claim at the store: {@code markDone} when its listeners succeeded, {@code
 * release} when they failed, then lets the waiting copies go. Never fails a delivery: what the
 * store cannot answer is logged, and the answer already decided stands.
 */
final class ClaimEnding {

  // Logs under the consumer's name, as before the split: users' log configuration names it.
  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);

  private static final CompletableFuture<Void> ENDED = CompletableFuture.completedFuture(null);

  private final DedupStoreCalls calls;
  private final RunningEvents running;
  private final LeaseRenewal leases;

  ClaimEnding(DedupStoreCalls calls, RunningEvents running, LeaseRenewal leases) {
    this.calls = calls;
    this.running = running;
    this.leases = leases;
  }

  /**
   * The owner's listeners succeeded: marks the event done, then lets waiting copies go. The future
   * completes (never exceptionally) once the store answered or the time-out passed; a failure or a
   * lost lease is logged and counted, never thrown.
   */
  CompletableFuture<Void> succeeded(DedupGate.Claim claim) {
    DedupGate.Running r = claim.running();
    String token = r.token;
    if (token == null) {
      running.end(r, DedupGate.Outcome.SUCCEEDED); // unguarded: failing open, never claimed
      return ENDED;
    }
    r.token = null; // no more renewals
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

  private void markedDone(DedupGate.Running r, CompletableFuture<Boolean> done, long sent) {
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
      running.end(r, DedupGate.Outcome.SUCCEEDED);
    }
  }

  /**
   * The owner's listeners failed (or it was never run): forgets the claim for a redelivery. Never
   * throws for the store; the future completes once the store answered or the time-out passed.
   */
  CompletableFuture<Void> failed(DedupGate.Claim claim) {
    DedupGate.Running r = claim.running();
    String token = r.token;
    if (token == null) {
      running.end(r, DedupGate.Outcome.FAILED);
      return ENDED;
    }
    r.token = null;
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

  private void released(DedupGate.Running r, CompletableFuture<Boolean> released) {
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
      running.end(r, DedupGate.Outcome.FAILED);
    }
  }
}
