package io.servicehooks.core;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers a delivery once its events are committed to the {@link EventInbox}: 200 when every event
 * is stored or was stored before, 503 {@code inbox_unavailable} with {@code Retry-After} when the
 * inbox failed or did not answer within the time-out. An inbox that {@linkplain
 * EventInbox#deduplicates() deduplicates} is the dedup itself, and the {@link DedupGate} is never
 * asked. For one that does not, each event is first claimed at the gate: only the owned ones are
 * stored, their claims are marked done once the inbox has them and released when it failed; a copy
 * already done is answered 200 {@code duplicate}, one being stored right now 503 {@code in_flight}.
 * Listeners run later, on the inbox's threads, through {@link #processor()}.
 */
final class DurableAcknowledgement implements AcknowledgementMode {

  // Logs under the consumer's name, as the other modes do.
  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);

  /**
   * By when, counted from the delivery's arrival, a store must have answered: the platform gives a
   * delivery 10 s, and the answer still has to travel. A copy that waited for another delivery's
   * claim (up to the in-flight wait) stores with what is left, not with a fresh time-out.
   */
  static final long STORE_DEADLINE_NANOS = TimeUnit.MILLISECONDS.toNanos(9_000);

  /** Less than this left of the deadline: the store is not started, and the answer is 503. */
  static final long SHORTEST_STORE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

  private final EventInbox inbox;
  private final Dispatcher dispatcher;
  private final Metrics metrics;
  private final Answers answers;
  private final ObjectMapper mapper;
  private final long timeoutNanos;
  private final Observations observations;
  private final DedupGate gate;
  private final ListenerThreads threads;
  private final LongSupplier nanoTime;

  /**
   * @param gate where each event is claimed before it is stored, when the inbox does not
   *     deduplicate; null when it does
   */
  DurableAcknowledgement(
      EventInbox inbox,
      DedupGate gate,
      ListenerThreads threads,
      Dispatcher dispatcher,
      Metrics metrics,
      Answers answers,
      ObjectMapper mapper,
      Duration timeout,
      Observations observations,
      LongSupplier nanoTime) {
    this.inbox = inbox;
    this.gate = gate;
    this.threads = threads;
    this.dispatcher = dispatcher;
    this.metrics = metrics;
    this.answers = answers;
    this.mapper = mapper;
    this.timeoutNanos = timeout.toNanos();
    this.observations = observations;
    this.nanoTime = nanoTime;
  }

  /**
   * What the inbox's workers call: rebuild the event, run its listeners, throw their failure;
   * observed as {@code servicehooks.inbox.process}, continuing the trace of the row's traceparent.
   */
  InboxProcessor processor() {
    return stored -> {
      Observations.InboxProcess observed = observations.inboxProcess(stored);
      Throwable failure;
      try {
        WebhookEvent event = WebhookEvent.restore(stored, mapper);
        event.observationParent = observed.parent();
        failure = dispatcher.run(event);
      } catch (RuntimeException | Error unexpected) {
        observed.close(unexpected);
        throw unexpected;
      }
      observed.close(failure);
      if (failure == null) {
        return;
      }
      if (failure instanceof Exception e) {
        throw e;
      }
      throw new InboxProcessor.ListenerError((Error) failure);
    };
  }

  @Override
  public CompletableFuture<WebhookResponse> acknowledge(
      List<WebhookEvent> events, long start, ListenerThreads.Caller caller) {
    // The store's deadline counts from the delivery's arrival (start, on System.nanoTime), read on
    // the consumer's clock: the same clock unless a test moves its own. Both what came before (a
    // wait for a worker) and what comes after (a claim that waits for another instance's) count.
    long arrived = nanoTime.getAsLong() - (System.nanoTime() - start);
    if (gate == null) {
      return storeAll(events, start, arrived);
    }
    CompletableFuture<List<DedupGate.Claim>> claimed = gate.claimAll(events);
    if (claimed.isDone()) {
      return storeOwned(events, claimed.join(), start, arrived);
    }
    return threads.resumeInbox(
        caller, claimed, claims -> storeOwned(events, claims, start, arrived), start);
  }

  /** The inbox deduplicates: every event is stored, and the inbox says which were copies. */
  private CompletableFuture<WebhookResponse> storeAll(
      List<WebhookEvent> events, long start, long arrived) {
    return store(events, arrived)
        .handle(
            (outcomes, failure) -> {
              if (failure != null) {
                return unavailable(failure, start);
              }
              Answers.Tally tally = new Answers.Tally();
              count(events, outcomes, tally);
              return answers.record(tally.answer(), start);
            });
  }

  /**
   * The inbox does not deduplicate: only the events this delivery owns at the gate are stored.
   * Their claims are marked done once the inbox has them (the answer waits for the store's reply,
   * bounded by the dedup time-out), or released when it failed, so the platform's retry stores
   * them. A copy of an event another delivery is storing right now is answered 503 {@code
   * in_flight}: whether that store works is not known yet.
   */
  private CompletableFuture<WebhookResponse> storeOwned(
      List<WebhookEvent> events, List<DedupGate.Claim> claims, long start, long arrived) {
    Answers.Tally tally = new Answers.Tally();
    List<WebhookEvent> owned = new ArrayList<>(events.size());
    List<DedupGate.Claim> owners = new ArrayList<>(events.size());
    boolean unavailable = false;
    for (int i = 0; i < events.size(); i++) {
      WebhookEvent event = events.get(i);
      DedupGate.Claim claim = claims.get(i);
      switch (claim.kind()) {
        case OWNER:
          owned.add(event);
          owners.add(claim);
          break;
        case DONE:
          metrics.event(event.type(), "duplicate");
          tally.duplicates.incrementAndGet();
          break;
        case IN_FLIGHT:
        case STILL_RUNNING:
          metrics.event(event.type(), "in_flight");
          tally.inFlight(event);
          break;
        case STORE_FAILED:
          metrics.event(event.type(), "dedup_unavailable");
          unavailable = true;
          break;
      }
    }
    if (unavailable) {
      // Fail closed: nothing of this delivery is stored, and what it claimed is given back.
      gate.releaseAll(owners);
      return answers.done(Answers.dedupUnavailable(), start);
    }
    if (owned.isEmpty()) {
      return answers.done(tally.answer(), start);
    }
    CompletableFuture<List<InboxOutcome>> stored;
    try {
      stored = store(owned, arrived);
    } catch (RuntimeException | Error unexpected) {
      gate.releaseAll(owners);
      throw unexpected;
    }
    return stored
        .thenCompose(
            outcomes -> {
              // Done only now that the inbox has every owned event; each copy that comes later is a
              // duplicate.
              count(owned, outcomes, tally);
              CompletableFuture<?>[] ending = new CompletableFuture<?>[owners.size()];
              for (int i = 0; i < ending.length; i++) {
                ending[i] = gate.succeeded(owners.get(i));
              }
              return CompletableFuture.allOf(ending)
                  .handle((ignored, failure) -> answers.record(tally.answer(), start));
            })
        .exceptionally(
            failure -> {
              gate.releaseAll(owners);
              return unavailable(failure, start);
            });
  }

  /**
   * Hands {@code events} to the inbox. Completes with one outcome per event once the inbox has
   * them, or exceptionally when it failed, threw, answered the wrong number of outcomes or did not
   * answer within the time-out, or what is left of {@link #STORE_DEADLINE_NANOS} since {@code
   * arrived} when that is less; the observation is stopped either way.
   */
  private CompletableFuture<List<InboxOutcome>> store(List<WebhookEvent> events, long arrived) {
    long waited = nanoTime.getAsLong() - arrived;
    long left = STORE_DEADLINE_NANOS - waited;
    if (left < SHORTEST_STORE_NANOS) {
      return CompletableFuture.failedFuture(
          new TimeoutException(
              "the delivery waited "
                  + TimeUnit.NANOSECONDS.toMillis(waited)
                  + " ms before its events could be stored: too close to the platform's 10 s"));
    }
    long timeout = Math.min(timeoutNanos, left);
    // Started before the rows are made: a propagating tracing handler writes the traceparent the
    // rows keep when the observation starts.
    Observations.InboxStore observed =
        observations.inboxStore(events.get(0).observationParent, events);
    String traceparent = observed.traceparent();
    List<StoredEvent> rows = new ArrayList<>(events.size());
    for (WebhookEvent event : events) {
      StoredEvent row = event.toStored();
      rows.add(traceparent == null ? row : row.withTraceparent(traceparent));
    }
    CompletionStage<List<InboxOutcome>> stored;
    try {
      stored = inbox.store(rows);
    } catch (RuntimeException failure) {
      observed.stopped(null, failure);
      return CompletableFuture.failedFuture(failure);
    }
    return stored
        .toCompletableFuture()
        // A dependent future: the time-out must not complete the inbox's own.
        .thenApply(outcomes -> outcomes)
        .orTimeout(timeout, TimeUnit.NANOSECONDS)
        .handle(
            (outcomes, failure) -> {
              observed.stopped(outcomes, failure);
              if (failure != null) {
                throw failure instanceof CompletionException c
                    ? c
                    : new CompletionException(failure);
              }
              if (outcomes == null || outcomes.size() != events.size()) {
                throw new WrongOutcomes(
                    "inbox answered "
                        + (outcomes == null ? "nothing" : outcomes.size() + " outcomes")
                        + " for "
                        + events.size()
                        + " events");
              }
              return outcomes;
            });
  }

  private void count(List<WebhookEvent> events, List<InboxOutcome> outcomes, Answers.Tally tally) {
    for (int i = 0; i < events.size(); i++) {
      if (outcomes.get(i) == InboxOutcome.STORED) {
        metrics.event(events.get(i).type(), "stored");
        tally.handled.incrementAndGet();
      } else {
        metrics.event(events.get(i).type(), "duplicate");
        tally.duplicates.incrementAndGet();
      }
    }
  }

  /** An inbox that broke its contract: a bug, answered 500 rather than retried. */
  private static final class WrongOutcomes extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    WrongOutcomes(String message) {
      super(message);
    }
  }

  private WebhookResponse unavailable(Throwable failure, long start) {
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    if (cause instanceof WrongOutcomes wrong) {
      return answers.internalError(wrong, start);
    }
    // Not Answers.retryLater, which logs each refusal: in an outage every delivery is refused, and
    // the inbox already logs the outage once, with its cause.
    log.debug("Answering 503 inbox_unavailable", cause);
    return answers.record(
        cause instanceof java.util.concurrent.TimeoutException ? NOT_IN_TIME : NOT_STORED, start);
  }

  private static final Answers.Answer NOT_STORED =
      unavailable("the inbox could not store the delivery, retry later");
  private static final Answers.Answer NOT_IN_TIME =
      unavailable("the inbox did not store the delivery in time, retry later");

  private static Answers.Answer unavailable(String message) {
    return new Answers.Answer(
        "rejected",
        new WebhookResponse(
            503,
            java.util.Map.of(
                "Content-Type", "application/json", "Retry-After", Answers.RETRY_AFTER_SECONDS),
            WebhookResponse.error(503, "inbox_unavailable", message).body()));
  }

  @Override
  public void close() {
    inbox.close();
  }

  @Override
  public String toString() {
    return "DurableAcknowledgement[" + inbox + "]";
  }
}
