package io.servicehooks.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Reads an account-activity batch (docs/protocol.md#account-activity-batch) into its events: one
 * per item of each {@code *_events} array, each {@code user_event} kind and a {@code
 * replay_job_status}, typed by the array's name (and the item's {@code type} where one array
 * carries two). Dedup keys are scoped by {@code for_user_id}, so the same post seen by two
 * subscribed users is two events.
 */
final class AccountActivityBatch {

  static final String EVENTS_SUFFIX = "_events";

  private final ObjectMapper mapper;

  AccountActivityBatch(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  /** Whether a top-level field name marks an account-activity batch. */
  static boolean isBatchField(String name) {
    return name.equals("for_user_id")
        || name.equals("user_event")
        || name.equals("replay_job_status")
        || name.endsWith(EVENTS_SUFFIX);
  }

  /** The batch's events, all of them or {@link PayloadParser.Malformed}; may be empty. */
  List<WebhookEvent> events(JsonNode root, byte[] body) throws PayloadParser.Malformed {
    JsonNode forUser = root.get("for_user_id");
    String forUserId = forUser == null || forUser.isNull() ? null : forUser.asText();
    EventFields.checkId("for_user_id", forUserId);
    String scope = forUserId == null ? "-" : forUserId;
    // One delivery for every item: a durable store then keeps one copy of the body, not one each.
    LazyJson delivery = new LazyJson(mapper, body, 0, body.length, root);
    List<WebhookEvent> events = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      String name = field.getKey();
      JsonNode value = field.getValue();
      if (name.endsWith(EVENTS_SUFFIX)) {
        EventFields.checkType("an account-activity array name", name);
        if (!value.isArray()) {
          throw new PayloadParser.Malformed(name + " is not an array");
        }
        for (JsonNode item : value) {
          if (!item.isObject()) {
            throw new PayloadParser.Malformed(name + " holds an item that is not an object");
          }
          events.add(
              batchItem(delivery, name, typeOf(name, item, forUserId), item, forUserId, scope));
        }
      } else if (name.equals("user_event")) {
        if (!value.isObject()) {
          throw new PayloadParser.Malformed("user_event is not an object");
        }
        for (Iterator<Map.Entry<String, JsonNode>> ue = value.fields(); ue.hasNext(); ) {
          Map.Entry<String, JsonNode> e = ue.next();
          EventFields.checkType("a user_event kind", e.getKey());
          String type = e.getKey().equals("revoke") ? "oauth.revoke" : "user_event." + e.getKey();
          events.add(
              batchItem(
                  delivery, "user_event." + e.getKey(), type, e.getValue(), forUserId, scope));
        }
      } else if (name.equals("replay_job_status")) {
        if (!value.isObject()) {
          throw new PayloadParser.Malformed("replay_job_status is not an object");
        }
        events.add(batchItem(delivery, name, "replay.job_status", value, forUserId, scope));
      }
      // for_user_id, users, apps and anything else beside the arrays are context, not events
    }
    return events;
  }

  private WebhookEvent batchItem(
      LazyJson delivery,
      String original,
      String type,
      JsonNode item,
      String forUserId,
      String scope)
      throws PayloadParser.Malformed {
    String itemId = itemId(item);
    EventFields.checkId(original + " item id", itemId);
    String id = itemId != null ? itemId : EventFields.sha256(mapper, item);
    String key = "a:" + scope + ":" + original + (itemId != null ? ":" : "#") + id;
    return new WebhookEvent(
        id,
        key,
        type,
        original,
        PayloadFamily.ACCOUNT_ACTIVITY,
        null,
        forUserId,
        null,
        new LazyJson(item),
        delivery,
        mapper);
  }

  /**
   * The current type of one item of the array {@code name}
   * (docs/protocol.md#account-activity-batch).
   */
  private static String typeOf(String name, JsonNode item, String forUserId)
      throws PayloadParser.Malformed {
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
        String subject = name.substring(0, name.length() - EVENTS_SUFFIX.length());
        if (subject.isEmpty()) {
          // as an envelope without event_type: an event needs a type name
          throw new PayloadParser.Malformed("_events names no event type");
        }
        return subject.replace('_', '.');
    }
  }

  private static String byItemType(String subject, JsonNode item, String... allowed)
      throws PayloadParser.Malformed {
    String t = item.path("type").asText("");
    for (String a : allowed) {
      if (a.equals(t)) {
        return subject + "." + t;
      }
    }
    throw new PayloadParser.Malformed(
        subject + "_events item has type '" + EventFields.shorten(t) + "'");
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
}
