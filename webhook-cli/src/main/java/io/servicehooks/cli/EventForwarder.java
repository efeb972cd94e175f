package io.servicehooks.cli;

import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookSigner;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * POSTs one event envelope to a local consumer, signed with the consumer secret as the platform
 * signs, and reports the answer's status or why none came; never throws. A refusal (any status but
 * 2xx) or a failure (no complete answer within {@link #ANSWER_BUDGET}) is retried after 1 s and
 * then 2 s, as the platform retries a webhook delivery, so at most {@link #ATTEMPTS} attempts; the
 * outcome says how many it took.
 */
final class EventForwarder {

  /** How many times one event is POSTed at most. */
  static final int ATTEMPTS = 3;

  /** How long one attempt's whole answer may take; the platform gives a consumer 10 s. */
  static final Duration ANSWER_BUDGET = Duration.ofSeconds(9);

  private static final List<Duration> RETRY_WAITS =
      List.of(Duration.ofSeconds(1), Duration.ofSeconds(2));
  private static final int MAX_ANSWER_BYTES = 64 * 1024;

  /**
   * The consumer's last answer to one forwarded event: its status (0 when none came, then {@code
   * failure} says why), the time all attempts took, and how many there were.
   */
  record Forwarded(int status, String failure, long millis, int attempts) {
    boolean delivered() {
      return status >= 200 && status < 300;
    }

    /** {@code HTTP 200}, or why no answer came. */
    String outcome() {
      return status > 0 ? "HTTP " + status : failure;
    }
  }

  private final HttpClient http;
  private final URI forwardTo;
  private final String consumerSecret;

  EventForwarder(HttpClient http, URI forwardTo, String consumerSecret) {
    this.http = http;
    this.forwardTo = forwardTo;
    this.consumerSecret = consumerSecret;
  }

  URI forwardTo() {
    return forwardTo;
  }

  Forwarded forward(byte[] envelope) {
    long start = System.nanoTime();
    int status = 0;
    String failure = null;
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        status =
            BoundedAnswer.exchange(http, request(envelope), ANSWER_BUDGET, MAX_ANSWER_BYTES)
                .status();
        failure = null;
      } catch (IOException e) {
        status = 0;
        failure = "failed (" + e.getClass().getSimpleName() + ")";
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new Forwarded(0, "interrupted", elapsedMillis(start), attempt);
      }
      if ((status >= 200 && status < 300) || attempt == ATTEMPTS) {
        return new Forwarded(status, failure, elapsedMillis(start), attempt);
      }
      try {
        Thread.sleep(RETRY_WAITS.get(attempt - 1).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new Forwarded(status, failure, elapsedMillis(start), attempt);
      }
    }
    throw new AssertionError("unreachable: the last attempt returns");
  }

  private HttpRequest request(byte[] envelope) {
    return HttpRequest.newBuilder(forwardTo)
        .timeout(ANSWER_BUDGET)
        .header("Content-Type", "application/json")
        .header(WebhookRequest.SIGNATURE_HEADER, WebhookSigner.sign(consumerSecret, envelope))
        .header("User-Agent", "servicehooks-cli")
        .POST(HttpRequest.BodyPublishers.ofByteArray(envelope))
        .build();
  }

  private static long elapsedMillis(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }
}
