package io.servicehooks.testkit;

import java.time.Instant;
import java.util.Objects;

/**
 * A direct message the simulated platform holds: sent through {@code POST
 * /2/dm_conversations/with/{participant_id}/messages} or by {@link PlatformSimulator#sendDm}. What
 * a test reads back to see what a bot answered.
 *
 * @param id the message's id ({@code dm_event_id})
 * @param conversationId the one-to-one conversation, {@code "<lower id>-<higher id>"}
 * @param senderId who sent it
 * @param recipientId who received it
 * @param text its text
 * @param createdAt when, on the simulator's clock
 */
public record SimulatedDirectMessage(
    String id,
    String conversationId,
    String senderId,
    String recipientId,
    String text,
    Instant createdAt) {

  /** Checks that no component is null. */
  public SimulatedDirectMessage {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(conversationId, "conversationId");
    Objects.requireNonNull(senderId, "senderId");
    Objects.requireNonNull(recipientId, "recipientId");
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(createdAt, "createdAt");
  }
}
