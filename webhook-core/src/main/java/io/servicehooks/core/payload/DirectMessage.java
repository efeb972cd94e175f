package io.servicehooks.core.payload;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code dm.received} / {@code dm.sent}: the message of an envelope's {@code direct_message_events}
 * (its first) or of a legacy {@code direct_message_events} item.
 *
 * @param id the message's id
 * @param senderId who sent it
 * @param recipientId who received it
 * @param text its text
 * @param createdTimestamp milliseconds since the epoch, as the platform wrote it
 */
public record DirectMessage(
    String id, String senderId, String recipientId, String text, String createdTimestamp) {

  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  static DirectMessage of(JsonNode node) {
    JsonNode message = node;
    JsonNode events = Nodes.path(node, "direct_message_events");
    if (events != null && events.isArray() && !events.isEmpty()) {
      message = events.get(0);
    }
    JsonNode create = Nodes.path(message, "message_create");
    return new DirectMessage(
        Nodes.text(message, "id"),
        Nodes.text(create, "sender_id"),
        Nodes.text(Nodes.path(create, "target"), "recipient_id"),
        Nodes.text(Nodes.path(create, "message_data"), "text"),
        Nodes.text(message, "created_timestamp"));
  }
}
