package io.servicehooks.postgres;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One inbox row as an operator sees it: which event, where it stands, and why it last failed. The
 * event's JSON is not included.
 *
 * @param id the row's id, for {@link InboxAdmin#retry(long)}
 * @param eventId the event's id
 * @param type the event's current type name
 * @param status where the row stands
 * @param attempts how many times a worker took it
 * @param receivedAt when it was stored
 * @param dueAt when it is next due (for a running row: when its lease ends)
 * @param doneAt when its listeners succeeded, for a done row
 * @param lastError the last failure's class and message (truncated), if it failed
 */
public record InboxEntry(
    long id,
    String eventId,
    String type,
    InboxStatus status,
    int attempts,
    Instant receivedAt,
    Instant dueAt,
    Optional<Instant> doneAt,
    Optional<String> lastError) {

  /** Checks the values. */
  public InboxEntry {
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(receivedAt, "receivedAt");
    Objects.requireNonNull(dueAt, "dueAt");
    Objects.requireNonNull(doneAt, "doneAt");
    Objects.requireNonNull(lastError, "lastError");
  }
}
