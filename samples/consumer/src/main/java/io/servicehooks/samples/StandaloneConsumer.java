package io.servicehooks.samples;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.postgres.DatabaseMessages;
import io.servicehooks.postgres.PostgresInbox;
import io.servicehooks.redis.RedisDeduplicator;
import io.servicehooks.stream.ActivityStream;
import io.servicehooks.undertow.WebhookServer;
import io.undertow.Handlers;
import io.undertow.Undertow;
import io.undertow.server.HttpHandler;
import io.undertow.server.handlers.PathHandler;
import io.undertow.util.Headers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone consumer: a {@link WebhookServer} with {@code GET /health}, Prometheus text at
 * {@code GET /metrics}, and one INFO line per handled event, written once all the event's listeners
 * have finished. With a management port ({@link Settings#managementPort()}) health and metrics are
 * served only there, by a second small Undertow, so that the webhook port exposed to the internet
 * answers 404 for them. With {@link DatabaseSettings} it runs in durable mode: each delivery is
 * answered once its events are committed to a {@link PostgresInbox}, whose workers then run the
 * listeners (and write the INFO line). With a Redis URL ({@link Settings#redisUrl()}) the memory of
 * handled events is a {@link RedisDeduplicator} that every instance pointing at the same Redis and
 * prefix shares. {@link ConsumerMain} runs it from the command line; the demo and the tests start
 * it in-process.
 */
public final class StandaloneConsumer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger("servicehooks.consumer");

  private static final Pattern USER_INFO = Pattern.compile("//[^/?#]*@");

  private final PrometheusMeterRegistry registry;
  private final WebhookServer server;
  private final Undertow management; // null: health and metrics beside the webhook
  private final HikariDataSource database; // null: not durable
  private final RedisDeduplicator store; // null: dedup in this process's memory
  private final WebhookConsumer consumer;
  private final ActivityStream stream; // null: webhook only
  private final Probes probes;

  private StandaloneConsumer(
      PrometheusMeterRegistry registry,
      WebhookServer server,
      Undertow management,
      HikariDataSource database,
      RedisDeduplicator store,
      WebhookConsumer consumer,
      ActivityStream stream,
      Probes probes) {
    this.probes = probes;
    this.registry = registry;
    this.server = server;
    this.management = management;
    this.database = database;
    this.store = store;
    this.consumer = consumer;
    this.stream = stream;
  }

  /**
   * Redis could not be reached when the consumer started: it does not serve without the memory it
   * shares with the other instances. The message names the URL without its password.
   */
  public static final class DedupStoreException extends RuntimeException {
    DedupStoreException(String message) {
      super(message, null, false, false);
    }
  }

  /** {@code text} without the password of {@code uri}'s user info, should a message quote it. */
  static String withoutPassword(String text, String uri) {
    Matcher m = USER_INFO.matcher(uri);
    if (text == null || !m.find()) {
      return text;
    }
    String info = uri.substring(m.start() + 2, m.end() - 1);
    String password = info.substring(info.indexOf(':') + 1);
    return password.isEmpty() ? text : text.replace(password, "***");
  }

  /** {@code uri} with any user info ({@code user:password@}) replaced by {@code ***@}. */
  static String redacted(String uri) {
    return uri == null ? null : USER_INFO.matcher(uri).replaceAll("//***@");
  }

  /** The database of the durable mode could not be reached, or its schema not created. */
  public static final class DatabaseUnavailableException extends RuntimeException {
    DatabaseUnavailableException(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * Starts serving.
   *
   * @param settings where and how to serve
   * @param customizer adds the caller's own listeners to the consumer (the demo's, a test's)
   */
  public static StandaloneConsumer start(
      Settings settings, Consumer<WebhookConsumer.Builder> customizer) {
    return start(settings, null, (builder, registry) -> customizer.accept(builder));
  }

  /**
   * Starts serving; the customizer also gets the registry that {@code /metrics} scrapes, for meters
   * of its own (catch-up's counters).
   */
  public static StandaloneConsumer start(
      Settings settings, BiConsumer<WebhookConsumer.Builder, MeterRegistry> customizer) {
    return start(settings, null, customizer);
  }

  /**
   * Starts serving, in durable mode when {@code database} is not {@code null}.
   *
   * @param settings where and how to serve
   * @param database the inbox's database, or {@code null} to acknowledge synchronously
   * @param customizer adds the caller's own listeners to the consumer (the demo's, a test's)
   * @throws DatabaseUnavailableException if the database cannot be reached or its schema created
   */
  public static StandaloneConsumer start(
      Settings settings, DatabaseSettings database, Consumer<WebhookConsumer.Builder> customizer) {
    return start(settings, database, (builder, registry) -> customizer.accept(builder));
  }

  /**
   * Starts serving, in durable mode when {@code database} is not {@code null}; the customizer also
   * gets the registry that {@code /metrics} scrapes.
   *
   * @throws DatabaseUnavailableException if the database cannot be reached or its schema created
   */
  public static StandaloneConsumer start(
      Settings settings,
      DatabaseSettings database,
      BiConsumer<WebhookConsumer.Builder, MeterRegistry> customizer) {
    return start(settings, database, customizer, null, false);
  }

  /**
   * As {@link #start(Settings, DatabaseSettings, BiConsumer)}, also receiving the activity stream
   * when {@code stream} is not null; with {@code DELIVERY=stream} no webhook is served and {@code
   * PORT} answers only {@code /health} and {@code /metrics}.
   */
  static StandaloneConsumer start(
      Settings settings,
      DatabaseSettings database,
      BiConsumer<WebhookConsumer.Builder, MeterRegistry> customizer,
      StreamWiring.Config stream,
      boolean webhookCatchUp) {
    if (settings.redisUrl() != null && database != null) {
      // Durable mode: the inbox table is the dedup every instance shares, so a Redis store would
      // connect, fail start-up when Redis is down, and write nothing (issue 21, point 3).
      log.warn(
          "REDIS_URL is not used for dedup in durable mode (DATABASE_URL): the inbox table is the"
              + " dedup every instance shares; catch-up may still keep its heartbeat there");
    }
    RedisDeduplicator store =
        settings.redisUrl() == null || database != null ? null : connect(settings);
    try {
      return start(settings, database, customizer, store, stream, webhookCatchUp);
    } catch (RuntimeException e) {
      if (store != null) {
        store.close();
      }
      throw e;
    }
  }

  private static RedisDeduplicator connect(Settings settings) {
    String where = redacted(settings.redisUrl());
    RedisDeduplicator.Builder redis = RedisDeduplicator.builder(settings.redisUrl());
    if (settings.redisPrefix() != null) {
      redis.prefix(settings.redisPrefix());
    }
    RedisDeduplicator store;
    try {
      store = redis.build();
    } catch (RuntimeException e) {
      // Lettuce's message names host and port; the store already took any password out of it.
      Throwable root = e;
      while (root.getCause() != null && root.getCause() != root) {
        root = root.getCause();
      }
      String reason = root == e ? e.getMessage() : e.getMessage() + ": " + root.getMessage();
      throw new DedupStoreException(
          "cannot connect to Redis at "
              + where
              + " (REDIS_URL): "
              + withoutPassword(redacted(reason), settings.redisUrl()));
    }
    log.info(
        "Dedup on Redis at {}, prefix {}: every instance with this REDIS_URL and prefix shares it",
        where,
        store.prefix());
    return store;
  }

  private static StandaloneConsumer start(
      Settings settings,
      DatabaseSettings database,
      BiConsumer<WebhookConsumer.Builder, MeterRegistry> customizer,
      RedisDeduplicator store,
      StreamWiring.Config streamConfig,
      boolean webhookCatchUp) {
    PrometheusMeterRegistry registry = ConsumerRegistry.create();
    WebhookConsumer.Builder builder =
        WebhookConsumer.builder()
            .consumerSecrets(settings.consumerSecrets())
            .meterRegistry(registry)
            .listenersNonBlocking(settings.inlineListeners());
    if (store != null) {
      builder.deduplicator(store); // before the customizer, which may still replace it
    }
    customizer.accept(builder, registry);
    if (settings.logEvents()) {
      // Registered after the caller's listeners (they run in registration order), so the line
      // means every listener of the event has finished; logback flushes it before the listener
      // returns, so in synchronous mode it is on stdout before the 200 is sent (CrashIT relies
      // on this). In durable mode the inbox's workers run it, after the event's other listeners.
      builder.onAny(event -> log.info("Handled {} event {}", event.type(), event.id()));
    }
    PostgresInbox[] inbox = new PostgresInbox[1];
    HikariDataSource pool =
        database == null ? null : durable(settings, database, registry, builder, inbox);
    ActivityStream[] streamRef = new ActivityStream[1];
    HttpHandler health =
        exchange -> {
          ActivityStream s = streamRef[0];
          exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
          // Durable mode: DOWN when an inbox thread is gone or its loops keep failing, so an
          // orchestrator replaces an instance that answers 200 but no longer runs what it stored.
          java.util.Optional<String> problem =
              inbox[0] == null ? java.util.Optional.empty() : inbox[0].problem();
          if (problem.isPresent()) {
            exchange.setStatusCode(503);
            exchange
                .getResponseSender()
                .send("{\"status\":\"DOWN\",\"inbox\":\"" + jsonText(problem.get()) + "\"}");
            return;
          }
          if (s != null && !s.healthy()) {
            // Down 60 s or refused: an orchestrator should see it (and restart or alert).
            exchange.setStatusCode(503);
            exchange
                .getResponseSender()
                .send("{\"status\":\"DOWN\",\"stream\":\"" + s.state() + "\"}");
            return;
          }
          exchange.getResponseSender().send("{\"status\":\"UP\"}");
        };
    HttpHandler metrics =
        exchange -> {
          if (exchange.isInIoThread()) {
            exchange.dispatch(() -> scrape(registry, exchange));
            return;
          }
          scrape(registry, exchange);
        };
    WebhookConsumer consumer = builder.build();
    if (streamConfig != null && streamConfig.streamOnly()) {
      return streamOnly(
          settings,
          registry,
          consumer,
          health,
          metrics,
          pool,
          store,
          streamConfig,
          webhookCatchUp,
          streamRef);
    }
    WebhookServer.Builder server =
        WebhookServer.builder(consumer)
            .host(settings.host())
            .port(settings.port())
            .path(settings.path());
    Probes probes = new Probes(pool, System::nanoTime);
    if (!settings.hasManagementPort()) {
      server
          .route("/health", health)
          .route("/health/live", probes.live())
          .route("/health/ready", probes.ready())
          .route("/metrics", metrics);
    }
    if (settings.ioThreads() > 0) {
      server.ioThreads(settings.ioThreads());
    }
    if (settings.workerThreads() > 0) {
      server.workerThreads(settings.workerThreads());
    }
    Undertow management = null;
    try {
      if (settings.hasManagementPort()) {
        management = management(settings, health, probes, metrics);
        startManagement(management, settings);
        log.info(
            "Serving /health and /metrics at http://{}:{}",
            settings.managementHost(),
            boundPort(management));
      }
      WebhookServer started = server.build().start();
      ActivityStream stream =
          streamConfig == null
              ? null
              : StreamWiring.start(streamConfig, consumer, registry, webhookCatchUp);
      streamRef[0] = stream;
      return new StandaloneConsumer(
          registry, started, management, pool, store, consumer, stream, probes);
    } catch (RuntimeException e) {
      if (management != null) {
        management.stop();
      }
      if (pool != null) {
        pool.close();
      }
      throw e;
    }
  }

  /**
   * {@code DELIVERY=stream}: no webhook; {@code PORT} serves only health and metrics, and the
   * stream feeds the consumer.
   */
  private static StandaloneConsumer streamOnly(
      Settings settings,
      PrometheusMeterRegistry registry,
      WebhookConsumer consumer,
      HttpHandler health,
      HttpHandler metrics,
      HikariDataSource pool,
      RedisDeduplicator store,
      StreamWiring.Config streamConfig,
      boolean webhookCatchUp,
      ActivityStream[] streamRef) {
    Settings onPort =
        new Settings(
            settings.consumerSecrets(),
            settings.host(),
            settings.port(),
            settings.path(),
            settings.inlineListeners(),
            settings.logEvents(),
            settings.ioThreads(),
            settings.workerThreads(),
            settings.host(),
            settings.port());
    Probes probes = new Probes(pool, System::nanoTime);
    Undertow management = management(onPort, health, probes, metrics);
    try {
      startManagement(management, onPort);
    } catch (RuntimeException e) {
      consumer.close();
      if (pool != null) {
        pool.close();
      }
      throw e;
    }
    log.info(
        "Stream mode: no webhook; serving /health and /metrics at http://{}:{}",
        settings.host(),
        boundPort(management));
    ActivityStream stream = StreamWiring.start(streamConfig, consumer, registry, webhookCatchUp);
    streamRef[0] = stream;
    return new StandaloneConsumer(
        registry, null, management, pool, store, consumer, stream, probes);
  }

  /**
   * Opens the pool (one connection at once, so an unreachable database fails here), builds the
   * inbox on it and makes it the consumer's. The listeners run on {@code workerThreads} inbox
   * workers.
   */
  private static HikariDataSource durable(
      Settings settings,
      DatabaseSettings database,
      PrometheusMeterRegistry registry,
      WebhookConsumer.Builder builder,
      PostgresInbox[] built) {
    int workers =
        settings.workerThreads() > 0 ? settings.workerThreads() : PostgresInbox.DEFAULT_WORKERS;
    HikariDataSource pool;
    try {
      pool = database.pool(PostgresInbox.DEFAULT_WRITERS + workers + 3);
    } catch (java.sql.SQLException | RuntimeException e) {
      throw new DatabaseUnavailableException(
          "cannot connect to the database at "
              + database.redactedUrl()
              + ": "
              + reason(e, database.password()));
    }
    try {
      PostgresInbox.Builder inbox =
          PostgresInbox.builder()
              .dataSource(pool)
              .schema(database.schema())
              .createSchema(database.createSchema())
              .workers(workers)
              .meterRegistry(registry);
      if (database.maxAttempts() > 0) {
        inbox.maxAttempts(database.maxAttempts());
      }
      if (database.retryBase() != null) {
        Duration max =
            database.retryBase().compareTo(PostgresInbox.DEFAULT_BACKOFF_MAX) > 0
                ? database.retryBase()
                : PostgresInbox.DEFAULT_BACKOFF_MAX;
        inbox.backoff(database.retryBase(), max);
      }
      if (database.lease() != null) {
        inbox.lease(database.lease());
      }
      if (database.instanceName() != null) {
        inbox.instanceName(database.instanceName());
      }
      built[0] = inbox.build();
      builder.inbox(built[0]);
    } catch (RuntimeException e) {
      pool.close();
      throw new DatabaseUnavailableException(
          "cannot set up the inbox in schema "
              + database.schema()
              + " at "
              + database.redactedUrl()
              + ": "
              + reason(e, database.password()));
    }
    log.info(
        "Durable mode: deliveries are answered once stored in {}.{} at {} (user {}), {} workers",
        database.schema(),
        PostgresInbox.DEFAULT_TABLE,
        database.redactedUrl(),
        database.user() == null ? "from the URL" : database.user(),
        workers);
    return pool;
  }

  /** {@code text} as the inside of a JSON string: quotes, backslashes and controls escaped. */
  private static String jsonText(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (char c : text.toCharArray()) {
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /**
   * The innermost cause's class and first line, through the inbox's scrub: the server may repeat a
   * user name that swallowed the password, and the driver a {@code password=} parameter.
   */
  private static String reason(Throwable e, String password) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message =
        root.getMessage() == null ? "" : root.getMessage().lines().findFirst().orElse("");
    return DatabaseMessages.scrub(root.getClass().getSimpleName() + ": " + message, password);
  }

  /**
   * The management listener: health and metrics only, everything else 404 with the same body as the
   * webhook server's. One IO thread and two workers (the scrape runs on a worker) are plenty for
   * probes and a scraper, and take nothing from the webhook's threads.
   */
  private static Undertow management(
      Settings settings, HttpHandler health, Probes probes, HttpHandler metrics) {
    PathHandler paths =
        Handlers.path(StandaloneConsumer::notFound)
            .addExactPath("/health", health)
            .addExactPath("/health/live", probes.live())
            .addExactPath("/health/ready", probes.ready())
            .addExactPath("/metrics", metrics);
    return Undertow.builder()
        .setIoThreads(1)
        .setWorkerThreads(2)
        .addHttpListener(settings.managementPort(), settings.managementHost())
        .setHandler(paths)
        .build();
  }

  /** As {@link WebhookServer#start()} does for the webhook port: a bind failure names where. */
  private static void startManagement(Undertow management, Settings settings) {
    try {
      management.start();
    } catch (RuntimeException e) {
      management.stop();
      String where = "http://" + settings.managementHost() + ":" + settings.managementPort();
      for (Throwable c = e; c != null; c = c.getCause()) {
        if (c instanceof IOException io) {
          throw new UncheckedIOException(
              "cannot bind " + where + " for /health and /metrics: " + io.getMessage(), io);
        }
      }
      throw e;
    }
  }

  private static void notFound(io.undertow.server.HttpServerExchange exchange) {
    exchange.setStatusCode(404);
    exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
    exchange
        .getResponseSender()
        .send("{\"error\":\"not_found\",\"message\":\"nothing is served at this path\"}");
  }

  private static int boundPort(Undertow undertow) {
    return ((InetSocketAddress) undertow.getListenerInfo().get(0).getAddress()).getPort();
  }

  private static void scrape(
      PrometheusMeterRegistry registry, io.undertow.server.HttpServerExchange exchange) {
    exchange
        .getResponseHeaders()
        .put(Headers.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
    exchange.getResponseSender().send(registry.scrape());
  }

  /** The port actually bound (in stream mode, the one serving health and metrics). */
  public int port() {
    return server != null ? server.port() : boundPort(management);
  }

  /**
   * The management port actually bound, or {@link Settings#NO_MANAGEMENT_PORT} when health and
   * metrics share the webhook port.
   */
  public int managementPort() {
    return management == null ? Settings.NO_MANAGEMENT_PORT : boundPort(management);
  }

  /** The Prometheus text of the current meters. */
  public String scrape() {
    return registry.scrape();
  }

  /** Finishes in-flight deliveries, then stops; the management port answers until then. */
  @Override
  public void close() {
    probes.stopping(); // readiness 503 while the last deliveries finish
    if (stream != null) {
      stream.close(); // before the consumer: the lines already read reach it first
    }
    if (server != null) {
      server.close(); // closes the consumer, which closes the inbox
    } else {
      consumer.close();
    }
    if (management != null) {
      management.stop();
    }
    if (database != null) {
      database.close();
    }
    if (store != null) {
      store.close(); // after the deliveries that use it
    }
    registry.close();
    log.info("Stopped");
  }

  /**
   * What the consumer needs to run. The secrets are never printed: {@link #toString()} leaves them
   * out.
   *
   * @param consumerSecrets consumer secrets, first current
   * @param host the address to bind
   * @param port the port (0 for any free one)
   * @param path the webhook path
   * @param inlineListeners run listeners on the IO thread (they must not block)
   * @param logEvents log one INFO line per handled event
   * @param ioThreads Undertow IO threads, 0 for the default
   * @param workerThreads Undertow worker threads, 0 for the default
   * @param managementHost the address the management port binds
   * @param managementPort the port serving {@code /health} and {@code /metrics} instead of the
   *     webhook port (0 for any free one), or {@link #NO_MANAGEMENT_PORT} to serve them beside the
   *     webhook
   * @param redisUrl the Redis that keeps the memory of handled events, shared by every instance
   *     pointing at it ({@code redis://}, {@code rediss://}, {@code redis-sentinel://}), or null to
   *     keep it in this process's memory
   * @param redisPrefix the namespace of the keys in Redis, or null for {@link
   *     RedisDeduplicator#DEFAULT_PREFIX}
   */
  public record Settings(
      List<String> consumerSecrets,
      String host,
      int port,
      String path,
      boolean inlineListeners,
      boolean logEvents,
      int ioThreads,
      int workerThreads,
      String managementHost,
      int managementPort,
      String redisUrl,
      String redisPrefix) {

    /** {@link #managementPort()} when there is none: health and metrics beside the webhook. */
    public static final int NO_MANAGEMENT_PORT = -1;

    /** Settings with dedup in this process's memory. */
    public Settings(
        List<String> consumerSecrets,
        String host,
        int port,
        String path,
        boolean inlineListeners,
        boolean logEvents,
        int ioThreads,
        int workerThreads,
        String managementHost,
        int managementPort) {
      this(
          consumerSecrets,
          host,
          port,
          path,
          inlineListeners,
          logEvents,
          ioThreads,
          workerThreads,
          managementHost,
          managementPort,
          null,
          null);
    }

    /** Settings without a management port: health and metrics are served beside the webhook. */
    public Settings(
        List<String> consumerSecrets,
        String host,
        int port,
        String path,
        boolean inlineListeners,
        boolean logEvents,
        int ioThreads,
        int workerThreads) {
      this(
          consumerSecrets,
          host,
          port,
          path,
          inlineListeners,
          logEvents,
          ioThreads,
          workerThreads,
          host,
          NO_MANAGEMENT_PORT);
    }

    /**
     * These settings with dedup on Redis at {@code url} (null: in this process's memory) under
     * {@code prefix} (null: the store's default).
     */
    public Settings withRedis(String url, String prefix) {
      return new Settings(
          consumerSecrets,
          host,
          port,
          path,
          inlineListeners,
          logEvents,
          ioThreads,
          workerThreads,
          managementHost,
          managementPort,
          url,
          prefix);
    }

    /** Whether {@code /health} and {@code /metrics} have a port of their own. */
    public boolean hasManagementPort() {
      return managementPort != NO_MANAGEMENT_PORT;
    }

    @Override
    public String toString() {
      return "Settings[secrets="
          + consumerSecrets.size()
          + ", host="
          + host
          + ", port="
          + port
          + ", path="
          + path
          + ", inlineListeners="
          + inlineListeners
          + ", logEvents="
          + logEvents
          + ", ioThreads="
          + ioThreads
          + ", workerThreads="
          + workerThreads
          + ", managementHost="
          + managementHost
          + ", managementPort="
          + managementPort
          + (redisUrl == null ? "" : ", redisUrl=" + redacted(redisUrl))
          + (redisPrefix == null ? "" : ", redisPrefix=" + redisPrefix)
          + "]";
    }
  }
}
