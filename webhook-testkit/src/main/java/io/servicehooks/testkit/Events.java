package io.servicehooks.testkit;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Factories for delivery bodies of both payload families of docs/protocol.md#payload-families, as
 * JSON strings ready for {@link PlatformSimulator#deliver(String)}: the activity envelope (current
 * or legacy type names) and the account-activity batches, including {@code user_event} and {@code
 * replay_job_status}.
 */
public final class Events {

  private Events() {}

  // ---------------------------------------------------------------- activity envelope (3a)

  /**
   * An activity envelope {@code {"data":{"event_uuid","event_type","filter","tag","payload"}}}.
   *
   * @param eventUuid the dedup id, or {@code null} to leave it out as early envelopes did
   * @param eventType a current ({@code post.create}) or legacy ({@code ProfileBioUpdate}) type name
   * @param filter the matching subscription filter, e.g. {@code Map.of("user_id", "2244994945")}
   * @param tag the subscription tag, or {@code null} for none
   * @param payload anything Jackson can serialise: a {@code Map}, a {@code List}, a {@code
   *     JsonNode}
   */
  public static String activity(
      String eventUuid, String eventType, Map<String, ?> filter, String tag, Object payload) {
    Objects.requireNonNull(eventType, "eventType");
    Objects.requireNonNull(filter, "filter");
    ObjectNode root = Json.object();
    ObjectNode data = root.putObject("data");
    if (eventUuid != null) {
      data.put("event_uuid", eventUuid);
    }
    data.put("event_type", eventType);
    data.set("filter", Json.tree(filter));
    if (tag != null) {
      data.put("tag", tag);
    }
    data.set("payload", Json.tree(payload));
    return Json.string(root);
  }

  /** An activity envelope for a user filter, with a fresh random {@code event_uuid} and no tag. */
  public static String activity(String eventType, String userId, Object payload) {
    return activity(newEventUuid(), eventType, Map.of("user_id", userId), null, payload);
  }

  /**
   * {@code post.create}: the payload is a post object {@code {id, text, author_id, created_at}}.
   */
  public static String postCreate(String userId, String postId, String text) {
    return activity(
        "post.create",
        userId,
        Map.of("id", postId, "text", text, "author_id", userId, "created_at", now()));
  }

  /** {@code post.delete}: the payload is {@code {id, author_id}}. */
  public static String postDelete(String userId, String postId) {
    return activity("post.delete", userId, Map.of("id", postId, "author_id", userId));
  }

  /**
   * A profile change {@code {before, after}} under any type name, current ({@code
   * profile.update.bio}) or legacy PascalCase ({@code ProfileBioUpdate}).
   */
  public static String profileUpdate(String eventType, String userId, String before, String after) {
    return activity(eventType, userId, Map.of("before", before, "after", after));
  }

  /** {@code oauth.revoke}: empty filter, payload {@code {date_time, user_id, app_id}}. */
  public static String oauthRevoke(String userId, String appId) {
    return activity(
        newEventUuid(),
        "oauth.revoke",
        Map.of(),
        null,
        Map.of("date_time", now(), "user_id", userId, "app_id", appId));
  }

  /**
   * A sample activity envelope of any event type for {@code userId}, with a fresh positive {@code
   * event_uuid}, the tag {@code servicehooks-trigger} and a payload shaped for the type's family
   * (docs/protocol.md#activity-envelope): what {@code servicehooks trigger} and {@code POST
   * /_sim/trigger} send. A {@code post.create} is the user's own post; a mention, reply, quote or
   * repost is another user's post that mentions the user (with {@code includes.users}); a direct
   * message names its one-to-one {@code dm_conversation_id}. An unknown type gets an empty payload:
   * new types keep appearing and a consumer must accept them.
   */
  public static String sample(String eventType, String userId) {
    Objects.requireNonNull(eventType, "eventType");
    Objects.requireNonNull(userId, "userId");
    ThreadLocalRandom random = ThreadLocalRandom.current();
    String other = SAMPLE_OTHER_USER_ID;
    String postId = Long.toString(1_900_000_000_000_000_000L + random.nextLong(1_000_000_000L));
    String createdAt = now();
    String type = eventType.toLowerCase(java.util.Locale.ROOT);
    ObjectNode root = Json.object();
    ObjectNode data = root.putObject("data");
    data.put(
        "event_uuid",
        Long.toString(1_800_000_000_000_000_000L + random.nextLong(100_000_000_000_000_000L)));
    data.put("event_type", eventType);
    ObjectNode filter = data.putObject("filter");
    if (!type.equals("oauth.revoke")) {
      filter.put("user_id", userId);
    }
    if (type.startsWith("dm.") || type.startsWith("chat.")) {
      filter.put("direction", type.endsWith(".sent") ? "sent" : "received");
    }
    data.put("tag", "servicehooks-trigger");
    ObjectNode payload = data.putObject("payload");
    if (type.equals("post.delete")) {
      payload.put("id", postId).put("author_id", userId);
    } else if (type.startsWith("post.")) {
      samplePost(payload, type, eventType, userId, postId, createdAt);
    } else if (type.startsWith("profile.update.") || type.startsWith("profile")) {
      payload.put("before", "Old value").put("after", "New value from servicehooks trigger");
    } else if (type.startsWith("follow.")
        || type.startsWith("block.")
        || type.startsWith("mute.")) {
      payload.putObject("source").putObject("data").put("id", userId);
      payload.putObject("target").putObject("data").put("id", other);
    } else if (type.startsWith("spaces.") || type.startsWith("broadcast.")) {
      payload.putObject("user").put("id", userId);
      payload.put("broadcast_id", "1" + random.nextInt(100_000_000, 999_999_999));
    } else if (type.startsWith("dm.") || type.startsWith("chat.")) {
      boolean sent = type.endsWith(".sent");
      ObjectNode event = payload.putArray("direct_message_events").addObject();
      event.put("id", Long.toString(random.nextLong(1_000_000_000L, 9_000_000_000L)));
      event.put("event_type", "MessageCreate");
      event.put("dm_conversation_id", other + "-" + userId);
      event.put("sender_id", sent ? userId : other);
      event.put("text", "Sample direct message from servicehooks trigger");
      event.put("created_at", createdAt);
      ObjectNode users = payload.putObject("users");
      users.set(userId, sampleUser(userId, SAMPLE_USERNAME));
      users.set(other, sampleUser(other, SAMPLE_OTHER_USERNAME));
    } else if (type.equals("like.create")) {
      payload
          .put("id", Long.toString(random.nextLong(1_000_000_000L, 9_000_000_000L)))
          .put("liked_post_id", postId)
          .put("liked_post_author_id", userId)
          .put("created_at", createdAt);
    } else if (type.equals("oauth.revoke")) {
      payload.put("date_time", createdAt).put("user_id", userId).put("app_id", "29123456");
    } else if (type.equals("news.new")) {
      payload.put("id", "news-" + postId).put("headline", "Sample headline");
    }
    if (type.startsWith("post.") && !type.equals("post.delete")) {
      ArrayNode users = data.putObject("includes").putArray("users");
      users.add(sampleUser(userId, SAMPLE_USERNAME));
      users.add(sampleUser(other, SAMPLE_OTHER_USERNAME));
    }
    return Json.string(root);
  }

  private static final String SAMPLE_OTHER_USER_ID = "783214";
  private static final String SAMPLE_USERNAME = "hooks_demo";
  private static final String SAMPLE_OTHER_USERNAME = "another_account";

  /**
   * A sample post object: the subscribed user's own for {@code post.create}; for a mention, reply,
   * quote or repost another user's that mentions, answers, quotes or reposts the subscribed user.
   */
  private static void samplePost(
      ObjectNode payload,
      String type,
      String eventType,
      String userId,
      String postId,
      String createdAt) {
    boolean own = type.equals("post.create");
    String author = own ? userId : SAMPLE_OTHER_USER_ID;
    String theirs = "1877000000000000000";
    payload
        .put("id", postId)
        .put(
            "text",
            (own ? "" : "@" + SAMPLE_USERNAME + " ")
                + "Sample post from servicehooks trigger ("
                + eventType
                + ")")
        .put("author_id", author)
        .put("created_at", createdAt)
        .put("lang", "en")
        .put("conversation_id", type.contains("reply") ? theirs : postId);
    if (type.contains("reply")) {
      payload.put("in_reply_to_user_id", userId);
    }
    if (type.contains("reply") || type.contains("quote") || type.contains("repost")) {
      String kind =
          type.contains("quote") ? "quoted" : type.contains("repost") ? "reposted" : "replied_to";
      payload.putArray("referenced_posts").addObject().put("type", kind).put("id", theirs);
    }
    if (!own) {
      payload
          .putObject("entities")
          .putArray("mentions")
          .addObject()
          .put("start", 0)
          .put("end", SAMPLE_USERNAME.length() + 1)
          .put("username", SAMPLE_USERNAME)
          .put("id", userId);
    }
  }

  private static ObjectNode sampleUser(String id, String username) {
    ObjectNode user = Json.object();
    user.put("id", id).put("name", username.replace('_', ' ')).put("username", username);
    return user;
  }

  /** A fresh event id; like the samples, it may be negative. */
  public static String newEventUuid() {
    return Long.toString(ThreadLocalRandom.current().nextLong());
  }

  // ---------------------------------------------------------------- account-activity batches (3b)

  /**
   * An account-activity batch {@code {"for_user_id": ..., "<kind>": [events...]}}, for example
   * {@code accountActivity("2244994945", "favorite_events", List.of(Map.of("id", "1")))}.
   */
  public static String accountActivity(String forUserId, String kind, List<?> events) {
    Objects.requireNonNull(forUserId, "forUserId");
    Objects.requireNonNull(kind, "kind");
    ObjectNode root = Json.object();
    root.put("for_user_id", forUserId);
    root.set(kind, Json.tree(events));
    return Json.string(root);
  }

  /**
   * A batch with {@code post_create_events}: one post per id, author {@code forUserId}, id in
   * {@code id_str}.
   */
  public static String accountPostCreate(String forUserId, String text, String... postIds) {
    ObjectNode root = Json.object();
    root.put("for_user_id", forUserId);
    ArrayNode posts = root.putArray("post_create_events");
    for (String id : postIds) {
      ObjectNode post = posts.addObject();
      post.put("id_str", id);
      post.put("text", text);
      post.put("timestamp_ms", Long.toString(System.currentTimeMillis()));
      post.putObject("user").put("id_str", forUserId);
    }
    return Json.string(root);
  }

  /** A batch with {@code post_delete_events}: {@code {status:{id,user_id}, timestamp_ms}}. */
  public static String accountPostDelete(String forUserId, String postId) {
    return accountActivity(
        forUserId,
        "post_delete_events",
        List.of(
            Map.of(
                "status", Map.of("id", postId, "user_id", forUserId),
                "timestamp_ms", Long.toString(System.currentTimeMillis()))));
  }

  /** A batch with {@code favorite_events}. */
  public static String accountFavorite(String forUserId, String favoriteId, String postId) {
    return accountActivity(
        forUserId,
        "favorite_events",
        List.of(
            Map.of(
                "id",
                favoriteId,
                "created_at",
                now(),
                "favorited_status",
                Map.of("id_str", postId))));
  }

  /** A batch with {@code follow_events}; {@code type} is {@code follow} or {@code unfollow}. */
  public static String accountFollow(
      String forUserId, String type, String sourceUserId, String targetUserId) {
    return accountActivity(
        forUserId,
        "follow_events",
        List.of(
            Map.of(
                "type",
                type,
                "created_timestamp",
                Long.toString(System.currentTimeMillis()),
                "source",
                Map.of("id", sourceUserId),
                "target",
                Map.of("id", targetUserId))));
  }

  /** A batch with one {@code direct_message_events} entry and the {@code users} map. */
  public static String accountDirectMessage(
      String forUserId, String messageId, String senderId, String recipientId, String text) {
    ObjectNode root = Json.object();
    root.put("for_user_id", forUserId);
    ObjectNode event = root.putArray("direct_message_events").addObject();
    event.put("type", "message_create");
    event.put("id", messageId);
    event.put("created_timestamp", Long.toString(System.currentTimeMillis()));
    ObjectNode create = event.putObject("message_create");
    create.put("sender_id", senderId);
    create.putObject("target").put("recipient_id", recipientId);
    create.putObject("message_data").put("text", text);
    ObjectNode users = root.putObject("users");
    users.putObject(senderId).put("id", senderId);
    users.putObject(recipientId).put("id", recipientId);
    return Json.string(root);
  }

  /**
   * {@code {"user_event":{"revoke":{...}}}}: a user withdrew the app's access (no {@code
   * for_user_id}).
   */
  public static String userRevoke(String userId, String appId) {
    ObjectNode root = Json.object();
    ObjectNode revoke = root.putObject("user_event").putObject("revoke");
    revoke.put("date_time", now());
    revoke.putObject("target").put("app_id", appId);
    revoke.putObject("source").put("user_id", userId);
    return Json.string(root);
  }

  /**
   * The replay control message {@code
   * {"replay_job_status":{"webhook_id","job_state","job_state_description","job_id"}}}.
   */
  public static String replayJobStatus(
      String webhookId, String jobId, String jobState, String description) {
    ObjectNode root = Json.object();
    ObjectNode status = root.putObject("replay_job_status");
    status.put("webhook_id", webhookId);
    status.put("job_state", jobState);
    status.put("job_state_description", description);
    status.put("job_id", jobId);
    return Json.string(root);
  }

  private static String now() {
    return RegisteredWebhook.TIMESTAMP.format(Instant.now());
  }
}
