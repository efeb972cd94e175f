package io.servicehooks.core;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last POST step: a delivery's answer and the {@code webhook.deliveries} outcome it counts as.
 * Recording an answer also records the delivery's latency. The answers nearly every delivery gets
 * are built once and shared.
 */
final class Answers {

  // Logs under WebhookConsumer's name, the one logger users' log configuration names for the
  // whole consumer; the class that does the work is an implementation detail.
  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);

  /** A response and the {@code webhook.deliveries} outcome it counts as. */
  record Answer(String outcome, WebhookResponse response) {}

  /** Seconds in the {@code Retry-After} of a 503 that asks for a retry. */
  static final String RETRY_AFTER_SECONDS = "1";

  private static final Answer ONE_ACCEPTED = accepted(1, 0);
  private static final Answer ONE_DUPLICATE = accepted(0, 1);
  private static final Answer LISTENER_FAILED =
      new Answer(
          "failed",
          WebhookResponse.error(
              500, "listener_failed", "an event was not handled; a redelivery will run it again"));

  private final Metrics metrics;

  Answers(Metrics metrics) {
    this.metrics = metrics;
  }

  /** Counts the answer and the time since {@code start} ({@link System#nanoTime()}). */
  WebhookResponse record(Answer answer, long start) {
    metrics.delivery(answer.outcome(), System.nanoTime() - start);
    return answer.response();
  }

  CompletableFuture<WebhookResponse> done(Answer answer, long start) {
    return CompletableFuture.completedFuture(record(answer, start));
  }

  /** A failure outside the listeners (the dedup store, a bug): answered 500, never thrown. */
  WebhookResponse internalError(Throwable failure, long start) {
    log.error("Delivery failed outside its listeners", failure);
    return record(
        new Answer(
            "failed",
            WebhookResponse.error(500, "internal_error", "the delivery could not be processed")),
        start);
  }

  /** A body over the limit; never read, so its latency is not measured. */
  WebhookResponse payloadTooLarge(int maxBodyBytes) {
    metrics.delivery("too_large", 0);
    return WebhookResponse.error(
        413, "payload_too_large", "body exceeds " + maxBodyBytes + " bytes");
  }

  WebhookResponse unreadableBody() {
    metrics.delivery("unreadable", 0);
    return WebhookResponse.error(400, "unreadable_body", "the body could not be read to its end");
  }

  static Answer reject(int status, String outcome, String code, String message) {
    log.warn("Refused a delivery: {}", message);
    return new Answer(outcome, WebhookResponse.error(status, code, message));
  }

  /**
   * 503 with {@code Retry-After}: nothing of the delivery was lost, its claims are released or
   * still running, and a retry will be answered.
   */
  static Answer retryLater(String code, String message) {
    log.warn("Refused a delivery: {}", message);
    return retryAnswer(code, message);
  }

  private static Answer retryAnswer(String code, String message) {
    return new Answer(
        "rejected",
        new WebhookResponse(
            503,
            Map.of("Content-Type", "application/json", "Retry-After", RETRY_AFTER_SECONDS),
            WebhookResponse.error(503, code, message).body()));
  }

  /**
   * 503 {@code dedup_unavailable} with {@code Retry-After}: the dedup store could not be asked, so
   * no listener ran and the delivery's claims were released.
   */
  static Answer dedupUnavailable() {
    // The outage's one WARN says it (StoreOutage); a line per refused delivery flooded the log.
    log.debug("Refused a delivery: the dedup store could not be asked");
    return retryAnswer(
        "dedup_unavailable", "the dedup store could not be asked; nothing was run, retry later");
  }

  /**
   * The answer to a delivery of one event that this process owned and ran: 200 when its listeners
   * succeeded, else 500 {@code listener_failed}, as {@link Tally#answer()} gives for the same.
   */
  static Answer ranOne(boolean succeeded) {
    return succeeded ? ONE_ACCEPTED : LISTENER_FAILED;
  }

  /** Counts one delivery's events by outcome; the counters are touched from several threads. */
  static final class Tally {
    final AtomicInteger handled = new AtomicInteger();
    final AtomicInteger duplicates = new AtomicInteger();
    final AtomicInteger failed = new AtomicInteger();
    final AtomicInteger inFlight = new AtomicInteger();
    final AtomicInteger unavailable = new AtomicInteger();
    private volatile WebhookEvent firstInFlight; // named in the WARN line

    /** An event of the delivery still runs elsewhere (here or on another instance). */
    void inFlight(WebhookEvent event) {
      if (firstInFlight == null) {
        firstInFlight = event;
      }
      inFlight.incrementAndGet();
    }

    Answer answer() {
      if (failed.get() > 0) {
        return LISTENER_FAILED;
      }
      if (unavailable.get() > 0) {
        return dedupUnavailable();
      }
      if (inFlight.get() > 0) {
        WebhookEvent first = firstInFlight;
        log.warn(
            "Refused a delivery: {} event {}{} is still being handled (a copy runs here or on"
                + " another instance); answered 503 in_flight, the platform's retry will find it"
                + " done",
            first == null ? "an" : LogSafe.escape(first.type()),
            first == null ? "" : LogSafe.escape(first.id()),
            inFlight.get() > 1 ? " and " + (inFlight.get() - 1) + " more" : "");
        return retryAnswer(
            "in_flight", "an event of this delivery is still being handled, retry later");
      }
      int events = handled.get();
      int copies = duplicates.get();
      if (events == 1 && copies == 0) {
        return ONE_ACCEPTED;
      }
      if (events == 0 && copies == 1) {
        return ONE_DUPLICATE;
      }
      return accepted(events, copies);
    }
  }

  private static Answer accepted(int events, int copies) {
    String status = events == 0 && copies > 0 ? "duplicate" : "accepted";
    return new Answer(
        status,
        WebhookResponse.json(
            200,
            "{\"status\":\""
                + status
                + "\",\"events\":"
                + events
                + ",\"duplicates\":"
                + copies
                + "}"));
  }

  @Override
  public String toString() {
    return "Answers";
  }
}
