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
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xnio.IoUtils;

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
 * non-blocking, in which case they run on the IO thread too.
 *
 * <p>Slow and silent clients are the server's business, not the handler's. Undertow's defaults let
 * a client hold a connection for a minute or more by sending headers slowly, or headers and then
 * nothing; {@link WebhookServer} sets the following, and a server of your own needs the same:
 *
 * <pre>{@code
 * Undertow.builder()
 *     .setServerOption(UndertowOptions.REQUEST_PARSE_TIMEOUT, 5_000) // headers in full within 5 s
 *     .setServerOption(UndertowOptions.NO_REQUEST_TIMEOUT, 10_000)   // idle connection closed
 *     .setServerOption(UndertowOptions.MAX_HEADER_SIZE, 16 * 1024)
 *     .setSocketOption(Options.READ_TIMEOUT, 5_000)                  // silent client mid-body
 *     .setSocketOption(Options.CONNECTION_HIGH_WATER, 1000)          // connection cap
 *     .setSocketOption(Options.CONNECTION_LOW_WATER, 1000)
 * }</pre>
 */
public final class WebhookHandler implements HttpHandler {

  private static final Logger log = LoggerFactory.getLogger(WebhookHandler.class);
  private static final HttpString CONNECTION = new HttpString("Connection");

  /**
   * The most a body buffer starts with, whatever {@code Content-Length} claims; it doubles as bytes
   * arrive, up to the consumer's limit.
   */
  static final int INITIAL_BUFFER_BYTES = 16 * 1024;

  /** Set on a listener worker's thread while it runs one of this handler's tasks. */
  private static final ThreadLocal<Boolean> ON_WORKER =
      ThreadLocal.withInitial(() -> Boolean.FALSE);

  private final WebhookConsumer consumer;
  private final AdapterSupport adapter;
  private final Executor executor;
  private volatile Marked marked;
  private final Set<HttpServerExchange> receiving = ConcurrentHashMap.newKeySet();

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
    long declared = exchange.getRequestContentLength();
    if (declared > limit) {
      tooLarge(exchange);
      return;
    }
    // The declared length is unverified: a buffer sized from it would let anyone pin up to the
    // limit per connection by sending headers alone. Start small and grow as bytes arrive.
    int initial = (int) Math.min(declared >= 0 ? declared : limit, INITIAL_BUFFER_BYTES);
    Body body = new Body(limit, initial);
    receiving.add(exchange);
    exchange.addExchangeCompleteListener(
        (done, next) -> {
          receiving.remove(done);
          next.proceed();
        });
    exchange.getRequestReceiver().receivePartialBytes(body, body);
  }

  /**
   * Closes the connection of every delivery whose body has not fully arrived, so a server that is
   * shutting down waits only for deliveries already being answered. Nothing was verified, claimed
   * or acknowledged for a cut delivery: the platform retries it.
   */
  void cutUnfinishedBodies() {
    for (HttpServerExchange exchange : receiving) {
      IoUtils.safeClose(exchange.getConnection());
    }
  }

  int unfinishedBodies() {
    return receiving.size();
  }

  /** Collects one body into a buffer that doubles as bytes arrive, never past the limit. */
  private final class Body implements Receiver.PartialBytesCallback, Receiver.ErrorCallback {
    private final int limit;
    private byte[] bytes;
    private int size;
    private boolean finished;

    Body(int limit, int initial) {
      this.limit = limit;
      this.bytes = new byte[initial];
    }

    @Override
    public void handle(HttpServerExchange exchange, byte[] chunk, boolean last) {
      if (finished) {
        return;
      }
      if (chunk.length > limit - size) {
        finished = true;
        bytes = null;
        exchange.getRequestReceiver().pause();
        receiving.remove(exchange);
        tooLarge(exchange);
        return;
      }
      if (chunk.length > bytes.length - size) {
        int capacity = Math.max(size + chunk.length, (int) Math.min(limit, 2L * bytes.length));
        bytes = Arrays.copyOf(bytes, capacity);
      }
      System.arraycopy(chunk, 0, bytes, size, chunk.length);
      size += chunk.length;
      if (last) {
        finished = true;
        receiving.remove(exchange);
        received(exchange, size == bytes.length ? bytes : Arrays.copyOf(bytes, size));
        bytes = null;
      }
    }

    @Override
    public void error(HttpServerExchange exchange, IOException error) {
      if (finished) {
        return;
      }
      finished = true;
      bytes = null;
      receiving.remove(exchange);
      readFailed(exchange, error);
    }
  }

  private void received(HttpServerExchange exchange, byte[] body) {
    WebhookRequest request =
        WebhookRequest.post(
            exchange.getRequestHeaders().getFirst(WebhookRequest.SIGNATURE_HEADER), body);
    // On the IO thread: the core verifies, parses and claims here, and moves to the worker only
    // when listeners have to run. Non-blocking listeners run here too.
    complete(
        exchange,
        adapter.handle(request, adapter.listenersNonBlocking() ? null : listeners(exchange)));
  }

  /** The listeners' executor, wrapped once (not per delivery) so its threads are recognized. */
  private Executor listeners(HttpServerExchange exchange) {
    Executor workers = executor != null ? executor : exchange.getConnection().getWorker();
    Marked m = marked;
    if (m == null || m.workers() != workers) {
      m = new Marked(workers);
      marked = m;
    }
    return m;
  }

  /** Runs tasks on {@code workers}, marking their thread as one of this server's workers. */
  private record Marked(Executor workers) implements Executor {
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

  private static void complete(
      HttpServerExchange exchange, CompletableFuture<WebhookResponse> answer) {
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
