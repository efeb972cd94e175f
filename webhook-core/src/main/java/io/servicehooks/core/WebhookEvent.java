package io.servicehooks.core;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.InjectableValues;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.servicehooks.core.payload.MissingPayloadFieldException;
import java.io.IOException;
import java.util.Objects;
import java.util.Optional;

/**
 * One event taken from a verified delivery, as listeners see it: its id, its current type name, the
 * type name it arrived with, who it concerns, and its payload as a Jackson tree.
 *
 * <p>An activity envelope gives one event; an account-activity batch gives one per array item.
 * Instances are immutable and safe to hand to other threads.
 */
public final class WebhookEvent {

  private final String id;
  private final String dedupKey;
  private final String type;
  private final String originalType;
  private final PayloadFamily family;
  private final LazyJson filter;
  private final String forUserId;
  private final String tag;
  private final LazyJson payload;
  private final LazyJson delivery;
  private final ObjectMapper mapper;

  /** Marks a filter without a {@code user_id}, read once. */
  static final String NO_USER = new String("");

  private volatile String filterUserId; // the filter's user_id once read, or NO_USER
  // The payload's first top-level author_id and sender_id, as the parser's scan saw them (null
  // when it saw none, or did not scan: a batch item, an event restored from a store).
  private String scannedAuthorId;
  private String scannedSenderId;

  /**
   * The observation the event's listener observations are children of (a delivery's or an inbox
   * processing's), opaque here; {@code null} without a registry. Set once by the core before the
   * event is handed to another thread or to a listener; not part of the event's value.
   */
  Object observationParent;

  WebhookEvent(
      String id,
      String dedupKey,
      String type,
      String originalType,
      PayloadFamily family,
      LazyJson filter,
      String forUserId,
      String tag,
      LazyJson payload,
      LazyJson delivery,
      ObjectMapper mapper) {
    this.id = id;
    this.dedupKey = dedupKey;
    this.type = type;
    this.originalType = originalType;
    this.family = family;
    this.filter = filter == null ? LazyJson.MISSING : filter;
    this.forUserId = forUserId;
    this.tag = tag;
    this.payload = payload == null ? LazyJson.MISSING : payload;
    this.delivery = delivery;
    this.mapper = mapper;
  }

  /**
   * The event's id: {@code event_uuid} for an activity envelope, the item's own id for a batch
   * item, or, where the platform sent none, the hex SHA-256 of the event's JSON.
   */
  public String id() {
    return id;
  }

  /** The current, dot-separated type name, e.g. {@code profile.update.bio}. */
  public String type() {
    return type;
  }

  /**
   * The type name as it arrived: the envelope's {@code event_type} (perhaps a legacy PascalCase
   * name such as {@code ProfileBioUpdate}) or the batch array's key (e.g. {@code follow_events}).
   */
  public String originalType() {
    return originalType;
  }

  /** Which payload family the event came in. */
  public PayloadFamily family() {
    return family;
  }

  /**
   * The subscription filter that matched (envelope {@code filter}, e.g. {@code {"user_id":"..."}});
   * a missing node for batch items, which carry {@link #forUserId()} instead.
   */
  public JsonNode filter() {
    return filter.node();
  }

  /**
   * Keeps what the parser's one scan of an envelope read on the way: the filter's {@code user_id}
   * (or {@link #NO_USER}, or null where only the tree can tell) and the payload's first top-level
   * {@code author_id} and {@code sender_id}. Called before the event leaves the parser's thread.
   */
  WebhookEvent scanned(String filterUserId, String authorId, String senderId) {
    this.filterUserId = filterUserId;
    this.scannedAuthorId = authorId;
    this.scannedSenderId = senderId;
    return this;
  }

  String scannedAuthorId() {
    return scannedAuthorId;
  }

  String scannedSenderId() {
    return scannedSenderId;
  }

  /** The batch's {@code for_user_id}, or the envelope filter's {@code user_id}, if any. */
  public Optional<String> forUserId() {
    if (forUserId != null) {
      return Optional.of(forUserId);
    }
    String read = filterUserId;
    if (read == null) {
      read = filterUserId(filter);
      filterUserId = read;
    }
    return read == NO_USER ? Optional.empty() : Optional.of(read);
  }

  /**
   * The filter's {@code user_id} as {@link JsonNode#asText()} gives it, read with one streaming
   * pass that builds no tree (every dispatch asks, to tell an event the user caused itself), or
   * {@link #NO_USER}.
   */
  private static String filterUserId(LazyJson filter) {
    try (JsonParser p = filter.parser()) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return NO_USER;
      }
      String read = userIdIn(p);
      return read != null ? read : treeUserId(filter);
    } catch (IOException | RuntimeException e) {
      return treeUserId(filter); // fails as the tree read always did
    }
  }

  /**
   * Reads the object the parser is at (its START_OBJECT already read) to its END_OBJECT and gives
   * its {@code user_id} as {@link JsonNode#asText()} would: the last one wins, {@code null} or none
   * is {@link #NO_USER}, an object or array "". Returns null when only the tree can tell: a float,
   * which the tree writes its own way ("1.0" for 1.00). The envelope's scan calls it too.
   */
  static String userIdIn(JsonParser p) throws IOException {
    String found = NO_USER;
    boolean known = true;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      boolean wanted = p.currentName().equals("user_id");
      JsonToken value = p.nextToken();
      if (!wanted) {
        p.skipChildren();
      } else if (value == JsonToken.VALUE_STRING
          || value == JsonToken.VALUE_NUMBER_INT
          || value == JsonToken.VALUE_TRUE
          || value == JsonToken.VALUE_FALSE) {
        found = p.getValueAsString();
        known = true;
      } else if (value == JsonToken.VALUE_NULL) {
        found = NO_USER;
        known = true;
      } else if (value == JsonToken.VALUE_NUMBER_FLOAT) {
        known = false;
      } else {
        p.skipChildren();
        found = "";
        known = true;
      }
    }
    return known ? found : null;
  }

  private static String treeUserId(LazyJson filter) {
    JsonNode userId = filter.node().get("user_id");
    return userId == null || userId.isNull() ? NO_USER : userId.asText();
  }

  /** The subscription's tag, if the envelope carries one. */
  public Optional<String> tag() {
    return Optional.ofNullable(tag);
  }

  /**
   * The event's payload: the envelope's {@code payload} object, or the batch item itself. Do not
   * modify it; other listeners see the same tree.
   */
  public JsonNode payload() {
    return payload.node();
  }

  /**
   * The whole delivery body this event came from, for what sits beside the payload (the envelope's
   * {@code includes}, a batch's {@code users} and {@code apps} maps).
   */
  public JsonNode delivery() {
    return delivery.node();
  }

  /**
   * Maps the payload onto the caller's own type, or a record of {@link
   * io.servicehooks.core.payload} (which may also read the event: the envelope's {@code includes},
   * the subscribed user), with the consumer's {@code ObjectMapper}; unknown properties are ignored.
   *
   * @throws io.servicehooks.core.payload.MissingPayloadFieldException if {@code type} is a record
   *     of {@link io.servicehooks.core.payload} and the payload lacks one of its required fields;
   *     the message names the event, the record and the field
   * @throws IllegalArgumentException if the payload does not fit {@code type}
   */
  public <T> T payloadAs(Class<T> type) {
    Objects.requireNonNull(type, "type");
    try {
      ObjectReader reader = mapper.readerFor(type);
      if (PayloadTypes.PATTERNS.containsKey(type)) {
        // The records of io.servicehooks.core.payload may read the event beside the payload (the
        // envelope's includes, the subscribed user); a caller's own type keeps the mapper's
        // injectable values.
        reader = reader.with(new InjectableValues.Std().addValue(WebhookEvent.class, this));
      }
      return payload.as(reader, type);
    } catch (IOException e) {
      for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
        if (cause instanceof MissingPayloadFieldException missing) {
          throw new MissingPayloadFieldException(
              missing.record(),
              missing.field(),
              "payload of " + this.type + " event " + id + ": " + missing.getMessage());
        }
      }
      throw new IllegalArgumentException(
          "payload of " + this.type + " event " + id + " does not map to " + type.getName(), e);
    }
  }

  String dedupKey() {
    return dedupKey;
  }

  /** The payload as kept: read without building its tree ({@link OwnEvents}). */
  LazyJson payloadJson() {
    return payload;
  }

  /** This event as plain values for a durable store; {@link #restore} gives an equal event back. */
  public StoredEvent toStored() {
    return new StoredEvent(
        id,
        dedupKey,
        type,
        originalType,
        family,
        forUserId,
        tag,
        filter.text(mapper),
        payload.text(mapper),
        delivery.text(mapper));
  }

  /**
   * Rebuilds an event from its stored values, as listeners saw it when it arrived; its JSON is
   * parsed only when read.
   *
   * @param mapper used for the JSON and for {@link #payloadAs}; the consumer's own, for the same
   *     mapping as at arrival
   */
  public static WebhookEvent restore(StoredEvent stored, ObjectMapper mapper) {
    Objects.requireNonNull(stored, "stored");
    Objects.requireNonNull(mapper, "mapper");
    return new WebhookEvent(
        stored.id(),
        stored.dedupKey(),
        stored.type(),
        stored.originalType(),
        stored.family(),
        LazyJson.of(mapper, stored.filterJson()),
        stored.forUserId(),
        stored.tag(),
        LazyJson.of(mapper, stored.payloadJson()),
        LazyJson.of(mapper, stored.deliveryJson()),
        mapper);
  }

  @Override
  public String toString() {
    return "WebhookEvent[type=" + type + ", id=" + id + ", originalType=" + originalType + "]";
  }
}
