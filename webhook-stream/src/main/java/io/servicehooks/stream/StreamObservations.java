package io.servicehooks.stream;

import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookResponse;
import java.util.concurrent.CompletableFuture;

/**
 * The stream's observations: one {@code servicehooks.stream.event} per event line handed to the
 * consumer, whose delivery observation becomes its child. Without a registry ({@link #NONE})
 * nothing is made and micrometer-observation need not be present.
 */
interface StreamObservations {

  StreamObservations NONE = (connection, consumer, line) -> consumer.handleFromOwnConnection(line);

  /**
   * Hands one line to {@code consumer} ({@link WebhookConsumer#handleFromOwnConnection}), observed:
   * the observation's scope is open while the consumer takes it (so the delivery is its child) and
   * it stops with the answer.
   */
  CompletableFuture<WebhookResponse> event(long connection, WebhookConsumer consumer, byte[] line);
}
