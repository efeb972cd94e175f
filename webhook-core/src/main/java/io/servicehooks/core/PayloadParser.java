package io.servicehooks.core;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
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
 * <p>Dedup keys: {@code e:<event_uuid>} for an envelope; {@code a:<for_user_id>:<array>:<id>} for a
 * batch item, so that the same post seen by two subscribed users is two events; where there is no
 * id, the hex SHA-256 of the event's JSON (as Jackson writes the parsed tree) stands in.
 *
 * <p>Ids longer than {@link WebhookConsumer#MAX_EVENT_ID_LENGTH} and type names longer than {@link
 * WebhookConsumer#MAX_EVENT_TYPE_LENGTH} are malformed: each would become a dedup key, a log value
 * and (types) a metric tag.
 */
final class PayloadParser {

  /**
   * The reason a body was refused; its message is safe to send back and to log (a payload's field
   * names and values in it have their control characters escaped).
   */
  static final class Malformed extends Exception {
    Malformed(String reason) {
      super(LogSafe.escape(reason), null, false, false);
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
    // One streaming pass over the body: it checks the syntax of all of it, takes the envelope's
    // few scalar fields, and keeps filter and payload as byte slices parsed only on demand.
    Envelope envelope = new Envelope();
    boolean batch = false;
    try (JsonParser p = mapper.getFactory().createParser(body)) {
      JsonToken first = p.nextToken();
      if (first == null) {
        throw new Malformed("body is not JSON");
      }
      if (p.currentTokenLocation().getByteOffset() < 0) {
        // Jackson reads UTF-16 and UTF-32 too, but then has no byte offsets for the slices below.
        // JSON between systems is UTF-8 (RFC 8259 section 8.1); the platform sends nothing else.
        throw new Malformed("body is not UTF-8 JSON");
      }
      if (first != JsonToken.START_OBJECT) {
        p.skipChildren();
        throw new Malformed("body is not a JSON object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        if (name.equals("data") && value == JsonToken.START_OBJECT) {
          envelope.scan(p, body);
        } else {
          batch |= isBatchField(name);
          p.skipChildren();
        }
      }
      if (p.nextToken() != null) {
        throw new Malformed("body has content after the JSON object");
      }
    } catch (IOException e) {
      throw new Malformed("body is not JSON");
    }
    if (envelope.found) {
      return List.of(envelope.event(body));
    }
    if (batch) {
      List<WebhookEvent> events;
      try {
        events = batch(mapper.readTree(body), body);
      } catch (IOException e) {
        throw new Malformed("body is not JSON");
      }
      if (events.isEmpty()) {
        throw new Malformed("account-activity body carries no events");
      }
      return events;
    }
    throw new Malformed("body is neither an activity envelope nor an account-activity batch");
  }

  /** The fields of an envelope's {@code data} object, as one scan finds them. */
  private final class Envelope {
    boolean found;
    String uuid;
    String type;
    String tag;
    LazyJson filter;
    LazyJson payload;
    int dataStart;
    int dataEnd;

    void scan(JsonParser p, byte[] body) throws IOException {
      found = true;
      dataStart = (int) p.currentTokenLocation().getByteOffset();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        switch (field) {
          case "event_uuid" ->
              uuid = value.isScalarValue() && value != JsonToken.VALUE_NULL ? p.getText() : skip(p);
          case "event_type" -> type = value == JsonToken.VALUE_STRING ? p.getText() : skip(p);
          case "tag" -> tag = value == JsonToken.VALUE_STRING ? p.getText() : skip(p);
          case "filter" -> filter = slice(p, body);
          case "payload" -> payload = slice(p, body);
          default -> p.skipChildren();
        }
      }
      dataEnd = (int) p.currentLocation().getByteOffset();
    }

    WebhookEvent event(byte[] body) throws Malformed {
      if (type == null || type.isBlank()) {
        throw new Malformed("data.event_type is missing");
      }
      checkType("data.event_type", type);
      checkId("data.event_uuid", uuid);
      String id;
      String key;
      if (uuid != null && !uuid.isEmpty()) {
        id = uuid;
        key = "e:" + uuid;
      } else {
        // Early envelopes had no event_uuid: the hash of the data object stands in.
        id = sha256(new LazyJson(mapper, body, dataStart, dataEnd - dataStart).node());
        key = "e#" + id;
      }
      return new WebhookEvent(
          id,
          key,
          names.normalize(type),
          type,
          PayloadFamily.ACTIVITY,
          filter,
          null,
          tag,
          payload,
          new LazyJson(mapper, body, 0, body.length),
          mapper);
    }
  }

  private static String skip(JsonParser p) throws IOException {
    p.skipChildren();
    return null;
  }

  /** The current value as a lazily parsed slice of the body (containers) or a tree (scalars). */
  private LazyJson slice(JsonParser p, byte[] body) throws IOException {
    JsonToken t = p.currentToken();
    if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
      int start = (int) p.currentTokenLocation().getByteOffset();
      p.skipChildren();
      int end = (int) p.currentLocation().getByteOffset();
      return new LazyJson(mapper, body, start, end - start);
    }
    return new LazyJson((JsonNode) mapper.readTree(p));
  }

  private static boolean isBatchField(String name) {
    return name.equals("for_user_id")
        || name.equals("user_event")
        || name.equals("replay_job_status")
        || name.endsWith(EVENTS_SUFFIX);
  }

  private List<WebhookEvent> batch(JsonNode root, byte[] body) throws Malformed {
    JsonNode forUser = root.get("for_user_id");
    String forUserId = forUser == null || forUser.isNull() ? null : forUser.asText();
    checkId("for_user_id", forUserId);
    String scope = forUserId == null ? "-" : forUserId;
    // One delivery for every item: a durable store then keeps one copy of the body, not one each.
    LazyJson delivery = new LazyJson(mapper, body, 0, body.length, root);
    List<WebhookEvent> events = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      String name = field.getKey();
      JsonNode value = field.getValue();
      if (name.endsWith(EVENTS_SUFFIX)) {
        checkType("an account-activity array name", name);
        if (!value.isArray()) {
          throw new Malformed(name + " is not an array");
        }
        for (JsonNode item : value) {
          if (!item.isObject()) {
            throw new Malformed(name + " holds an item that is not an object");
          }
          events.add(
              batchItem(delivery, name, typeOf(name, item, forUserId), item, forUserId, scope));
        }
      } else if (name.equals("user_event")) {
        if (!value.isObject()) {
          throw new Malformed("user_event is not an object");
        }
        for (Iterator<Map.Entry<String, JsonNode>> ue = value.fields(); ue.hasNext(); ) {
          Map.Entry<String, JsonNode> e = ue.next();
          checkType("a user_event kind", e.getKey());
          String type = e.getKey().equals("revoke") ? "oauth.revoke" : "user_event." + e.getKey();
          events.add(
              batchItem(
                  delivery, "user_event." + e.getKey(), type, e.getValue(), forUserId, scope));
        }
      } else if (name.equals("replay_job_status")) {
        if (!value.isObject()) {
          throw new Malformed("replay_job_status is not an object");
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
      throws Malformed {
    String itemId = itemId(item);
    checkId(original + " item id", itemId);
    String id = itemId != null ? itemId : sha256(item);
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
        String subject = name.substring(0, name.length() - EVENTS_SUFFIX.length());
        if (subject.isEmpty()) {
          // as an envelope without event_type: an event needs a type name
          throw new Malformed("_events names no event type");
        }
        return subject.replace('_', '.');
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

  private static void checkId(String what, String id) throws Malformed {
    if (id == null) {
      return;
    }
    if (id.length() > WebhookConsumer.MAX_EVENT_ID_LENGTH) {
      throw new Malformed(
          what + " is longer than " + WebhookConsumer.MAX_EVENT_ID_LENGTH + " characters");
    }
    checkText(what, id);
  }

  private static void checkType(String what, String type) throws Malformed {
    if (type.length() > WebhookConsumer.MAX_EVENT_TYPE_LENGTH) {
      throw new Malformed(
          what + " is longer than " + WebhookConsumer.MAX_EVENT_TYPE_LENGTH + " characters");
    }
    checkText(what, type);
  }

  /**
   * Refuses a value that is not valid text: a lone UTF-16 surrogate (a JSON escape from D800 to
   * DFFF without its pair) has no UTF-8 form, so stores that encode keys (Redis, PostgreSQL) write
   * {@code ?} for it and three different ids ending in D800, in DC01 and in {@code ?} would share
   * one dedup key; a NUL cannot be stored in a PostgreSQL text column at all.
   */
  private static void checkText(String what, String value) throws Malformed {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\0') {
        throw new Malformed(what + " contains a NUL character");
      }
      if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c)
            && i + 1 < value.length()
            && Character.isLowSurrogate(value.charAt(i + 1))) {
          i++; // a pair: one character outside the basic plane
        } else {
          throw new Malformed(what + " is not valid text (a lone UTF-16 surrogate)");
        }
      }
    }
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
