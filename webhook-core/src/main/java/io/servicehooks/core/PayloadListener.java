package io.servicehooks.core;

/**
 * A listener that takes an event's payload as a typed record of {@link
 * io.servicehooks.core.payload} ({@link WebhookConsumer.Builder#on(Class, PayloadListener)}); a
 * listener that needs the event's id or raw JSON takes the {@link WebhookEvent} instead.
 *
 * @param <T> the payload record
 */
@FunctionalInterface
public interface PayloadListener<T> {

  /** Handles one event's payload. */
  void onPayload(T payload) throws Exception;
}
