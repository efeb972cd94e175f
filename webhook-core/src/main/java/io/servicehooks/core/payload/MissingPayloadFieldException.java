package io.servicehooks.core.payload;

import java.util.Objects;

/**
 * A payload lacks a field its record requires, so the record cannot be filled without nulls. Thrown
 * from {@link io.servicehooks.core.WebhookEvent#payloadAs(Class)} and thus from a typed listener
 * ({@code on(PostCreated.class, ...)}), where it fails the listener like any exception: a
 * synchronous delivery is answered 500, a durable one is retried. The message names the record and
 * the field, never the payload's values.
 */
public final class MissingPayloadFieldException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  private final String record;
  private final String field;

  /**
   * @param record the record's simple name, e.g. {@code DirectMessage}
   * @param field the record component that has no value, e.g. {@code senderId}
   * @param message the full message
   */
  public MissingPayloadFieldException(String record, String field, String message) {
    super(message);
    this.record = Objects.requireNonNull(record, "record");
    this.field = Objects.requireNonNull(field, "field");
  }

  /** The record's simple name, e.g. {@code DirectMessage}. */
  public String record() {
    return record;
  }

  /** The record component that has no value, e.g. {@code senderId}. */
  public String field() {
    return field;
  }
}
