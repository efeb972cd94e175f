package io.servicehooks.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.servicehooks.core.EventTypes;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Realistic sample deliveries in the current activity envelope
 * (docs/protocol.md#activity-envelope): {@code
 * {"data":{"event_uuid","event_type","filter","tag","payload","includes"}}}, with a payload shaped
 * for the event's family. Unknown types get an empty payload: new types keep appearing and a
 * consumer must accept them.
 */
final class SampleEvents {

  static final String SUBSCRIBED_USER_ID = "2244994945";
  private static final String OTHER_USER_ID = "783214";
  private static final ObjectMapper JSON = new ObjectMapper();

  private SampleEvents() {}

  /** Whether a payload shape is known for the type (the type is sent either way). */
  static boolean isKnown(String eventType) {
    return !family(eventType).equals("unknown");
  }

  static byte[] build(String eventType, Instant now) {
    return build(eventType, now, null);
  }

  /** A sample with {@code eventId} as its {@code event_uuid}, or a random one when null. */
  static byte[] build(String eventType, Instant now, String eventId) {
    ObjectNode root = JSON.createObjectNode();
    ObjectNode data = root.putObject("data");
    ThreadLocalRandom random = ThreadLocalRandom.current();
    data.put(
        "event_uuid",
        eventId != null
            ? eventId
            : Long.toString(
                1_800_000_000_000_000_000L + random.nextLong(100_000_000_000_000_000L)));
    data.put("event_type", eventType);
    ObjectNode filter = data.putObject("filter");
    String family = family(eventType);
    if (!family.equals("oauth")) {
      filter.put("user_id", SUBSCRIBED_USER_ID);
    }
    if (family.equals("dm") || family.equals("chat")) {
      filter.put("direction", eventType.endsWith(".sent") ? "sent" : "received");
    }
    data.put("tag", "servicehooks-cli-sample");
    String createdAt = now.truncatedTo(ChronoUnit.MILLIS).toString();
    String postId = Long.toString(1_900_000_000_000_000_000L + random.nextLong(1_000_000_000L));
    ObjectNode payload = data.putObject("payload");
    switch (family) {
      case "post" -> post(payload, eventType, postId, createdAt);
      case "post.delete" -> payload.put("id", postId).put("author_id", SUBSCRIBED_USER_ID);
      case "profile" -> profile(payload, current(eventType));
      case "relation" -> {
        payload.putObject("source").set("data", user(SUBSCRIBED_USER_ID, "hooks_demo"));
        payload.putObject("target").set("data", user(OTHER_USER_ID, "another_account"));
      }
      case "broadcast" -> {
        payload.set("user", user(SUBSCRIBED_USER_ID, "hooks_demo"));
        payload.put("broadcast_id", "1" + random.nextInt(100_000_000, 999_999_999));
      }
      case "dm", "chat" -> directMessage(payload, eventType, createdAt);
      case "like" ->
          payload
              .put("id", Long.toString(random.nextLong(1_000_000_000L, 9_000_000_000L)))
              .put("liked_post_id", postId)
              .put("liked_post_author_id", SUBSCRIBED_USER_ID)
              .put("created_at", createdAt);
      case "oauth" ->
          payload
              .put("date_time", createdAt)
              .put("user_id", SUBSCRIBED_USER_ID)
              .put("app_id", "29123456");
      case "news" ->
          payload
              .put("id", "news-" + postId)
              .put("headline", "Sample headline")
              .put("summary", "A sample news item sent by servicehooks send.")
              .put("created_at", createdAt);
      default -> {
        // unknown type: an empty payload
      }
    }
    if (!family.equals("oauth") && !family.equals("unknown")) {
      ArrayNode users =
          data.putObject("includes").putArray("users").add(user(SUBSCRIBED_USER_ID, "hooks_demo"));
      if (family.equals("post") && isOthersPost(eventType)) {
        users.add(user(OTHER_USER_ID, "another_account"));
      }
    }
    try {
      return JSON.writeValueAsBytes(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON", e);
    }
  }

  private static String current(String eventType) {
    return EventTypes.currentName(eventType);
  }

  private static String family(String eventType) {
    String type = current(eventType).toLowerCase(Locale.ROOT);
    if (type.equals("post.delete")) {
      return "post.delete";
    }
    if (type.startsWith("post.")) {
      return "post";
    }
    if (type.startsWith("profile.update.")) {
      return "profile";
    }
    if (type.startsWith("follow.") || type.startsWith("block.") || type.startsWith("mute.")) {
      return "relation";
    }
    if (type.startsWith("spaces.")
        || type.equals("broadcast.start")
        || type.equals("broadcast.end")) {
      return "broadcast";
    }
    if (type.startsWith("dm.")) {
      return "dm";
    }
    if (type.startsWith("chat.") || type.equals("broadcast.chat")) {
      return "chat";
    }
    if (type.equals("like.create")) {
      return "like";
    }
    if (type.equals("oauth.revoke")) {
      return "oauth";
    }
    if (type.equals("news.new")) {
      return "news";
    }
    return "unknown";
  }

  /**
   * A post object: the subscribed user's own for {@code post.create}; for a mention, reply, quote
   * or repost another user's post that mentions the subscribed user (and answers, quotes or reposts
   * one of theirs).
   */
  private static void post(ObjectNode payload, String eventType, String postId, String createdAt) {
    boolean own = !isOthersPost(eventType);
    String theirs = "1877000000000000000";
    payload
        .put("id", postId)
        .put(
            "text",
            (own ? "" : "@hooks_demo ")
                + "Sample post sent by servicehooks send ("
                + eventType
                + ")")
        .put("author_id", own ? SUBSCRIBED_USER_ID : OTHER_USER_ID)
        .put("created_at", createdAt)
        .put("lang", "en")
        .put("conversation_id", eventType.contains("reply") ? theirs : postId);
    payload.putArray("edit_history_post_ids").add(postId);
    if (eventType.contains("reply")) {
      payload.put("in_reply_to_user_id", SUBSCRIBED_USER_ID);
    }
    if (eventType.contains("quote")
        || eventType.contains("repost")
        || eventType.contains("reply")) {
      String kind =
          eventType.contains("quote")
              ? "quoted"
              : eventType.contains("repost") ? "reposted" : "replied_to";
      payload.putArray("referenced_posts").addObject().put("type", kind).put("id", theirs);
    }
    if (!own) {
      payload
          .putObject("entities")
          .putArray("mentions")
          .addObject()
          .put("start", 0)
          .put("end", "@hooks_demo".length())
          .put("username", "hooks_demo")
          .put("id", SUBSCRIBED_USER_ID);
    }
  }

  /** Whether the sample post of the type is another user's, about the subscribed user. */
  private static boolean isOthersPost(String eventType) {
    return eventType.contains("mention")
        || eventType.contains("reply")
        || eventType.contains("quote")
        || eventType.contains("repost");
  }

  private static void profile(ObjectNode payload, String type) {
    String field = type.substring("profile.update.".length());
    switch (field) {
      case "verified", "verified_badge", "affiliate", "affiliate_badge" ->
          payload.put("before", false).put("after", true);
      case "screenname", "handle" ->
          payload.put("before", "servicehooks_old").put("after", "hooks_demo");
      case "profile_picture", "banner_picture" ->
          payload
              .put("before", "https://pbs.example.com/" + field + "/old.jpg")
              .put("after", "https://pbs.example.com/" + field + "/new.jpg");
      case "url" ->
          payload.put("before", "https://old.example.org").put("after", "https://new.example.org");
      case "geo" -> payload.put("before", "Berlin").put("after", "Lisbon");
      default ->
          payload.put("before", "Old bio").put("after", "New bio, sent by servicehooks send");
    }
  }

  private static void directMessage(ObjectNode payload, String eventType, String createdAt) {
    boolean sent = eventType.endsWith(".sent");
    String sender = sent ? SUBSCRIBED_USER_ID : OTHER_USER_ID;
    String recipient = sent ? OTHER_USER_ID : SUBSCRIBED_USER_ID;
    String conversation = OTHER_USER_ID + "-" + SUBSCRIBED_USER_ID;
    ObjectNode event =
        payload
            .putArray("direct_message_events")
            .addObject()
            .put(
                "id",
                Long.toString(ThreadLocalRandom.current().nextLong(1_000_000_000L, 9_000_000_000L)))
            .put(
                "event_type",
                eventType.endsWith("read")
                    ? "MessageRead"
                    : eventType.contains("typing") ? "TypingIndicator" : "MessageCreate")
            .put("dm_conversation_id", conversation)
            .put("sender_id", sender)
            .put("created_at", createdAt);
    if (!eventType.endsWith("read") && !eventType.contains("typing")) {
      event.put("text", "Sample direct message sent by servicehooks send");
    }
    if (eventType.contains("join")) {
      event.put("event_type", "ParticipantsJoin");
      event.putArray("participant_ids").add(recipient);
    }
    ObjectNode users = payload.putObject("users");
    users.set(SUBSCRIBED_USER_ID, user(SUBSCRIBED_USER_ID, "hooks_demo"));
    users.set(OTHER_USER_ID, user(OTHER_USER_ID, "another_account"));
  }

  private static ObjectNode user(String id, String username) {
    return JSON.createObjectNode()
        .put("id", id)
        .put("name", username.replace('_', ' '))
        .put("username", username);
  }
}
