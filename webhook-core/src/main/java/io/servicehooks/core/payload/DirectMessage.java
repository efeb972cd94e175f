package io.servicehooks.core.payload;

import com.fasterxml.jackson.annotation.JacksonInject;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.OptBoolean;
import com.fasterxml.jackson.databind.JsonNode;
import io.servicehooks.core.WebhookEvent;

/**
 * {@code dm.received} / {@code dm.sent}: one direct message, from any of its shapes:
 *
 * <ul>
 *   <li>the activity envelope's {@code {direct_message_events:[{id, event_type, dm_conversation_id,
 *       sender_id, text, created_at}], users}} (its first event);
 *   <li>a legacy {@code direct_message_events} item {@code {id, created_timestamp,
 *       message_create:{sender_id, target:{recipient_id}, message_data:{text}}}}.
 * </ul>
 *
 * <p>{@code id}, {@code senderId} and {@code text} are required: a payload without one of them
 * fails with {@link MissingPayloadFieldException}. The others may be null, as said below.
 *
 * @param id the message's id
 * @param senderId who sent it
 * @param recipientId who received it: the legacy {@code target.recipient_id}, else the other member
 *     of a one-to-one conversation ({@code participant_ids}, or the {@code dm_conversation_id}
 *     {@code "<id>-<id>"}), else, for a {@code dm.received} read through {@link
 *     WebhookEvent#payloadAs}, the subscribed user; null for a message sent to a group
 * @param text its text
 * @param createdTimestamp when it was sent, in milliseconds since the epoch (the legacy {@code
 *     created_timestamp}, or the envelope's ISO-8601 {@code created_at} converted); null if the
 *     payload has neither
 * @param conversationId the envelope's {@code dm_conversation_id}; null in the legacy shape
 */
public record DirectMessage(
    String id,
    String senderId,
    String recipientId,
    String text,
    String createdTimestamp,
    String conversationId) {

  private static final String NAME = "DirectMessage";

  /** A message without a conversation id, as the legacy shape gives it. */
  public DirectMessage(
      String id, String senderId, String recipientId, String text, String createdTimestamp) {
    this(id, senderId, recipientId, text, createdTimestamp, null);
  }

  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  static DirectMessage of(
      JsonNode node,
      @JacksonInject(optional = OptBoolean.TRUE, useInput = OptBoolean.FALSE) WebhookEvent event) {
    JsonNode message = node;
    JsonNode events = Nodes.path(node, "direct_message_events");
    if (events != null && events.isArray() && !events.isEmpty()) {
      message = events.get(0);
    }
    JsonNode create = Nodes.path(message, "message_create");
    String sender =
        Nodes.required(
            Nodes.first(Nodes.text(create, "sender_id"), Nodes.text(message, "sender_id")),
            NAME,
            "senderId",
            "sender_id (nor message_create.sender_id)");
    String conversation = Nodes.text(message, "dm_conversation_id");
    String recipient =
        Nodes.first(
            Nodes.text(Nodes.path(create, "target"), "recipient_id"),
            Nodes.text(message, "recipient_id"),
            otherParticipant(message, conversation, sender));
    if (recipient == null
        && event != null
        && event.type().equals("dm.received")
        && event.forUserId().isPresent()
        && !event.forUserId().get().equals(sender)) {
      recipient = event.forUserId().get();
    }
    return new DirectMessage(
        Nodes.required(
            Nodes.text(message, "id", "dm_event_id"), NAME, "id", "id (nor dm_event_id)"),
        sender,
        recipient,
        Nodes.required(
            Nodes.first(
                Nodes.text(Nodes.path(create, "message_data"), "text"),
                Nodes.text(message, "text")),
            NAME,
            "text",
            "text (nor message_create.message_data.text)"),
        Nodes.first(
            Nodes.text(message, "created_timestamp"),
            Nodes.millisFromIso(Nodes.text(message, "created_at"))),
        conversation);
  }

  /** The one member besides the sender of a one-to-one conversation, or null. */
  private static String otherParticipant(JsonNode message, String conversation, String sender) {
    JsonNode participants = Nodes.path(message, "participant_ids");
    if (participants != null && participants.isArray()) {
      String other = null;
      int others = 0;
      for (JsonNode p : participants) {
        if (!p.asText().equals(sender)) {
          other = p.asText();
          others++;
        }
      }
      if (others == 1) {
        return other;
      }
    }
    if (conversation != null) {
      String[] ids = conversation.split("-", -1);
      if (ids.length == 2 && !ids[0].isEmpty() && !ids[1].isEmpty()) {
        if (ids[0].equals(sender)) {
          return ids[1];
        }
        if (ids[1].equals(sender)) {
          return ids[0];
        }
      }
    }
    return null;
  }
}
