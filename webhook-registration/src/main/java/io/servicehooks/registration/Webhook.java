package io.servicehooks.registration;

import java.time.Instant;
import java.util.Objects;

/**
 * A webhook registered with the platform: the consumer URL the platform delivers events to, and
 * whether its last challenge-response check (CRC) passed.
 *
 * @param id the platform's id of the webhook, a string of digits
 * @param url the consumer URL
 * @param valid whether the last CRC passed; an invalid webhook receives no events
 * @param createdAt when the webhook was registered, or {@code null} when the platform did not say
 */
public record Webhook(String id, String url, boolean valid, Instant createdAt) {

  /** Checks that the id and URL are present. */
  public Webhook {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(url, "url");
  }

  Webhook withValid(boolean newValid) {
    return new Webhook(id, url, newValid, createdAt);
  }
}
