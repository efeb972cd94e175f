package io.servicehooks.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Predicate;

/**
 * Answers a delivery once its listeners ran: claims every event, runs the owned ones where {@link
 * ListenerThreads} says (a worker is used only when some owned event has listeners), and waits for
 * originals still running elsewhere in this process, whose outcome their copies share. A delivery
 * with an event the dedup store could not answer runs nothing: its claims are released and it is
 * answered 503.
 */
final class SynchronousAcknowledgement implements AcknowledgementMode {

  private final DedupGate gate;
  private final Dispatcher dispatcher;
  private final Metrics metrics;
  private final Answers answers;
  private final ListenerThreads threads;
  private final Predicate<WebhookEvent> dispatch;

  SynchronousAcknowledgement(
      DedupGate gate,
      Dispatcher dispatcher,
      Metrics metrics,
      Answers answers,
      ListenerThreads threads) {
    this.gate = gate;
    this.dispatcher = dispatcher;
    this.metrics = metrics;
    this.answers = answers;
    this.threads = threads;
    this.dispatch = dispatcher::dispatch;
  }

  @Override
  public CompletableFuture<WebhookResponse> acknowledge(
      List<WebhookEvent> events, long start, ListenerThreads.Caller caller) {
    // A delivery none of whose events has a listener runs nothing: each event is claimed and
    // marked done at the store in one call, and whatever is left (waiting for originals, the
    // answer) only asks the store and never blocks.
    boolean runsNothing = !anyListeners(events);
    CompletableFuture<List<DedupGate.Claim>> claimed;
    if (events.size() == 1) {
      DedupGate.ClaimAnswer one = gate.claim(events.get(0), runsNothing);
      if (one instanceof DedupGate.Claim claim) {
        return answer(events, List.of(claim), start, threads.listeners(caller));
      }
      claimed = ((DedupGate.PendingClaim) one).future().thenApply(List::of);
    } else {
      claimed = gate.claimAll(events, runsNothing);
      if (claimed.isDone()) {
        return answer(events, claimed.join(), start, threads.listeners(caller));
      }
    }
    if (runsNothing) {
      // Goes on on the thread that brought the store's answer instead of a hop to a worker and
      // back (benchmarks/RESULTS.md, "Store paths").
      return threads.resumeNonBlocking(
          claimed, claims -> answer(events, claims, start, null), start);
    }
    // Wherever the rest goes on, the listeners run on that thread.
    return threads.resumeListeners(
        caller, claimed, claims -> answer(events, claims, start, null), start);
  }

  private boolean anyListeners(List<WebhookEvent> events) {
    for (WebhookEvent event : events) {
      if (dispatcher.hasListeners(event.type())) {
        return true;
      }
    }
    return false;
  }

  private CompletableFuture<WebhookResponse> answer(
      List<WebhookEvent> events, List<DedupGate.Claim> claims, long start, Executor executor) {
    if (executor == null && claims.size() == 1 && claims.get(0).kind() == DedupGate.Kind.OWNER) {
      return runOne(events.get(0), claims.get(0), start);
    }
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
    return threads.handOff(
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

  /**
   * A delivery of one event this process owns, its listeners to run on this thread: what {@link
   * #answer} and {@link #runOwned} do for it, without a tally or lists. The activity stream's every
   * line takes this way.
   */
  private CompletableFuture<WebhookResponse> runOne(
      WebhookEvent event, DedupGate.Claim claim, long start) {
    CompletableFuture<Boolean> ran = gate.runOwned(event, claim, dispatch);
    if (ran.isDone()) {
      return answers.done(Answers.ranOne(ran.join()), start);
    }
    return ran.thenApply(succeeded -> answers.record(Answers.ranOne(succeeded), start));
  }

  /** Runs the owned events and ends every claim whatever is thrown, then answers. */
  private CompletableFuture<WebhookResponse> runOwned(
      List<WebhookEvent> owned,
      List<DedupGate.Claim> owners,
      Answers.Tally tally,
      List<CompletableFuture<DedupGate.Outcome>> waiting,
      long start) {
    CompletableFuture<Integer> handled = gate.runOwned(owned, owners, dispatch);
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
