package io.servicehooks.undertow;

import io.servicehooks.core.AdapterSupport;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookRequest;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.HttpString;
import io.undertow.util.Methods;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import org.xnio.Options;
import org.xnio.XnioIoThread;
import org.xnio.XnioWorker;

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
 * closed). The declared {@code Content-Length} is not trusted for sizing: the buffer starts at 16
 * KiB at most and doubles as bytes arrive. CRC checks, refusals, duplicates and events nobody
 * listens to are answered on the IO thread; when listeners have to run, the delivery moves to
 * Undertow's worker pool (or the executor given here), unless the consumer declares its listeners
 * non-blocking, in which case they run on the IO thread too. The consumer decides that: the handler
 * hands it the worker pool with every delivery. The deliveries an IO thread hands to Undertow's
 * worker pool in one turn of its loop go together ({@link TurnBatches}), and every answer is
 * written by the exchange's IO thread.
 *
 * <p>A client silent for 5 s mid-body has its connection closed by the handler itself, and nothing
 * is dispatched. The rest of slow and silent clients is the server's business: Undertow's defaults
 * let a client hold a connection for a minute or more by sending headers slowly, or by sending
 * nothing at all; {@link WebhookServer} sets the following, and a server of your own needs the
 * same:
 *
 * <pre>{@code
 * Undertow.builder()
 *     .setServerOption(UndertowOptions.REQUEST_PARSE_TIMEOUT, 5_000) // headers in full within 5 s
 *     .setServerOption(UndertowOptions.NO_REQUEST_TIMEOUT, 10_000)   // idle connection closed
 *     .setServerOption(UndertowOptions.MAX_HEADER_SIZE, 16 * 1024)
 *     .setSocketOption(Options.CONNECTION_HIGH_WATER, 1000)          // connection cap
 *     .setSocketOption(Options.CONNECTION_LOW_WATER, 1000)
 * }</pre>
 *
 * <p>The body is read by {@link BodyReceiver}; answers are written by {@link ExchangeAnswers}.
 */
public final class WebhookHandler implements HttpHandler {

  private final WebhookConsumer consumer;
  private final AdapterSupport adapter;
  private final Executor executor;
  private final BodyReceiver bodies;
  private volatile Batched batched;

  /** Runs deliveries on Undertow's worker pool. */
  public WebhookHandler(WebhookConsumer consumer) {
    this(consumer, null);
  }

  /**
   * Runs deliveries' blocking work on {@code executor}; {@code null} means Undertow's worker pool.
   * The consumer decides what goes there: nothing of a delivery whose listeners are declared
   * non-blocking and whose stores do not block.
   */
  public WebhookHandler(WebhookConsumer consumer, Executor executor) {
    this(consumer, executor, WebhookServer.DEFAULT_READ_TIMEOUT);
  }

  /**
   * As above, closing a connection silent for {@code readTimeout} mid-body ({@link BodyReceiver}).
   */
  WebhookHandler(WebhookConsumer consumer, Executor executor, Duration readTimeout) {
    this.consumer = Objects.requireNonNull(consumer, "consumer");
    this.adapter = consumer.adapterSupport();
    this.executor = executor;
    this.bodies = new BodyReceiver(adapter, this::received, readTimeout);
  }

  @Override
  public void handleRequest(HttpServerExchange exchange) {
    HttpString method = exchange.getRequestMethod();
    if (Methods.POST.equals(method)) {
      bodies.receive(exchange);
    } else {
      // CRC GETs and refused methods are answered at once by the core: no listener runs.
      ExchangeAnswers.send(
          exchange,
          consumer
              .handle(
                  new WebhookRequest(method.toString(), exchange.getQueryString(), Map.of(), null))
              .join());
    }
  }

  /** See {@link BodyReceiver#cutUnfinishedBodies()}. */
  void cutUnfinishedBodies() {
    bodies.cutUnfinishedBodies();
  }

  int unfinishedBodies() {
    return bodies.unfinishedBodies();
  }

  private void received(HttpServerExchange exchange, byte[] body) {
    WebhookRequest request =
        WebhookRequest.post(
            exchange.getRequestHeaders().getFirst(WebhookRequest.SIGNATURE_HEADER), body);
    // On the IO thread: the core verifies, parses and claims here, and decides itself whether
    // anything moves to the workers (listeners to run, a store that may block).
    ExchangeAnswers.complete(exchange, adapter.handle(request, workers(exchange)));
  }

  /**
   * The executor for blocking work: the one given, else Undertow's worker pool behind {@link
   * TurnBatches}, made once per pool (not per delivery).
   */
  private Executor workers(HttpServerExchange exchange) {
    if (executor != null) {
      return executor;
    }
    XnioWorker pool = exchange.getConnection().getWorker();
    Batched b = batched;
    if (b == null || b.pool() != pool) {
      b =
          new Batched(
              pool,
              new TurnBatches(pool, threads(pool), WebhookHandler::turnOf, AdapterSupport::refuse));
      batched = b;
    }
    return b.batches();
  }

  private record Batched(XnioWorker pool, TurnBatches batches) {}

  /** The pool's thread count; Undertow's default when the pool does not say. */
  private static int threads(XnioWorker pool) {
    try {
      Integer max = pool.getOption(Options.WORKER_TASK_MAX_THREADS);
      if (max != null && max > 0) {
        return max;
      }
    } catch (IOException unreadable) {
      // fall through to the default below
    }
    return Math.max(Runtime.getRuntime().availableProcessors(), 2) * 8;
  }

  /** An XNIO IO thread runs its own tasks after the turn of its loop that queued them. */
  private static Executor turnOf(Thread thread) {
    return thread instanceof XnioIoThread io ? io : null;
  }

  @Override
  public String toString() {
    return "WebhookHandler[" + consumer + "]";
  }
}
