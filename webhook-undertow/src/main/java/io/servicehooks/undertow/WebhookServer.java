package io.servicehooks.undertow;

import io.servicehooks.core.WebhookConsumer;
import io.undertow.Handlers;
import io.undertow.Undertow;
import io.undertow.UndertowOptions;
import io.undertow.server.DefaultResponseListener;
import io.undertow.server.HttpHandler;
import io.undertow.server.handlers.GracefulShutdownHandler;
import io.undertow.server.handlers.PathHandler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xnio.Options;

/**
 * A small embedded Undertow server for a {@link WebhookConsumer}, for bots that have no server of
 * their own:
 *
 * <pre>{@code
 * try (WebhookServer server = WebhookServer.builder(consumer).port(8080).path("/webhooks").build().start()) {
 *   ...
 * }
 * }</pre>
 *
 * {@link #close()} stops taking requests, lets in-flight deliveries finish (up to the shutdown
 * time-out), closes the consumer and stops Undertow. The server's own refusals carry the same JSON
 * error body as the consumer's: 404 {@code not_found} at any other path, 503 {@code shutting_down}
 * once closing ({@link ServerRefusals}).
 *
 * <p>This class holds the public {@link Builder}, nested as API, whose methods are documented
 * settings; the handlers it serves are their own classes ({@link WebhookHandler}, {@link
 * HealthHandler}, {@link ScrapeHandler}), as is TLS from a key store ({@link KeyStoreTls}).
 */
public final class WebhookServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(WebhookServer.class);

  /** Default {@link Builder#requestParseTimeout}: 5 s. */
  public static final Duration DEFAULT_REQUEST_PARSE_TIMEOUT = Duration.ofSeconds(5);

  /** Default {@link Builder#readTimeout}: 5 s. */
  public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(5);

  /** Default {@link Builder#idleTimeout}: 10 s. */
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(10);

  /** Default {@link Builder#maxHeaderBytes}: 16 KiB. */
  public static final int DEFAULT_MAX_HEADER_BYTES = 16 * 1024;

  /** Default {@link Builder#maxConnections}: 1,000. */
  public static final int DEFAULT_MAX_CONNECTIONS = 1000;

  /** Default {@link Builder#shutdownTimeout}: 30 s. */
  public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);

  private final Undertow undertow;
  private final WebhookHandler handler;
  private final GracefulShutdownHandler shutdown;
  private final WebhookConsumer consumer;
  private final Duration shutdownTimeout;
  private final String path;
  private final java.util.List<String> routes;
  private final boolean tls;
  private final String host;
  private final int requestedPort;
  private volatile int boundPort = -1;
  private volatile boolean started;
  private volatile boolean closed;

  private WebhookServer(Builder b) {
    this.consumer = b.consumer;
    this.shutdownTimeout = b.shutdownTimeout;
    this.path = b.path;
    this.routes = java.util.List.copyOf(b.routes.keySet());
    this.tls = b.sslContext != null;
    this.host = b.host;
    this.requestedPort = b.port;
    PathHandler paths = Handlers.path(ServerRefusals.NOT_FOUND_HANDLER);
    this.handler = new WebhookHandler(b.consumer, null, b.readTimeout);
    paths.addExactPath(b.path, handler);
    b.routes.forEach(paths::addExactPath);
    this.shutdown = Handlers.gracefulShutdown(paths);
    DefaultResponseListener shuttingDown = ServerRefusals.shuttingDown(() -> closed);
    HttpHandler root =
        exchange -> {
          exchange.addDefaultResponseListener(shuttingDown);
          shutdown.handleRequest(exchange);
        };
    Undertow.Builder ub =
        Undertow.builder()
            .setHandler(root)
            // Headers must arrive in full within this, however slowly they trickle.
            .setServerOption(UndertowOptions.REQUEST_PARSE_TIMEOUT, millis(b.requestParseTimeout))
            // A connection with no request in progress (new or kept alive) is closed after this.
            .setServerOption(UndertowOptions.NO_REQUEST_TIMEOUT, millis(b.idleTimeout))
            .setServerOption(UndertowOptions.MAX_HEADER_SIZE, b.maxHeaderBytes)
            // Past the cap, connections wait in the accept backlog instead of costing memory.
            .setSocketOption(Options.CONNECTION_HIGH_WATER, b.maxConnections)
            .setSocketOption(Options.CONNECTION_LOW_WATER, b.maxConnections);
    if (b.ioThreads > 0) {
      ub.setIoThreads(b.ioThreads);
    }
    if (b.workerThreads > 0) {
      ub.setWorkerThreads(b.workerThreads);
    }
    if (tls) {
      ub.addHttpsListener(b.port, b.host, b.sslContext);
    } else {
      ub.addHttpListener(b.port, b.host);
    }
    this.undertow = ub.build();
  }

  private static int millis(Duration d) {
    return (int) d.toMillis();
  }

  /** A builder for a server around {@code consumer}. */
  public static Builder builder(WebhookConsumer consumer) {
    return new Builder(consumer);
  }

  /**
   * Binds and starts serving; returns this server.
   *
   * @throws UncheckedIOException if the address cannot be bound (the port is taken, the host is not
   *     an address of this machine); the message names the host and port
   * @throws IllegalStateException if the server was closed, or Undertow failed to start for another
   *     reason (the message names the host and port too)
   */
  public synchronized WebhookServer start() {
    if (closed) {
      throw new IllegalStateException("server was closed");
    }
    if (!started) {
      try {
        undertow.start();
      } catch (RuntimeException e) {
        throw startFailure(e);
      }
      started = true;
      boundPort = address().getPort();
      // One line names what serves where and how: the consumer names its acknowledgement and
      // dedup store, never a secret.
      log.info(
          "Serving webhooks at {}://{}:{}{}{} with {}",
          scheme(),
          host(),
          port(),
          path,
          routes.isEmpty() ? "" : " (also " + String.join(", ", routes) + ")",
          consumer);
    }
    return this;
  }

  /**
   * Undertow reports a taken port as a bare {@code RuntimeException} around a {@code BindException}
   * whose message ("Address already in use") names neither host nor port.
   */
  private RuntimeException startFailure(RuntimeException e) {
    try {
      undertow.stop(); // its XNIO worker threads were started before the bind
    } catch (RuntimeException stopFailure) {
      e.addSuppressed(stopFailure);
    }
    String where = scheme() + "://" + host + ":" + requestedPort;
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof IOException io) {
        return new UncheckedIOException(
            "cannot bind " + where + " for webhooks: " + io.getMessage(), io);
      }
    }
    return new IllegalStateException(
        "cannot start the webhook server at " + where + ": " + e.getMessage(), e);
  }

  private String scheme() {
    return tls ? "https" : "http";
  }

  /** The port actually bound (useful after {@code port(0)}); still answers once closed. */
  public int port() {
    if (!started) {
      throw new IllegalStateException("server is not started");
    }
    return boundPort;
  }

  private String host() {
    return address().getHostString();
  }

  private InetSocketAddress address() {
    if (!started) {
      throw new IllegalStateException("server is not started");
    }
    return (InetSocketAddress) undertow.getListenerInfo().get(0).getAddress();
  }

  /** How many deliveries are still waiting for their body; for tests. */
  int unfinishedBodies() {
    return handler.unfinishedBodies();
  }

  /** The webhook path. */
  public String path() {
    return path;
  }

  /**
   * Stops taking requests (new ones get 503), waits for in-flight requests up to the shutdown
   * time-out, closes the consumer (draining its queue) and stops Undertow. Idempotent.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (started) {
      shutdown.shutdown();
      // A client that sent headers and then stalls holds no claim; waiting for it would hold
      // SIGTERM for the whole drain.
      handler.cutUnfinishedBodies();
      try {
        if (!shutdown.awaitShutdown(shutdownTimeout.toMillis())) {
          log.warn("Requests still running after {}; stopping anyway", shutdownTimeout);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    consumer.close();
    if (started) {
      undertow.stop();
    }
  }

  /**
   * Where this server serves, for logs and debuggers: scheme, host, port (the bound one once
   * started, the configured one before), path and state ({@code not started}, {@code serving},
   * {@code closed}).
   */
  @Override
  public String toString() {
    int shownPort = boundPort >= 0 ? boundPort : requestedPort;
    String state = closed ? "closed" : started ? "serving" : "not started";
    return "WebhookServer[scheme="
        + scheme()
        + ", host="
        + host
        + ", port="
        + shownPort
        + ", path="
        + path
        + ", state="
        + state
        + "]";
  }

  /** Configures a {@link WebhookServer}; every method validates its argument at once. */
  public static final class Builder {
    private final WebhookConsumer consumer;
    private String host = "0.0.0.0";
    private int port = 8080;
    private String path = "/webhooks";
    private SSLContext sslContext;
    private int ioThreads;
    private int workerThreads;
    private Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;
    private Duration requestParseTimeout = DEFAULT_REQUEST_PARSE_TIMEOUT;
    private Duration readTimeout = DEFAULT_READ_TIMEOUT;
    private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
    private int maxHeaderBytes = DEFAULT_MAX_HEADER_BYTES;
    private int maxConnections = DEFAULT_MAX_CONNECTIONS;
    private final Map<String, HttpHandler> routes = new LinkedHashMap<>();

    private Builder(WebhookConsumer consumer) {
      this.consumer = Objects.requireNonNull(consumer, "consumer");
    }

    /** The address to bind (default {@code 0.0.0.0}). */
    public Builder host(String host) {
      if (host == null || host.isBlank()) {
        throw new IllegalArgumentException("host must not be blank");
      }
      this.host = host;
      return this;
    }

    /** The port to bind (default 8080); 0 picks a free one, see {@link WebhookServer#port()}. */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be 0 to 65535, was " + port);
      }
      this.port = port;
      return this;
    }

    /** The webhook path (default {@code /webhooks}). */
    public Builder path(String path) {
      if (path == null || !path.startsWith("/")) {
        throw new IllegalArgumentException("path must start with '/', was " + path);
      }
      this.path = path;
      return this;
    }

    /**
     * Serves {@code GET path} with 200 {@code {"status":"UP"}} while the server serves, for a load
     * balancer or a liveness probe (as the standalone consumer's {@code /health}).
     */
    public Builder health(String path) {
      return route(path, new HealthHandler());
    }

    /**
     * Serves {@code GET path} with the text {@code scrape} gives, as Prometheus's text format, e.g.
     * {@code metrics("/metrics", prometheusRegistry::scrape)}; the scrape runs on a worker thread.
     * Keeps this module free of any metrics library.
     */
    public Builder metrics(String path, java.util.function.Supplier<String> scrape) {
      Objects.requireNonNull(scrape, "scrape");
      return route(path, new ScrapeHandler(scrape));
    }

    /** Serves another handler at an exact path beside the webhook, e.g. a health check. */
    public Builder route(String path, HttpHandler handler) {
      if (path == null || !path.startsWith("/")) {
        throw new IllegalArgumentException("route path must start with '/', was " + path);
      }
      routes.put(path, Objects.requireNonNull(handler, "handler"));
      return this;
    }

    /** Serves HTTPS with this context instead of plain HTTP. */
    public Builder tls(SSLContext sslContext) {
      this.sslContext = Objects.requireNonNull(sslContext, "sslContext");
      return this;
    }

    /**
     * Serves HTTPS with the key and certificate in a PKCS#12 (or JKS) key store; the password is
     * used once here and not kept.
     */
    public Builder tls(Path keyStore, char[] password) {
      Objects.requireNonNull(keyStore, "keyStore");
      Objects.requireNonNull(password, "password");
      this.sslContext = KeyStoreTls.load(keyStore, password);
      return this;
    }

    /** Undertow IO threads (default: Undertow's, one per core). */
    public Builder ioThreads(int ioThreads) {
      if (ioThreads < 1) {
        throw new IllegalArgumentException("ioThreads must be positive, was " + ioThreads);
      }
      this.ioThreads = ioThreads;
      return this;
    }

    /** Undertow worker threads, which run blocking listeners (default: Undertow's). */
    public Builder workerThreads(int workerThreads) {
      if (workerThreads < 1) {
        throw new IllegalArgumentException("workerThreads must be positive, was " + workerThreads);
      }
      this.workerThreads = workerThreads;
      return this;
    }

    /**
     * How long {@link WebhookServer#close()} waits for in-flight requests (default {@link
     * #DEFAULT_SHUTDOWN_TIMEOUT}).
     */
    public Builder shutdownTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.isNegative()) {
        throw new IllegalArgumentException("shutdownTimeout must not be negative, was " + timeout);
      }
      this.shutdownTimeout = timeout;
      return this;
    }

    /**
     * How long a request's line and headers may take to arrive in full, however slowly they trickle
     * (default {@link #DEFAULT_REQUEST_PARSE_TIMEOUT}); past it the connection is closed.
     */
    public Builder requestParseTimeout(Duration timeout) {
      this.requestParseTimeout = timeout("requestParseTimeout", timeout);
      return this;
    }

    /**
     * The longest silence allowed from a client while its body is being read (default {@link
     * #DEFAULT_READ_TIMEOUT}); past it the connection is closed and nothing is dispatched. Once the
     * body has arrived it no longer runs: listeners may take longer. The request line and headers
     * are bounded as a whole by {@link #requestParseTimeout}.
     */
    public Builder readTimeout(Duration timeout) {
      this.readTimeout = timeout("readTimeout", timeout);
      return this;
    }

    /**
     * How long a connection may stay open with no request in progress, whether new or kept alive
     * between requests (default {@link #DEFAULT_IDLE_TIMEOUT}).
     */
    public Builder idleTimeout(Duration timeout) {
      this.idleTimeout = timeout("idleTimeout", timeout);
      return this;
    }

    /**
     * The most bytes a request line and headers may take (default {@link
     * #DEFAULT_MAX_HEADER_BYTES}); a larger request is refused and its connection closed.
     */
    public Builder maxHeaderBytes(int maxHeaderBytes) {
      if (maxHeaderBytes < 1024) {
        throw new IllegalArgumentException(
            "maxHeaderBytes must be at least 1024, was " + maxHeaderBytes);
      }
      this.maxHeaderBytes = maxHeaderBytes;
      return this;
    }

    /**
     * The most connections served at once (default {@link #DEFAULT_MAX_CONNECTIONS}); further
     * clients wait in the operating system's accept backlog until one closes.
     */
    public Builder maxConnections(int maxConnections) {
      if (maxConnections < 1) {
        throw new IllegalArgumentException(
            "maxConnections must be positive, was " + maxConnections);
      }
      this.maxConnections = maxConnections;
      return this;
    }

    private static Duration timeout(String name, Duration timeout) {
      Objects.requireNonNull(timeout, name);
      if (timeout.toMillis() < 1 || timeout.toMillis() > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            name + " must be 1 ms to " + Integer.MAX_VALUE + " ms, was " + timeout);
      }
      return timeout;
    }

    /** Builds the server, not yet started. */
    public WebhookServer build() {
      return new WebhookServer(this);
    }
  }
}
