package io.servicehooks.postgres;

/**
 * Called once each time an event becomes a dead letter, for alerting or paging ({@link
 * PostgresInbox.Builder#onDeadLetter}). It runs on the inbox worker that recorded the last failure,
 * after the row is committed dead: keep it quick and hand slow work (an HTTP call to a pager) to an
 * executor of your own. What it throws is logged and otherwise ignored; the row stays dead.
 */
@FunctionalInterface
public interface DeadLetterListener {

  /** An event has just become a dead letter. */
  void deadLettered(DeadLetter letter);
}
