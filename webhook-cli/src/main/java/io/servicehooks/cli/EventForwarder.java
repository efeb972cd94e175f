package io.servicehooks.cli;

import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookSigner;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * POSTs one event envelope to a local consumer, signed with the consumer secret as the platform
 * signs, and reports the answer's status or why none came; never throws.
 */
final class EventForwarder {

  /** The consumer's answer to one forwarded event: its status, or why none came. */
  record Forwarded(int status, String failure, long millis) {}

  private final HttpClient http;
  private final URI forwardTo;
  private final String consumerSecret;

  EventForwarder(HttpClient http, URI forwardTo, String consumerSecret) {
    this.http = http;
    this.forwardTo = forwardTo;
    this.consumerSecret = consumerSecret;
  }

  Forwarded forward(byte[] envelope) {
    long start = System.nanoTime();
    try {
      HttpResponse<Void> response =
          http.send(
              HttpRequest.newBuilder(forwardTo)
                  .timeout(Duration.ofSeconds(9))
                  .header("Content-Type", "application/json")
                  .header(
                      WebhookRequest.SIGNATURE_HEADER, WebhookSigner.sign(consumerSecret, envelope))
                  .header("User-Agent", "servicehooks-cli")
                  .POST(HttpRequest.BodyPublishers.ofByteArray(envelope))
                  .build(),
              HttpResponse.BodyHandlers.discarding());
      return new Forwarded(response.statusCode(), null, elapsedMillis(start));
    } catch (IOException e) {
      return new Forwarded(
          0, "failed (" + e.getClass().getSimpleName() + ")", elapsedMillis(start));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Forwarded(0, "interrupted", elapsedMillis(start));
    }
  }

  private static long elapsedMillis(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }
}
