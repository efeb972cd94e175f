package io.servicehooks.testkit;

import java.time.Instant;
import java.util.Objects;

/**
 * One event in a webhook's delivery history ({@link PlatformSimulator#deliveryHistory(String)}):
 * what the simulated platform produced for the webhook and keeps for replay during the replay reach
 * of 24 hours, whether or not its delivery succeeded.
 *
 * @param webhookId the webhook the event was produced for
 * @param producedAt when it was produced, on the simulator's clock; a replay window selects on it
 * @param body the exact body, decoded as UTF-8
 */
public record HistoryEntry(String webhookId, Instant producedAt, String body) {

  /** Checks that every field is present. */
  public HistoryEntry {
    Objects.requireNonNull(webhookId, "webhookId");
    Objects.requireNonNull(producedAt, "producedAt");
    Objects.requireNonNull(body, "body");
  }
}
