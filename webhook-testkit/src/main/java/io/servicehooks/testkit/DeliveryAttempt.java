package io.servicehooks.testkit;

import java.time.Instant;
import java.util.Objects;

/**
 * One HTTP POST the simulator made to a webhook, as recorded for test assertions ({@link
 * PlatformSimulator#attempts()}).
 *
 * @param webhookId the webhook the delivery went to
 * @param deliveryId identifies the delivery; its retries share it, duplicates and replays get their
 *     own
 * @param attempt 1 for the first try, 2.. for retries
 * @param body the exact body sent, decoded as UTF-8
 * @param status the HTTP status answered, or 0 when no answer arrived (see {@code failure})
 * @param failure why no answer arrived (time-out, connection refused, ...), or {@code null}
 * @param time when the attempt started, on the simulator's clock
 */
public record DeliveryAttempt(
    String webhookId,
    long deliveryId,
    int attempt,
    String body,
    int status,
    String failure,
    Instant time) {

  /** Checks that the fields every attempt has are present. */
  public DeliveryAttempt {
    Objects.requireNonNull(webhookId, "webhookId");
    Objects.requireNonNull(body, "body");
    Objects.requireNonNull(time, "time");
  }

  /** Whether the consumer answered with a 2xx status. */
  public boolean succeeded() {
    return status >= 200 && status < 300;
  }
}
