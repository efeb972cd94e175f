package io.servicehooks.core;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers a delivery once its events are committed to the {@link EventInbox}: 200 when every event
 * is stored or was stored before, 503 {@code inbox_unavailable} with {@code Retry-After} when the
 * inbox failed or did not answer within the time-out. The insert is the dedup, so the {@link
 * DedupGate} is never asked. Listeners run later, on the inbox's workers, through {@link
 * #processor()}.
 */
final class DurableAcknowledgement implements AcknowledgementMode {

  // Logs under the consumer's name, as the other modes do.
  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);

  private final EventInbox inbox;
  private final Dispatcher dispatcher;
  private final Metrics metrics;
  private final Answers answers;
  private final ObjectMapper mapper;
  private final long timeoutNanos;
  private final Observations observations;

  DurableAcknowledgement(
      EventInbox inbox,
      Dispatcher dispatcher,
      Metrics metrics,
      Answers answers,
      ObjectMapper mapper,
      Duration timeout,
      Observations observations) {
    this.inbox = inbox;
    this.dispatcher = dispatcher;
    this.metrics = metrics;
    this.answers = answers;
    this.mapper = mapper;
    this.timeoutNanos = timeout.toNanos();
    this.observations = observations;
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
      List<WebhookEvent> events, long start, Executor ignored, Executor answerOnWriter) {
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
      return CompletableFuture.completedFuture(unavailable(failure, start));
    }
    return stored
        .toCompletableFuture()
        // A dependent future: the time-out must not complete the inbox's own.
        .thenApply(outcomes -> outcomes)
        .orTimeout(timeoutNanos, TimeUnit.NANOSECONDS)
        .handle(
            (outcomes, failure) -> {
              observed.stopped(outcomes, failure);
              if (failure != null) {
                return unavailable(failure, start);
              }
              if (outcomes == null || outcomes.size() != events.size()) {
                return answers.internalError(
                    new IllegalStateException(
                        "inbox answered "
                            + (outcomes == null ? "nothing" : outcomes.size() + " outcomes")
                            + " for "
                            + events.size()
                            + " events"),
                    start);
              }
              Answers.Tally tally = new Answers.Tally();
              for (int i = 0; i < events.size(); i++) {
                if (outcomes.get(i) == InboxOutcome.STORED) {
                  metrics.event(events.get(i).type(), "stored");
                  tally.handled.incrementAndGet();
                } else {
                  metrics.event(events.get(i).type(), "duplicate");
                  tally.duplicates.incrementAndGet();
                }
              }
              return answers.record(tally.answer(), start);
            });
  }

  private WebhookResponse unavailable(Throwable failure, long start) {
    Throwable cause =
        failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
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
