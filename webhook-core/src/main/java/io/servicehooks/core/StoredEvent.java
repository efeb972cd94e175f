package io.servicehooks.core;

import java.util.Objects;

/**
 * One event as a durable {@link EventInbox} keeps it: every value a listener can read from a {@link
 * WebhookEvent}, as plain strings, so a store can write it to a row and give it back later. Made by
 * {@link WebhookEvent#toStored()}, turned back by {@link WebhookEvent#restore(StoredEvent,
 * com.fasterxml.jackson.databind.ObjectMapper)}.
 *
 * <p>The JSON texts are exactly the slices of the verified delivery body (UTF-8 text), or the
 * serialized tree where the consumer built one; {@code null} where the event has none (a batch item
 * has no {@code filter}).
 *
 * @param id the event's id, see {@link WebhookEvent#id()}
 * @param dedupKey the key two copies of the event share; the unique key of a store's row
 * @param type the current type name
 * @param originalType the type name as it arrived
 * @param family the payload family
 * @param forUserId a batch's {@code for_user_id}, or {@code null}
 * @param tag the envelope's subscription tag, or {@code null}
 * @param filterJson the envelope's {@code filter} as JSON text, or {@code null}
 * @param payloadJson the payload as JSON text, or {@code null}
 * @param deliveryJson the whole delivery body the event came from, as JSON text
 * @param traceparent the W3C Trace Context {@code traceparent} of the delivery that stored the
 *     event, or {@code null}: the inbox keeps it with the row, and the consumer continues that
 *     trace when a worker runs the event (see the {@code servicehooks.inbox.process} observation)
 */
public record StoredEvent(
    String id,
    String dedupKey,
    String type,
    String originalType,
    PayloadFamily family,
    String forUserId,
    String tag,
    String filterJson,
    String payloadJson,
    String deliveryJson,
    String traceparent) {

  /** Checks the values that every event has. */
  public StoredEvent {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(dedupKey, "dedupKey");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(originalType, "originalType");
    Objects.requireNonNull(family, "family");
    Objects.requireNonNull(deliveryJson, "deliveryJson");
  }

  /** An event stored without a trace context, as before version 4 of the inbox's schema. */
  public StoredEvent(
      String id,
      String dedupKey,
      String type,
      String originalType,
      PayloadFamily family,
      String forUserId,
      String tag,
      String filterJson,
      String payloadJson,
      String deliveryJson) {
    this(
        id,
        dedupKey,
        type,
        originalType,
        family,
        forUserId,
        tag,
        filterJson,
        payloadJson,
        deliveryJson,
        null);
  }

  /** This event with {@code traceparent} (or none) as its trace context. */
  public StoredEvent withTraceparent(String traceparent) {
    return new StoredEvent(
        id,
        dedupKey,
        type,
        originalType,
        family,
        forUserId,
        tag,
        filterJson,
        payloadJson,
        deliveryJson,
        traceparent);
  }

  /** Names the event only: the JSON texts may be large and are the platform's user data. */
  @Override
  public String toString() {
    return "StoredEvent[type=" + type + ", id=" + id + "]";
  }
}
