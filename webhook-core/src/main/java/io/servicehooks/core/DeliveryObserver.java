package io.servicehooks.core;

/**
 * Told the status of every answer to a verified delivery (signature checked, payload parsed), once
 * the answer is decided: for example to notice that a consumer is refusing deliveries (503 while
 * its dedup store or inbox is down) although it is up. webhook-catchup uses it, so that a period
 * when every delivery was refused counts as downtime and is replayed. Register it with {@link
 * WebhookConsumer.Builder#onAnswered}.
 *
 * <p>Called on the thread that completes the answer (a server IO thread, a worker, a store's
 * callback thread): it must return at once and never block. An exception it throws is logged and
 * changes nothing.
 */
@FunctionalInterface
public interface DeliveryObserver {

  /**
   * A verified delivery was answered.
   *
   * @param status the HTTP status of the answer: 2xx when the platform will not send it again, 5xx
   *     when it was refused and the platform retries it
   */
  void answered(int status);
}
