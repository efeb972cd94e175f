package io.servicehooks.undertow;

import io.servicehooks.core.WebhookResponse;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.HeaderMap;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import io.undertow.util.SameThreadExecutor;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

/**
 * Writes a {@link WebhookResponse} to its exchange: at once on the exchange's IO thread, otherwise
 * handed to that thread.
 */
final class ExchangeAnswers {

  private ExchangeAnswers() {}

  /** Sends {@code answer} now if it is ready, else keeps the exchange open until it is. */
  static void complete(HttpServerExchange exchange, CompletableFuture<WebhookResponse> answer) {
    if (answer.isDone()) {
      send(exchange, answer.join());
    } else {
      // Keep the exchange open past this call; the original's thread will answer.
      exchange.dispatch(
          SameThreadExecutor.INSTANCE, () -> answer.thenAccept(r -> answer(exchange, r)));
    }
  }

  /**
   * Sends an answer that was not ready on the IO thread. The write goes to the exchange's IO
   * thread, whichever thread brought the answer (a listener worker, a dedup store's callback such
   * as Lettuce's event loop): writing and resuming reads from a foreign thread wakes the IO
   * thread's selector under its lock for every answer, while the IO thread takes the answers queued
   * for it in one go between two turns of its loop (benchmarks/RESULTS.md: about 12% more
   * deliveries/s with dedup on Redis; "Webhook path" for listener workers).
   */
  private static void answer(HttpServerExchange exchange, WebhookResponse response) {
    if (exchange.isInIoThread()) {
      send(exchange, response);
      return;
    }
    try {
      exchange.getIoThread().execute(() -> send(exchange, response));
    } catch (RejectedExecutionException stopping) {
      send(exchange, response);
    }
  }

  /** Copies the response's status, headers and body to the exchange, unchanged. */
  static void send(HttpServerExchange exchange, WebhookResponse response) {
    exchange.setStatusCode(response.status());
    HeaderMap headers = exchange.getResponseHeaders();
    response.headers().forEach((name, value) -> headers.put(headerName(name), value));
    exchange.getResponseSender().send(ByteBuffer.wrap(response.body()));
  }

  private static HttpString headerName(String name) {
    return name.equals("Content-Type") ? Headers.CONTENT_TYPE : new HttpString(name);
  }
}
