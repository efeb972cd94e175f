package io.servicehooks.undertow;

import io.servicehooks.core.AdapterSupport;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookResponse;
import io.undertow.io.Receiver;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.HeaderMap;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import io.undertow.util.Methods;
import io.undertow.util.SameThreadExecutor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves a {@link WebhookConsumer} from any Undertow server, at whatever path it is mounted:
 *
 * <pre>{@code
 * Undertow.builder()
 *     .addHttpListener(8080, "0.0.0.0")
 *     .setHandler(Handlers.path().addExactPath("/webhooks", new WebhookHandler(consumer)))
 *     .build()
 *     .start();
 * }</pre>
 *
 * <p>The body is read without blocking on the IO thread and never buffered past {@link
 * AdapterSupport#maxBodyBytes()} (a larger declared or streamed body gets 413 and the connection is
 * closed). CRC checks, refusals, duplicates and events nobody listens to are answered on the IO
 * thread; when listeners have to run, the delivery moves to Undertow's worker pool (or the executor
 * given here), unless the consumer declares its listeners non-blocking, in which case they run on
 * the IO thread too.
 */
public final class WebhookHandler implements HttpHandler {

  private static final Logger log = LoggerFactory.getLogger(WebhookHandler.class);
  private static final HttpString CONNECTION = new HttpString("Connection");

  private final WebhookConsumer consumer;
  private final AdapterSupport adapter;
  private final Executor executor;

  /** Runs deliveries on Undertow's worker pool. */
  public WebhookHandler(WebhookConsumer consumer) {
    this(consumer, null);
  }

  /**
   * Runs deliveries on {@code executor}; {@code null} means Undertow's worker pool. Ignored when
   * the consumer's listeners are non-blocking.
   */
  public WebhookHandler(WebhookConsumer consumer, Executor executor) {
    this.consumer = Objects.requireNonNull(consumer, "consumer");
    this.adapter = consumer.adapterSupport();
    this.executor = executor;
  }

  @Override
  public void handleRequest(HttpServerExchange exchange) {
    HttpString method = exchange.getRequestMethod();
    if (Methods.POST.equals(method)) {
      receive(exchange);
    } else {
      // CRC GETs and refused methods are answered at once by the core: no listener runs.
      send(
          exchange,
          consumer
              .handle(
                  new WebhookRequest(method.toString(), exchange.getQueryString(), Map.of(), null))
              .join());
    }
  }

  private void receive(HttpServerExchange exchange) {
    int limit = adapter.maxBodyBytes();
    if (exchange.getRequestContentLength() > limit) {
      tooLarge(exchange);
      return;
    }
    Receiver receiver = exchange.getRequestReceiver();
    receiver.setMaxBufferSize(limit);
    receiver.receiveFullBytes(this::received, this::readFailed);
  }

  private void received(HttpServerExchange exchange, byte[] body) {
    WebhookRequest request =
        WebhookRequest.post(
            exchange.getRequestHeaders().getFirst(WebhookRequest.SIGNATURE_HEADER), body);
    // On the IO thread: the core verifies, parses and claims here, and moves to the worker only
    // when listeners have to run. Non-blocking listeners run here too.
    Executor listeners =
        adapter.listenersNonBlocking()
            ? null
            : executor != null ? executor : exchange.getConnection().getWorker();
    complete(exchange, adapter.handle(request, listeners));
  }

  private static void complete(
      HttpServerExchange exchange, CompletableFuture<WebhookResponse> answer) {
    if (answer.isDone()) {
      send(exchange, answer.join());
    } else {
      // Keep the exchange open past this call; the original's thread will answer.
      exchange.dispatch(
          SameThreadExecutor.INSTANCE, () -> answer.thenAccept(r -> send(exchange, r)));
    }
  }

  private void readFailed(HttpServerExchange exchange, IOException error) {
    if (error instanceof Receiver.RequestToLargeException) {
      tooLarge(exchange);
    } else {
      log.debug("Could not read a delivery's body: {}", error.toString());
      exchange.getResponseHeaders().put(CONNECTION, "close");
      exchange.setPersistent(false);
      send(exchange, adapter.unreadableBody());
    }
  }

  private void tooLarge(HttpServerExchange exchange) {
    // The rest of the body is never read: the connection cannot be reused.
    exchange.getResponseHeaders().put(CONNECTION, "close");
    exchange.setPersistent(false);
    send(exchange, adapter.payloadTooLarge());
  }

  static void send(HttpServerExchange exchange, WebhookResponse response) {
    exchange.setStatusCode(response.status());
    HeaderMap headers = exchange.getResponseHeaders();
    response.headers().forEach((name, value) -> headers.put(headerName(name), value));
    exchange.getResponseSender().send(ByteBuffer.wrap(response.body()));
  }

  private static HttpString headerName(String name) {
    return name.equals("Content-Type") ? Headers.CONTENT_TYPE : new HttpString(name);
  }

  @Override
  public String toString() {
    return "WebhookHandler[" + consumer + "]";
  }
}
