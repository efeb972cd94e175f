package io.servicehooks.undertow;

import io.servicehooks.core.WebhookResponse;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.HeaderMap;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import io.undertow.util.SameThreadExecutor;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Writes a {@link WebhookResponse} to its exchange from whichever thread the answer is ready on: at
 * once on the IO thread or a listener worker, otherwise handed to the exchange's IO thread.
 */
final class ExchangeAnswers {

  /** Set on a listener worker's thread while it runs one of the handler's tasks. */
  private static final ThreadLocal<Boolean> ON_WORKER =
      ThreadLocal.withInitial(() -> Boolean.FALSE);

  private ExchangeAnswers() {}

  /** Runs tasks on {@code workers}, marking their thread as one of this server's workers. */
  record Marked(Executor workers) implements Executor {
    @Override
    public void execute(Runnable task) {
      workers.execute(
          () -> {
            ON_WORKER.set(Boolean.TRUE);
            try {
              task.run();
            } finally {
              ON_WORKER.set(Boolean.FALSE);
            }
          });
    }
  }

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
   * Sends an answer that was not ready on the IO thread. From a listener worker it is written at
   * once. From any other thread (a dedup store's callback, such as Lettuce's event loop, or the
   * thread of listeners that do not block) the write goes to the exchange's IO thread: writing and
   * resuming reads from a foreign thread wakes the IO thread's selector under its lock for every
   * answer, which costs more than handing it the write (benchmarks/RESULTS.md: about 12% more
   * deliveries/s with dedup on Redis).
   */
  private static void answer(HttpServerExchange exchange, WebhookResponse response) {
    if (exchange.isInIoThread() || ON_WORKER.get()) {
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
