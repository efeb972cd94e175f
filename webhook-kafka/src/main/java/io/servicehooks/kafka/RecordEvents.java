package io.servicehooks.kafka;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.servicehooks.core.PayloadFamily;
import io.servicehooks.core.StoredEvent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Turns a record written by {@link KafkaHandOff} back into the {@link StoredEvent} the edge had, so
 * the listeners (and their typed payloads) see the event as it arrived.
 *
 * <p>An activity event's value is its whole envelope: it is the event's delivery, and its {@code
 * data.filter}, {@code data.payload} and {@code data.tag} are taken from it as the exact slices of
 * the value's text. A legacy batch item's value is the item: it is the payload, and the delivery is
 * rebuilt as a batch of that one item for its {@code for_user_id} ({@code {"for_user_id":...,
 * "follow_events":[item]}}); what sat beside the items in the original batch (its {@code users} and
 * {@code apps} maps) does not travel in the topic. A legacy event without a {@code for_user_id} (a
 * {@code user_event}, a {@code replay_job_status}) travels as its whole delivery: the payload is
 * taken from where the parser found it. The type names, the family and the trace context come from
 * the headers. The dedup key is the one the edge's parser gave the event.
 */
final class RecordEvents {

  private final ObjectMapper mapper;

  RecordEvents(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  /** The event of one record; {@link IllegalArgumentException} when it is not one of the edge's. */
  StoredEvent event(Headers headers, byte[] value) {
    String id = required(headers, KafkaHandOff.EVENT_ID_HEADER);
    String type = required(headers, KafkaHandOff.EVENT_TYPE_HEADER);
    String original = header(headers, KafkaHandOff.ORIGINAL_TYPE_HEADER);
    if (original == null) {
      original = type;
    }
    PayloadFamily family;
    try {
      family = PayloadFamily.valueOf(required(headers, KafkaHandOff.FAMILY_HEADER));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("record has an unknown " + KafkaHandOff.FAMILY_HEADER);
    }
    String traceparent = header(headers, KafkaHandOff.TRACEPARENT_HEADER);
    String forUserId = header(headers, KafkaHandOff.FOR_USER_ID_HEADER);
    if (value == null) {
      throw new IllegalArgumentException("record of event " + id + " has no value");
    }
    String json = new String(value, StandardCharsets.UTF_8);
    if (family == PayloadFamily.ACCOUNT_ACTIVITY) {
      String scope = forUserId == null ? "-" : forUserId;
      String key = "a:" + scope + ":" + original + (looksHashed(id) ? "#" : ":") + id;
      String payload = json;
      String delivery;
      JsonNode item = forUserId == null ? itemIn(tree(json, id), original, id) : null;
      if (item != null) {
        // No for_user_id: the edge wrote the whole delivery; the item is where the parser found it.
        payload = text(item);
        delivery = json;
      } else {
        delivery = batchOfOne(forUserId, original, json);
      }
      return new StoredEvent(
          id, key, type, original, family, forUserId, null, null, payload, delivery, traceparent);
    }
    Envelope e = envelope(value, id);
    String key = e.uuid != null && !e.uuid.isEmpty() ? "e:" + e.uuid : "e#" + id;
    return new StoredEvent(
        id, key, type, original, family, null, e.tag, e.filter, e.payload, json, traceparent);
  }

  private JsonNode tree(String json, String id) {
    try {
      return mapper.readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("record of event " + id + " is not JSON");
    }
  }

  private String text(JsonNode node) {
    try {
      return mapper.writeValueAsString(node);
    } catch (IOException e) {
      throw new IllegalArgumentException("record value cannot be written back as JSON");
    }
  }

  /**
   * The item {@code id} of a whole batch, under the name it arrived with ({@code
   * user_event.revoke}, {@code replay_job_status}, {@code follow_events}); null when {@code root}
   * is not such a batch (it is the item itself).
   */
  private static JsonNode itemIn(JsonNode root, String original, String id) {
    if (root == null || !root.isObject()) {
      return null;
    }
    if (original.startsWith("user_event.")) {
      JsonNode item = root.path("user_event").get(original.substring("user_event.".length()));
      return item != null && item.isObject() ? item : null;
    }
    JsonNode container = root.get(original);
    if (container == null) {
      return null;
    }
    if (container.isObject()) {
      return container;
    }
    if (!container.isArray() || container.isEmpty()) {
      return null;
    }
    for (JsonNode item : container) {
      if (id.equals(itemId(item))) {
        return item;
      }
    }
    return container.size() == 1 ? container.get(0) : null;
  }

  /** The id the parser gives a batch item: {@code id_str}, {@code id} or {@code status.id}. */
  private static String itemId(JsonNode item) {
    for (String field : new String[] {"id_str", "id"}) {
      JsonNode v = item.get(field);
      if (v != null && (v.isTextual() || v.isIntegralNumber()) && !v.asText().isEmpty()) {
        return v.asText();
      }
    }
    JsonNode status = item.get("status");
    if (status != null && status.isObject()) {
      JsonNode v = status.get("id");
      if (v != null && (v.isTextual() || v.isIntegralNumber())) {
        return v.asText();
      }
    }
    return null;
  }

  /** The edge names an item without an id by the hex SHA-256 of its JSON. */
  private static boolean looksHashed(String id) {
    if (id.length() != 64) {
      return false;
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }

  /** A legacy batch holding only {@code itemJson}, where the parser found it. */
  private String batchOfOne(String forUserId, String original, String itemJson) {
    try {
      JsonNode item = mapper.readTree(itemJson);
      ObjectNode batch = mapper.createObjectNode();
      if (forUserId != null) {
        batch.put("for_user_id", forUserId);
      }
      if (original.startsWith("user_event.")) {
        batch.putObject("user_event").set(original.substring("user_event.".length()), item);
      } else if (original.endsWith("_events")) {
        batch.putArray(original).add(item);
      } else {
        batch.set(original, item);
      }
      return mapper.writeValueAsString(batch);
    } catch (IOException e) {
      throw new IllegalArgumentException("record value is not JSON");
    }
  }

  private static final class Envelope {
    String uuid;
    String tag;
    String filter;
    String payload;
  }

  /** The envelope's fields, as exact slices of the value (containers) or their JSON (scalars). */
  private Envelope envelope(byte[] value, String id) {
    Envelope e = new Envelope();
    try (JsonParser p = mapper.getFactory().createParser(value)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IllegalArgumentException("record of event " + id + " is not a JSON object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken token = p.nextToken();
        if (!name.equals("data") || token != JsonToken.START_OBJECT) {
          p.skipChildren();
          continue;
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String field = p.currentName();
          JsonToken v = p.nextToken();
          switch (field) {
            case "event_uuid" ->
                e.uuid = v.isScalarValue() && v != JsonToken.VALUE_NULL ? p.getText() : skip(p);
            case "tag" -> e.tag = v == JsonToken.VALUE_STRING ? p.getText() : skip(p);
            case "filter" -> e.filter = slice(p, value);
            case "payload" -> e.payload = slice(p, value);
            default -> p.skipChildren();
          }
        }
      }
    } catch (IOException ex) {
      throw new IllegalArgumentException("record of event " + id + " is not JSON");
    }
    return e;
  }

  private static String skip(JsonParser p) throws IOException {
    p.skipChildren();
    return null;
  }

  private String slice(JsonParser p, byte[] value) throws IOException {
    JsonToken t = p.currentToken();
    if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
      int start = (int) p.currentTokenLocation().getByteOffset();
      p.skipChildren();
      int end = (int) p.currentLocation().getByteOffset();
      return new String(value, start, end - start, StandardCharsets.UTF_8);
    }
    JsonNode scalar = mapper.readTree(p);
    return scalar == null || scalar.isNull() ? null : mapper.writeValueAsString(scalar);
  }

  static String header(Headers headers, String name) {
    Header h = headers.lastHeader(name);
    return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  private static String required(Headers headers, String name) {
    String v = header(headers, name);
    if (v == null || v.isEmpty()) {
      throw new IllegalArgumentException("record has no " + name + " header");
    }
    return v;
  }
}
