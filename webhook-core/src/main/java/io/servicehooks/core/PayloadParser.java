package io.servicehooks.core;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.List;

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
 * and (types) a metric tag ({@link EventFields}).
 *
 * <p>This class makes the one streaming pass and reads an activity envelope; an account-activity
 * batch is read by {@link AccountActivityBatch}.
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

  private final ObjectMapper mapper;
  private final EventTypeNames names;
  private final AccountActivityBatch batches;

  PayloadParser(ObjectMapper mapper, EventTypeNames names) {
    this.mapper = mapper;
    this.names = names;
    this.batches = new AccountActivityBatch(mapper);
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
          batch |= AccountActivityBatch.isBatchField(name);
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
        events = batches.events(mapper.readTree(body), body);
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
    // Read on the way through filter and payload, for the check every dispatch makes of whether
    // the subscribed user caused the event itself (OwnEvents): null when the scan could not tell.
    String filterUserId;
    String authorId;
    String senderId;
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
          case "filter" -> filter = filter(p, body);
          case "payload" -> payload = payload(p, body);
          default -> p.skipChildren();
        }
      }
      dataEnd = (int) p.currentLocation().getByteOffset();
    }

    WebhookEvent event(byte[] body) throws Malformed {
      if (type == null || type.isBlank()) {
        throw new Malformed("data.event_type is missing");
      }
      EventFields.checkType("data.event_type", type);
      EventFields.checkId("data.event_uuid", uuid);
      String id;
      String key;
      if (uuid != null && !uuid.isEmpty()) {
        id = uuid;
        key = "e:" + uuid;
      } else {
        // Early envelopes had no event_uuid: the hash of the data object stands in.
        id =
            EventFields.sha256(
                mapper, new LazyJson(mapper, body, dataStart, dataEnd - dataStart).node());
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
              mapper)
          .scanned(filterUserId, authorId, senderId);
    }

    /**
     * The filter as {@link #slice} keeps it, reading its {@code user_id} on the way with {@link
     * WebhookEvent#userIdIn}, or leaving {@link #filterUserId} null where only the tree can tell.
     */
    private LazyJson filter(JsonParser p, byte[] body) throws IOException {
      filterUserId = null;
      if (p.currentToken() != JsonToken.START_OBJECT) {
        return slice(p, body);
      }
      int start = (int) p.currentTokenLocation().getByteOffset();
      filterUserId = WebhookEvent.userIdIn(p);
      int end = (int) p.currentLocation().getByteOffset();
      return new LazyJson(mapper, body, start, end - start);
    }

    /**
     * The payload as {@link #slice} keeps it, noting on the way its first top-level {@code
     * author_id} and {@code sender_id} that are non-empty strings or numbers (what {@link
     * OwnEvents} looks for first).
     */
    private LazyJson payload(JsonParser p, byte[] body) throws IOException {
      authorId = null;
      senderId = null;
      if (p.currentToken() != JsonToken.START_OBJECT) {
        return slice(p, body);
      }
      int start = (int) p.currentTokenLocation().getByteOffset();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        if (name.equals("author_id") && authorId == null) {
          authorId = OwnEvents.scalar(p, value);
        } else if (name.equals("sender_id") && senderId == null) {
          senderId = OwnEvents.scalar(p, value);
        } else {
          p.skipChildren();
        }
      }
      int end = (int) p.currentLocation().getByteOffset();
      return new LazyJson(mapper, body, start, end - start);
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
}
