package io.servicehooks.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /2/dm_conversations/with/{participant_id}/messages}: sends a one-to-one direct
 * message in user context, refused with code 93 while the app lacks the direct-message permission.
 * It keeps the messages and hands each to the {@link ActivityRouter} as {@code dm.received} for the
 * recipient and {@code dm.sent} for the sender.
 */
final class DirectMessagesResource {

  static final int CODE_NOT_PERMITTED = 93;

  private static final Logger log = LoggerFactory.getLogger(DirectMessagesResource.class);
  private static final Pattern ID = Pattern.compile("[0-9]{1,19}");

  private final SimClock clock;
  private final Supplier<String> ids;
  private final UserDirectory users;
  private final ActivityRouter router;
  private volatile boolean permitted = true;

  private final Object lock = new Object();
  // Guarded by lock; notified when a message is added.
  private final List<SimulatedDirectMessage> messages = new ArrayList<>();

  DirectMessagesResource(
      SimClock clock, Supplier<String> ids, UserDirectory users, ActivityRouter router) {
    this.clock = clock;
    this.ids = ids;
    this.users = users;
    this.router = router;
  }

  void permitted(boolean permitted) {
    this.permitted = permitted;
  }

  /** Routes {@code /2/dm_conversations/with/{participant_id}/messages}. */
  SimResponse handle(ApiRequest request, String[] parts, String userId) {
    if (!request.method().equals("POST")) {
      return Api.methodNotAllowed();
    }
    return send(userId, parts[3], Json.parseOrNull(request.body()));
  }

  /** Sends a message as {@code userId} (null: the app-only token). */
  SimResponse send(String userId, String participantId, JsonNode body) {
    if (userId == null) {
      return SimResponse.problem(
          403,
          "Unsupported Authentication",
          "Authenticating with OAuth 2.0 Application-Only is forbidden for this endpoint: sending a"
              + " direct message acts for a user. Supported authentication types are [OAuth 1.0a"
              + " User Context, OAuth 2.0 User Context].",
          "unsupported-authentication");
    }
    if (!permitted) {
      ObjectNode refusal = Json.object();
      refusal
          .putArray("errors")
          .addObject()
          .put("code", CODE_NOT_PERMITTED)
          .put(
              "message",
              "This application is not allowed to access or delete your direct messages.");
      refusal.put("title", "Forbidden");
      refusal.put(
          "detail",
          "This application is not allowed to access or delete your direct messages: it needs the"
              + " read, write and direct messages permission.");
      refusal.put("type", "about:blank");
      refusal.put("status", 403);
      return SimResponse.json(403, refusal);
    }
    if (!ID.matcher(participantId).matches()) {
      return PostsResource.invalid(
          "participant_id", participantId, "participant_id must be a user id");
    }
    String text = body == null ? null : Json.text(body, "text");
    if (body == null || !body.isObject() || text == null) {
      return PostsResource.invalid("text", "", "text is required and must be a non-blank string");
    }
    Instant now = clock.now();
    String id = ids.get();
    String conversation = conversationId(userId, participantId);
    SimulatedDirectMessage message =
        new SimulatedDirectMessage(id, conversation, userId, participantId, text, now);
    synchronized (lock) {
      messages.add(message);
      lock.notifyAll();
    }
    log.info("direct message {} sent by user {} to user {}", id, userId, participantId);
    ObjectNode payload = Json.object();
    ObjectNode event = payload.putArray("direct_message_events").addObject();
    event.put("id", id);
    event.put("event_type", "MessageCreate");
    event.put("dm_conversation_id", conversation);
    event.put("sender_id", userId);
    event.putArray("participant_ids").add(userId).add(participantId);
    event.put("text", text);
    event.put("created_at", RegisteredWebhook.TIMESTAMP.format(now));
    ObjectNode included = payload.putObject("users");
    included.set(userId, user(userId));
    included.set(participantId, user(participantId));
    router.publish("dm.received", participantId, "received", payload, null);
    router.publish("dm.sent", userId, "sent", payload, null);
    ObjectNode answer = Json.object();
    answer.putObject("data").put("dm_conversation_id", conversation).put("dm_event_id", id);
    return SimResponse.json(201, answer);
  }

  /** The messages sent to {@code userId}, oldest first. */
  List<SimulatedDirectMessage> to(String userId) {
    synchronized (lock) {
      return messages.stream().filter(m -> m.recipientId().equals(userId)).toList();
    }
  }

  /**
   * Waits until {@code userId} has received at least {@code count} messages.
   *
   * @throws AssertionError naming what was seen when {@code timeout} passes first
   */
  List<SimulatedDirectMessage> await(String userId, int count, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (lock) {
      while (true) {
        List<SimulatedDirectMessage> found = to(userId);
        long left = deadline - System.nanoTime();
        if (found.size() >= count) {
          return found;
        }
        if (left <= 0) {
          throw new AssertionError(
              "expected at least "
                  + count
                  + " direct message(s) to user "
                  + userId
                  + " within "
                  + timeout
                  + " but saw "
                  + found.size()
                  + ": "
                  + found.stream().map(SimulatedDirectMessage::text).toList());
        }
        try {
          lock.wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError("interrupted while waiting for direct messages to " + userId);
        }
      }
    }
  }

  private ObjectNode user(String id) {
    ObjectNode full = users.find(id);
    ObjectNode small = Json.object().put("id", id);
    if (full != null) {
      small.put("name", full.get("name").asText()).put("username", full.get("username").asText());
    }
    return small;
  }

  /** A one-to-one conversation's id: both user ids, the lower number first. */
  static String conversationId(String a, String b) {
    boolean aFirst = a.length() != b.length() ? a.length() < b.length() : a.compareTo(b) <= 0;
    return aFirst ? a + "-" + b : b + "-" + a;
  }
}
