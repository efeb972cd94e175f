package io.servicehooks.core;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims one event: in this process first (a copy of an event running here finds its original),
 * then at the store, and settles what the store answered: owner, done, running elsewhere (handed to
 * {@link RunningElsewhere}), or failed, closed or open as the consumer was built.
 */
final class ClaimTaker {

  // Logs under the consumer's name, as before the split: users' log configuration names it.
  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);

  private final DedupStoreCalls calls;
  private final RunningEvents running;
  private final LeaseRenewal leases;
  private final RunningElsewhere elsewhere;
  private final boolean failOpen;

  ClaimTaker(
      DedupStoreCalls calls,
      RunningEvents running,
      LeaseRenewal leases,
      RunningElsewhere elsewhere,
      boolean failOpen) {
    this.calls = calls;
    this.running = running;
    this.leases = leases;
    this.elsewhere = elsewhere;
    this.failOpen = failOpen;
  }

  /** A claim's answer as a future, whether it is a Claim already or a future of one. */
  @SuppressWarnings("unchecked")
  static CompletableFuture<DedupGate.Claim> toFuture(Object answer) {
    if (answer == null) {
      return new CompletableFuture<>(); // never asked (an Error came first): nothing to release
    }
    return answer instanceof DedupGate.Claim claim
        ? CompletableFuture.completedFuture(claim)
        : (CompletableFuture<DedupGate.Claim>) answer;
  }

  /**
   * Claims one event: a Claim, or a future of one; completes normally whatever the store does.
   *
   * @param doneOnClaim the event has nothing to run: the store marks it done with the claim
   */
  Object claim(WebhookEvent event, boolean doneOnClaim) {
    String key = event.dedupKey();
    DedupGate.Running mine = new DedupGate.Running(key, doneOnClaim);
    DedupGate.Running existing = running.putIfAbsent(mine);
    if (existing != null) {
      return new DedupGate.Claim(DedupGate.Kind.IN_FLIGHT, existing);
    }
    try {
      return ask(event, mine, null);
    } catch (RuntimeException | Error unexpected) {
      running.end(mine, DedupGate.Outcome.FAILED);
      throw unexpected;
    }
  }

  /**
   * Asks the store for {@code mine}'s key, then settles what it answered: a Claim when that is
   * known now, else a future of one.
   */
  Object ask(WebhookEvent event, DedupGate.Running mine, RunningElsewhere.Poll poll) {
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
    return asked
        .handle(
            (found, failure) -> {
              if (failure == null) {
                return settle(event, mine, found, poll, sent);
              }
              // A late claimDone leaves the key done, which is right for an event with nothing to
              // run; a late claim is given back.
              if (original != null
                  && !mine.doneOnClaim
                  && DedupStoreCalls.unwrap(failure) instanceof TimeoutException) {
                releaseIfClaimedLate(mine.key, original);
              }
              return storeFailed(mine, failure);
            })
        .thenCompose(ClaimTaker::toFuture);
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

  /** What the store found: a Claim, or (running elsewhere) a future of the copy's wait. */
  private Object settle(
      WebhookEvent event,
      DedupGate.Running mine,
      Deduplicator.Claim found,
      RunningElsewhere.Poll poll,
      long sent) {
    if (found == null) {
      return storeFailed(mine, new NullPointerException("the store answered null"));
    }
    calls.outage.worked();
    switch (found.status()) {
      case CLAIMED:
        if (mine.doneOnClaim) {
          // Done at the store already: an owner without a token, whose end asks nothing.
          mine.owned = true;
          return new DedupGate.Claim(DedupGate.Kind.OWNER, mine);
        }
        leases.claimed(mine, found.token(), sent);
        return new DedupGate.Claim(DedupGate.Kind.OWNER, mine);
      case DONE:
        running.end(mine, DedupGate.Outcome.SUCCEEDED); // copies waiting here learn it was done
        return new DedupGate.Claim(DedupGate.Kind.DONE, mine);
      default:
        return elsewhere.waitFor(event, mine, poll, this);
    }
  }

  /** The store could not answer a claim: fail closed, or run unguarded when failing open. */
  DedupGate.Claim storeFailed(DedupGate.Running mine, Throwable failure) {
    Throwable cause = DedupStoreCalls.unwrap(failure);
    if (failOpen) {
      calls.metrics().failOpen();
      calls.outage.failed(
          "claim",
          "running events without dedup (failOpen, counted in webhook.dedup.fail.open)",
          cause);
      mine.owned = true;
      return new DedupGate.Claim(DedupGate.Kind.OWNER, mine);
    }
    calls.outage.failed("claim", "answering deliveries 503 dedup_unavailable", cause);
    running.end(mine, DedupGate.Outcome.UNAVAILABLE);
    return new DedupGate.Claim(DedupGate.Kind.STORE_FAILED, mine);
  }
}
