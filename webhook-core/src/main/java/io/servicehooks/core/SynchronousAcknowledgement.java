package io.servicehooks.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Answers a delivery once its listeners ran: claims every event, runs the owned ones (here, or on
 * the executor when one is given and some owned event has listeners), and waits for originals still
 * running elsewhere in this process, whose outcome their duplicates share.
 */
final class SynchronousAcknowledgement implements AcknowledgementMode {

  private final DedupGate gate;
  private final Dispatcher dispatcher;
  private final Metrics metrics;
  private final Answers answers;
  private final HandOff handOff;

  SynchronousAcknowledgement(
      DedupGate gate, Dispatcher dispatcher, Metrics metrics, Answers answers, HandOff handOff) {
    this.gate = gate;
    this.dispatcher = dispatcher;
    this.metrics = metrics;
    this.answers = answers;
    this.handOff = handOff;
  }

  @Override
  public CompletableFuture<WebhookResponse> acknowledge(
      List<WebhookEvent> events, long start, Executor executor) {
    Answers.Tally tally = new Answers.Tally();
    List<WebhookEvent> owned = new ArrayList<>(events.size());
    List<DedupGate.Claim> claims = new ArrayList<>(events.size());
    List<CompletableFuture<DedupGate.Outcome>> waiting = null;
    boolean listenersToRun = false;
    for (WebhookEvent event : events) {
      DedupGate.Claim claim = gate.claim(event, claims);
      switch (claim.kind()) {
        case OWNER:
          owned.add(event);
          claims.add(claim);
          listenersToRun |= dispatcher.hasListeners(event.type());
          break;
        case DONE:
          metrics.event(event.type(), "duplicate");
          tally.duplicates.incrementAndGet();
          break;
        case IN_FLIGHT:
          if (waiting == null) {
            waiting = new ArrayList<>();
          }
          waiting.add(
              gate.afterOriginal(
                  claim,
                  outcome -> {
                    switch (outcome) {
                      case SUCCEEDED:
                        metrics.event(event.type(), "duplicate");
                        tally.duplicates.incrementAndGet();
                        break;
                      case FAILED:
                        metrics.event(event.type(), "failed");
                        tally.failed.incrementAndGet();
                        break;
                      case STILL_RUNNING:
                        metrics.event(event.type(), "in_flight");
                        tally.inFlight.incrementAndGet();
                        break;
                    }
                    return outcome;
                  }));
          break;
        case RUNNING_ELSEWHERE:
          metrics.event(event.type(), "in_flight");
          tally.inFlight.incrementAndGet();
          break;
        case STORE_FAILED:
          metrics.event(event.type(), "failed");
          tally.failed.incrementAndGet();
          break;
      }
    }
    List<CompletableFuture<DedupGate.Outcome>> originals = waiting;
    if (executor == null || !listenersToRun) {
      runOwned(owned, claims, tally);
      return finish(tally, originals, start);
    }
    return handOff.run(
        executor,
        start,
        () -> {
          runOwned(owned, claims, tally);
          return finish(tally, originals, start);
        },
        claims);
  }

  /** Ends every claim whatever is thrown; a store failure is rethrown after, answered 500. */
  private void runOwned(
      List<WebhookEvent> owned, List<DedupGate.Claim> claims, Answers.Tally tally) {
    int handled = gate.runOwned(owned, claims, dispatcher::dispatch);
    tally.handled.addAndGet(handled);
    tally.failed.addAndGet(owned.size() - handled);
  }

  private CompletableFuture<WebhookResponse> finish(
      Answers.Tally tally, List<CompletableFuture<DedupGate.Outcome>> waiting, long start) {
    if (waiting == null) {
      return answers.done(tally.answer(), start);
    }
    return CompletableFuture.allOf(waiting.toArray(CompletableFuture[]::new))
        .thenApply(ignored -> answers.record(tally.answer(), start));
  }

  @Override
  public String toString() {
    return "SynchronousAcknowledgement";
  }
}
