package io.servicehooks.postgres;

import java.util.Objects;

/**
 * An event that has just become a dead letter: its listeners failed {@code attempts} times, and the
 * inbox keeps it until a person retries or discards it ({@link InboxAdmin#retry(long)}, {@link
 * InboxAdmin#discard(long)}). Given to the {@link DeadLetterListener}s, for alerting or paging.
 *
 * @param id the row's id, for {@link InboxAdmin#retry(long)} and {@link InboxAdmin#discard(long)}
 * @param eventId the event's id
 * @param type the event's current type name
 * @param attempts how many attempts failed
 * @param lastError the last failure's class and message (truncated)
 */
public record DeadLetter(long id, String eventId, String type, int attempts, String lastError) {

  /** Checks the values. */
  public DeadLetter {
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(lastError, "lastError");
  }
}
