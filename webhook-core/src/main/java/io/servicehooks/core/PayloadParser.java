package io.servicehooks.core;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Turns a verified body into events, all of them or none: a body that is not JSON, or JSON of
 * neither payload family, or a batch with one broken item, is {@link Malformed} and nothing is
 * dispatched.
 *
 * <p>Dedup keys: {@code e:<event_uuid>} for an envelope; {@code a:<for_user_id>:<array>:<id>} for
 * a batch item, so that the same post seen by two subscribed users is two events; where there is
 * no id, the hex SHA-256 of the event's JSON (as Jackson writes the parsed tree) stands in.
 */
final class PayloadParser {

  /** The reason a body was refused; its message is safe to send back and to log. */
  static final class Malformed extends Exception {
    Malformed(String reason) {
      super(reason, null, false, false);
    }
  }

  private static final String EVENTS_SUFFIX = "_events";

  private final ObjectMapper mapper;
  private final EventTypeNames names;

  PayloadParser(ObjectMapper mapper, EventTypeNames names) {
    this.mapper = mapper;
    this.names = names;
  }

  List<WebhookEvent> parse(byte[] body) throws Malformed {
    JsonNode root;
    try {
      root = mapper.readTree(body);
    } catch (IOException e) {
      throw new Malformed("body is not JSON");
    }
    if (root == null || !root.isObject()) {
      throw new Malformed("body is not a JSON object");
    }
    JsonNode data = root.get("data");
    if (data != null && data.isObject()) {
      return List.of(envelope(root, data));
    }
    if (isBatch(root)) {
      List<WebhookEvent> events = batch(root);
      if (events.isEmpty()) {
        throw new Malformed("account-activity body carries no events");
      }
      return events;
    }
    throw new Malformed("body is neither an activity envelope nor an account-activity batch");
  }

  private WebhookEvent envelope(JsonNode root, JsonNode data) throws Malformed {
    JsonNode typeNode = data.get("event_type");
    if (typeNode == null || !typeNode.isTextual() || typeNode.asText().isBlank()) {
      throw new Malformed("data.event_type is missing");
    }
    String original = typeNode.asText();
    JsonNode uuid = data.get("event_uuid");
    String id;
    String key;
    if (uuid != null && (uuid.isTextual() || uuid.isNumber()) && !uuid.asText().isEmpty()) {
      id = uuid.asText();
      key = "e:" + id;
    } else {
      id = sha256(data); // early envelopes had no event_uuid
      key = "e#" + id;
    }
    JsonNode tag = data.get("tag");
    return new WebhookEvent(
        id,
        key,
        names.normalize(original),
        original,
        PayloadFamily.ACTIVITY,
        data.get("filter"),
        null,
        tag != null && tag.isTextual() ? tag.asText() : null,
        data.get("payload"),
        root,
        mapper);
  }

  private static boolean isBatch(JsonNode root) {
    if (root.has("for_user_id") || root.has("user_event") || root.has("replay_job_status")) {
      return true;
    }
    for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
      if (it.next().endsWith(EVENTS_SUFFIX)) {
        return true;
      }
    }
    return false;
  }

  private List<WebhookEvent> batch(JsonNode root) throws Malformed {
    JsonNode forUser = root.get("for_user_id");
    String forUserId = forUser == null || forUser.isNull() ? null : forUser.asText();
    String scope = forUserId == null ? "-" : forUserId;
    List<WebhookEvent> events = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      String name = field.getKey();
      JsonNode value = field.getValue();
      if (name.endsWith(EVENTS_SUFFIX)) {
        if (!value.isArray()) {
          throw new Malformed(name + " is not an array");
        }
        for (JsonNode item : value) {
          if (!item.isObject()) {
            throw new Malformed(name + " holds an item that is not an object");
          }
          events.add(batchItem(root, name, typeOf(name, item, forUserId), item, forUserId, scope));
        }
      } else if (name.equals("user_event")) {
        if (!value.isObject()) {
          throw new Malformed("user_event is not an object");
        }
        for (Iterator<Map.Entry<String, JsonNode>> ue = value.fields(); ue.hasNext(); ) {
          Map.Entry<String, JsonNode> e = ue.next();
          String type = e.getKey().equals("revoke") ? "oauth.revoke" : "user_event." + e.getKey();
          events.add(batchItem(root, "user_event." + e.getKey(), type, e.getValue(), forUserId, scope));
        }
      } else if (name.equals("replay_job_status")) {
        if (!value.isObject()) {
          throw new Malformed("replay_job_status is not an object");
        }
        events.add(batchItem(root, name, "replay.job_status", value, forUserId, scope));
      }
      // for_user_id, users, apps and anything else beside the arrays are context, not events
    }
    return events;
  }

  private WebhookEvent batchItem(
      JsonNode root, String original, String type, JsonNode item, String forUserId, String scope) {
    String itemId = itemId(item);
    String id = itemId != null ? itemId : sha256(item);
    String key = "a:" + scope + ":" + original + (itemId != null ? ":" : "#") + id;
    return new WebhookEvent(
        id, key, type, original, PayloadFamily.ACCOUNT_ACTIVITY, null, forUserId, null, item, root,
        mapper);
  }

  /** The current type of one item of the array {@code name} (PROTOCOL 3b). */
  private static String typeOf(String name, JsonNode item, String forUserId) throws Malformed {
    switch (name) {
      case "post_create_events":
        return "post.create";
      case "post_delete_events":
        return "post.delete";
      case "favorite_events":
        return "like.create";
      case "follow_events":
        return byItemType("follow", item, "follow", "unfollow");
      case "block_events":
        return byItemType("block", item, "block", "unblock");
      case "mute_events":
        return byItemType("mute", item, "mute", "unmute");
      case "direct_message_events":
        String sender = item.path("message_create").path("sender_id").asText(null);
        return forUserId != null && forUserId.equals(sender) ? "dm.sent" : "dm.received";
      case "direct_message_indicate_typing_events":
        return "dm.indicate_typing";
      case "direct_message_mark_read_events":
        return "dm.read";
      default:
        // An array this version does not know: "foo_bar_events" becomes "foo.bar".
        return name.substring(0, name.length() - EVENTS_SUFFIX.length()).replace('_', '.');
    }
  }

  private static String byItemType(String subject, JsonNode item, String... allowed)
      throws Malformed {
    String t = item.path("type").asText("");
    for (String a : allowed) {
      if (a.equals(t)) {
        return subject + "." + t;
      }
    }
    throw new Malformed(subject + "_events item has type '" + shorten(t) + "'");
  }

  private static String itemId(JsonNode item) {
    for (String field : new String[] {"id_str", "id"}) {
      JsonNode v = item.get(field);
      if (v != null && (v.isTextual() || v.isIntegralNumber()) && !v.asText().isEmpty()) {
        return v.asText();
      }
    }
    JsonNode status = item.get("status"); // post_delete_events: {status:{id,user_id}}
    if (status != null && status.isObject()) {
      JsonNode v = status.get("id");
      if (v != null && (v.isTextual() || v.isIntegralNumber())) {
        return v.asText();
      }
    }
    return null;
  }

  private String sha256(JsonNode node) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(digest.digest(mapper.writeValueAsBytes(node)));
    } catch (NoSuchAlgorithmException | JsonProcessingException e) {
      throw new IllegalStateException("cannot hash an event", e);
    }
  }

  private static String shorten(String s) {
    return s.length() <= 32 ? s : s.substring(0, 32) + "...";
  }
}
