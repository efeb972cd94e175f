package io.servicehooks.stream;

import io.servicehooks.core.WebhookResponse;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The stream's observations: one {@code servicehooks.stream.event} per event line handed to the
 * consumer, whose delivery observation becomes its child. Without a registry ({@link #NONE})
 * nothing is made and micrometer-observation need not be present.
 */
interface StreamObservations {

  StreamObservations NONE = (connection, handle) -> handle.get();

  /**
   * Hands one line to the consumer through {@code handle}, observed: the observation's scope is
   * open while {@code handle} runs (so the delivery is its child) and it stops with the answer.
   */
  CompletableFuture<WebhookResponse> event(
      long connection, Supplier<CompletableFuture<WebhookResponse>> handle);
}
