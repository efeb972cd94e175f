package io.servicehooks.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Answers a delivery once its listeners ran: claims every event, runs the owned ones (here, or on
 * the executor when one is given and some owned event has listeners), and waits for originals still
 * running elsewhere in this process, whose outcome their copies share. A delivery with an event the
 * dedup store could not answer runs nothing: its claims are released and it is answered 503.
 */
final class SynchronousAcknowledgement implements AcknowledgementMode {

  private final DedupGate gate;
  private final Dispatcher dispatcher;
  private final Metrics metrics;
  private final Answers answers;
  private final HandOff handOff;
  private final boolean listenersNonBlocking;

  SynchronousAcknowledgement(
      DedupGate gate,
      Dispatcher dispatcher,
      Metrics metrics,
      Answers answers,
      HandOff handOff,
      boolean listenersNonBlocking) {
    this.gate = gate;
    this.dispatcher = dispatcher;
    this.metrics = metrics;
    this.answers = answers;
    this.handOff = handOff;
    this.listenersNonBlocking = listenersNonBlocking;
  }

  @Override
  public CompletableFuture<WebhookResponse> acknowledge(
      List<WebhookEvent> events, long start, Executor executor, Executor resumeOn) {
    // A delivery none of whose events has a listener runs nothing: each event is claimed and
    // marked done at the store in one call, and whatever is left (waiting for originals, the
    // answer) only asks the store and never blocks.
    boolean runsNothing = !anyListeners(events);
    CompletableFuture<List<DedupGate.Claim>> claimed = gate.claimAll(events, runsNothing);
    if (claimed.isDone()) {
      return answer(events, claimed.join(), start, executor);
    }
    if (runsNothing) {
      // Goes on on the thread that brought the store's answer instead of a hop to a worker and
      // back (benchmarks/RESULTS.md, "Store paths").
      return claimed
          .thenCompose(claims -> answer(events, claims, start, null))
          .exceptionally(failure -> answers.internalError(failure, start));
    }
    if (resumeOn != null) {
      // The store answers later, on its own thread: run the rest on the executor, never there.
      CompletableFuture<WebhookResponse> result = new CompletableFuture<>();
      claimed.thenAccept(
          claims ->
              handOff
                  .run(resumeOn, start, () -> answer(events, claims, start, null), owners(claims))
                  .thenAccept(result::complete));
      return result;
    }
    if (listenersNonBlocking) {
      // Listeners declared non-blocking may run on whichever thread brought the store's answer.
      return claimed
          .thenCompose(claims -> answer(events, claims, start, null))
          .exceptionally(failure -> answers.internalError(failure, start));
    }
    // No executor: the caller's thread may block (handle's contract) and runs the listeners.
    return answer(events, claimed.join(), start, null);
  }

  private boolean anyListeners(List<WebhookEvent> events) {
    for (WebhookEvent event : events) {
      if (dispatcher.hasListeners(event.type())) {
        return true;
      }
    }
    return false;
  }

  private static List<DedupGate.Claim> owners(List<DedupGate.Claim> claims) {
    List<DedupGate.Claim> owners = new ArrayList<>(claims.size());
    for (DedupGate.Claim claim : claims) {
      if (claim.kind() == DedupGate.Kind.OWNER) {
        owners.add(claim);
      }
    }
    return owners;
  }

  private CompletableFuture<WebhookResponse> answer(
      List<WebhookEvent> events, List<DedupGate.Claim> claims, long start, Executor executor) {
    Answers.Tally tally = new Answers.Tally();
    List<WebhookEvent> owned = new ArrayList<>(events.size());
    List<DedupGate.Claim> owners = new ArrayList<>(events.size());
    List<CompletableFuture<DedupGate.Outcome>> waiting = null;
    boolean listenersToRun = false;
    boolean unavailable = false;
    for (int i = 0; i < events.size(); i++) {
      WebhookEvent event = events.get(i);
      DedupGate.Claim claim = claims.get(i);
      switch (claim.kind()) {
        case OWNER:
          owned.add(event);
          owners.add(claim);
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
          waiting.add(gate.afterOriginal(claim, outcome -> count(event, outcome, tally)));
          break;
        case STILL_RUNNING:
          count(event, DedupGate.Outcome.STILL_RUNNING, tally);
          break;
        case STORE_FAILED:
          count(event, DedupGate.Outcome.UNAVAILABLE, tally);
          unavailable = true;
          break;
      }
    }
    if (unavailable) {
      // Fail closed: nothing of this delivery runs, and what it claimed is given back.
      gate.releaseAll(owners);
      return answers.done(Answers.dedupUnavailable(), start);
    }
    List<CompletableFuture<DedupGate.Outcome>> originals = waiting;
    if (executor == null || !listenersToRun) {
      return runOwned(owned, owners, tally, originals, start);
    }
    return handOff.run(
        executor, start, () -> runOwned(owned, owners, tally, originals, start), owners);
  }

  private DedupGate.Outcome count(
      WebhookEvent event, DedupGate.Outcome outcome, Answers.Tally tally) {
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
        tally.inFlight(event);
        break;
      case UNAVAILABLE:
        metrics.event(event.type(), "dedup_unavailable");
        tally.unavailable.incrementAndGet();
        break;
    }
    return outcome;
  }

  /** Runs the owned events and ends every claim whatever is thrown, then answers. */
  private CompletableFuture<WebhookResponse> runOwned(
      List<WebhookEvent> owned,
      List<DedupGate.Claim> owners,
      Answers.Tally tally,
      List<CompletableFuture<DedupGate.Outcome>> waiting,
      long start) {
    CompletableFuture<Integer> handled = gate.runOwned(owned, owners, dispatcher::dispatch);
    if (handled.isDone()) {
      return finish(handled.join(), owned.size(), tally, waiting, start);
    }
    return handled.thenCompose(n -> finish(n, owned.size(), tally, waiting, start));
  }

  private CompletableFuture<WebhookResponse> finish(
      int handled,
      int owned,
      Answers.Tally tally,
      List<CompletableFuture<DedupGate.Outcome>> waiting,
      long start) {
    tally.handled.addAndGet(handled);
    tally.failed.addAndGet(owned - handled);
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
