package io.servicehooks.core;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One delivery's way through the consumer, from its bytes to its answer: the size limit, the
 * signature (skipped for a connection this application opened itself), the payload, then the
 * acknowledgement mode, and the observers told the answer. Listeners run inside the mode, through
 * the {@link Dispatcher}, on the thread {@link ListenerThreads} chooses.
 */
final class DeliveryPath {

  // Logs under WebhookConsumer's name, the one logger users' log configuration names for the
  // whole consumer; the class that does the work is an implementation detail.
  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);

  private final AtomicBoolean closed;
  private final int maxBodyBytes;
  private final SignatureVerifier verifier;
  private final PayloadParser parser;
  private final ListenerThreads threads;
  private final AcknowledgementMode acknowledgementMode;
  private final Answers answers;
  private final Metrics metrics;
  private final RefusalLog refusals;
  private final DeliveryObserver[] observers;
  private final Observations observations;

  DeliveryPath(
      AtomicBoolean closed,
      int maxBodyBytes,
      SignatureVerifier verifier,
      PayloadParser parser,
      ListenerThreads threads,
      AcknowledgementMode acknowledgementMode,
      Answers answers,
      Metrics metrics,
      RefusalLog refusals,
      List<DeliveryObserver> observers,
      Observations observations) {
    this.closed = closed;
    this.maxBodyBytes = maxBodyBytes;
    this.verifier = verifier;
    this.parser = parser;
    this.threads = threads;
    this.acknowledgementMode = acknowledgementMode;
    this.answers = answers;
    this.metrics = metrics;
    this.refusals = refusals;
    this.observers = observers.toArray(DeliveryObserver[]::new);
    this.observations = observations;
  }

  /**
   * A POST: size, signature, payload, then the acknowledgement mode claims, runs and answers.
   *
   * @param workers the adapter's executor for blocking work; null when the calling thread may block
   */
  CompletableFuture<WebhookResponse> post(byte[] body, String signature, Executor workers) {
    long start = System.nanoTime();
    CompletableFuture<WebhookResponse> notTaken = notTaken(body, start);
    if (notTaken != null) {
      return notTaken;
    }
    Observations.Delivery observed = observations.delivery("webhook");
    WebhookResponse refused = verifier.refusal(body, signature);
    if (refused != null) {
      metrics.delivery("invalid_signature", System.nanoTime() - start);
      observed.answered(refused);
      return CompletableFuture.completedFuture(refused);
    }
    return verified(body, start, workers, observed);
  }

  /** A delivery from a connection this application opened itself: no signature to check. */
  CompletableFuture<WebhookResponse> fromOwnConnection(byte[] body) {
    long start = System.nanoTime();
    CompletableFuture<WebhookResponse> notTaken = notTaken(body, start);
    return notTaken != null
        ? notTaken
        : verified(body, start, null, observations.delivery("stream"));
  }

  /** The answer for a delivery refused before anything is read (closing, too large), else null. */
  private CompletableFuture<WebhookResponse> notTaken(byte[] body, long start) {
    if (closed.get()) {
      return answers.done(
          Answers.reject(503, "rejected", "shutting_down", "consumer is shutting down"), start);
    }
    if (body.length > maxBodyBytes) {
      return CompletableFuture.completedFuture(payloadTooLarge());
    }
    return null;
  }

  /** A delivery whose origin is established: payload, then the acknowledgement mode. */
  private CompletableFuture<WebhookResponse> verified(
      byte[] body, long start, Executor workers, Observations.Delivery observed) {
    List<WebhookEvent> events;
    try {
      events = parser.parse(body);
    } catch (PayloadParser.Malformed e) {
      log.warn("Refused a verified delivery: {}", e.getMessage());
      metrics.delivery("malformed", System.nanoTime() - start);
      WebhookResponse malformed = WebhookResponse.error(400, "malformed_payload", e.getMessage());
      observed.answered(malformed);
      return CompletableFuture.completedFuture(malformed);
    }
    if (observed != Observations.Delivery.NONE) {
      observed.events(events);
      Object parent = observed.parent();
      for (WebhookEvent event : events) {
        event.observationParent = parent;
      }
    }
    // ListenerThreads decides where the store is asked and the listeners run.
    CompletableFuture<WebhookResponse> answer =
        threads.acknowledge(acknowledgementMode, events, start, workers);
    if (observed != Observations.Delivery.NONE) {
      answer =
          answer.thenApply(
              response -> {
                observed.answered(response);
                return response;
              });
    }
    if (observers.length == 0) {
      return answer;
    }
    if (answer.isDone()) {
      observe(answer.join());
      return answer;
    }
    return answer.thenApply(
        response -> {
          observe(response);
          return response;
        });
  }

  private void observe(WebhookResponse response) {
    for (DeliveryObserver observer : observers) {
      try {
        observer.answered(response.status());
      } catch (RuntimeException e) {
        log.warn("A delivery observer failed; the answer stands", e);
      }
    }
  }

  WebhookResponse payloadTooLarge() {
    refusals.warn(
        RefusalLog.Reason.TOO_LARGE,
        "Refused a delivery: body larger than " + maxBodyBytes + " bytes");
    return answers.payloadTooLarge(maxBodyBytes);
  }

  WebhookResponse unreadableBody() {
    refusals.warn(
        RefusalLog.Reason.UNREADABLE, "Refused a delivery: its body could not be read to the end");
    return answers.unreadableBody();
  }

  @Override
  public String toString() {
    return "DeliveryPath[maxBodyBytes=" + maxBodyBytes + "]";
  }
}
