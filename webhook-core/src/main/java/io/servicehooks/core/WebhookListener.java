package io.servicehooks.core;

/**
 * Receives the events a {@link WebhookConsumer} routes to it.
 *
 * <p>An event counts as handled only when every listener for it returned normally. A listener that
 * throws makes the delivery answer 500 and releases the event's dedup claim, so the platform's
 * retry (or a replay) runs the listeners again: listeners must be idempotent.
 */
@FunctionalInterface
public interface WebhookListener {

  /** Handles one event. */
  void onEvent(WebhookEvent event) throws Exception;
}
