package io.servicehooks.samples;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.kafka.KafkaBrokerCheck;
import io.servicehooks.postgres.PostgresInbox;
import io.servicehooks.redis.RedisDeduplicator;
import io.servicehooks.stream.ActivityStream;
import io.servicehooks.undertow.WebhookServer;
import io.undertow.Undertow;
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
 *
 * <p>This class composes and closes the parts; each part is wired by its own collaborator: {@code
 * ManagementEndpoints} (health, metrics, probes, the management port), {@code DurableWiring} (the
 * inbox and its pool), {@code RedisDedupWiring} (dedup on Redis), {@code StreamWiring} and {@code
 * KafkaWiring} (the hand-off to a topic, or the listeners run from it). The {@link Settings} record
 * stays nested because the benchmarks and the tests name it {@code StandaloneConsumer.Settings}.
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
  private final KafkaBrokerCheck brokers; // null: no Kafka

  private StandaloneConsumer(
      PrometheusMeterRegistry registry,
      WebhookServer server,
      Undertow management,
      HikariDataSource database,
      RedisDeduplicator store,
      WebhookConsumer consumer,
      ActivityStream stream,
      Probes probes,
      KafkaBrokerCheck brokers) {
    this.probes = probes;
    this.brokers = brokers;
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

  /**
   * Kafka could not be used at start-up: no broker answered ({@code KAFKA_BOOTSTRAP_SERVERS}), or
   * the clients refused a {@code KAFKA_*} property. The message never quotes a secret property.
   */
  public static final class BrokersUnavailableException extends RuntimeException {
    BrokersUnavailableException(String message) {
      super(message, null, false, false);
    }
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
    return start(settings, database, customizer, stream, webhookCatchUp, ObservationRegistry.NOOP);
  }

  /**
   * As above, with the consumer's (and the stream's) observations in {@code observations}: the
   * registry {@link Tracing} exports over OTLP, or {@link ObservationRegistry#NOOP}.
   */
  static StandaloneConsumer start(
      Settings settings,
      DatabaseSettings database,
      BiConsumer<WebhookConsumer.Builder, MeterRegistry> customizer,
      StreamWiring.Config stream,
      boolean webhookCatchUp,
      ObservationRegistry observations) {
    return start(settings, database, customizer, stream, webhookCatchUp, observations, null);
  }

  /**
   * As above, with Kafka when {@code kafka} is not null: the events handed to its topic, or (with
   * {@code DELIVERY=kafka}) the listeners run from it and no webhook served.
   *
   * @throws BrokersUnavailableException when no broker answers within {@link
   *     KafkaWiring#START_WAIT}
   */
  static StandaloneConsumer start(
      Settings settings,
      DatabaseSettings database,
      BiConsumer<WebhookConsumer.Builder, MeterRegistry> customizer,
      StreamWiring.Config stream,
      boolean webhookCatchUp,
      ObservationRegistry observations,
      KafkaWiring.Config kafka) {
    if (settings.redisUrl() != null && database != null) {
      // Durable mode: the inbox table is the dedup every instance shares, so a Redis store would
      // connect, fail start-up when Redis is down, and write nothing.
      log.warn(
          "REDIS_URL is not used for dedup in durable mode (DATABASE_URL): the inbox table is the"
              + " dedup every instance shares; catch-up may still keep its heartbeat there");
    }
    RedisDeduplicator store =
        settings.redisUrl() == null || database != null ? null : RedisDedupWiring.connect(settings);
    KafkaBrokerCheck brokers = null;
    try {
      brokers = kafka == null ? null : KafkaWiring.awaitBrokers(kafka);
      return start(
          settings,
          database,
          customizer,
          store,
          stream,
          webhookCatchUp,
          observations,
          kafka,
          brokers);
    } catch (RuntimeException e) {
      if (brokers != null) {
        brokers.close();
      }
      if (store != null) {
        store.close();
      }
      throw e;
    }
  }

  private static StandaloneConsumer start(
      Settings settings,
      DatabaseSettings database,
      BiConsumer<WebhookConsumer.Builder, MeterRegistry> customizer,
      RedisDeduplicator store,
      StreamWiring.Config streamConfig,
      boolean webhookCatchUp,
      ObservationRegistry observations,
      KafkaWiring.Config kafka,
      KafkaBrokerCheck brokers) {
    boolean noWebhook =
        (streamConfig != null && streamConfig.streamOnly()) || (kafka != null && kafka.source());
    PrometheusMeterRegistry registry =
        noWebhook
            // No webhook, so no CRC check ever comes: a last-answer gauge stuck at 0 would page
            // someone.
            ? ConsumerRegistry.create(MeterFilter.denyNameStartsWith("webhook.crc"))
            : ConsumerRegistry.create();
    WebhookConsumer.Builder builder =
        WebhookConsumer.builder()
            .consumerSecrets(settings.consumerSecrets())
            .meterRegistry(registry)
            .observationRegistry(observations)
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
    DurableWiring.Durable durable =
        database == null ? null : DurableWiring.install(settings, database, registry, builder);
    HikariDataSource pool = durable == null ? null : durable.pool();
    if (kafka != null && kafka.source()) {
      KafkaWiring.installSource(kafka, settings, registry, builder, store);
    } else if (kafka != null) {
      KafkaWiring.installHandOff(kafka, registry, builder);
    }
    ManagementEndpoints endpoints =
        new ManagementEndpoints(registry, pool, durable == null ? null : durable.inbox(), brokers);
    WebhookConsumer consumer = builder.build();
    if (noWebhook) {
      return streamOnly(
          settings,
          registry,
          consumer,
          endpoints,
          pool,
          store,
          streamConfig,
          webhookCatchUp,
          observations,
          kafka,
          brokers);
    }
    WebhookServer.Builder server =
        WebhookServer.builder(consumer)
            .host(settings.host())
            .port(settings.port())
            .path(settings.path());
    Probes probes = endpoints.probes();
    endpoints.crcAnswers(consumer);
    if (!settings.hasManagementPort()) {
      server
          .route("/health", endpoints.health())
          .route("/health/live", probes.live())
          .route("/health/ready", probes.ready())
          .route("/metrics", endpoints.metrics());
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
        management = endpoints.server(settings.managementHost(), settings.managementPort());
        ManagementEndpoints.start(management, settings.managementHost(), settings.managementPort());
        log.info(
            "Serving /health and /metrics at http://{}:{}",
            settings.managementHost(),
            ManagementEndpoints.boundPort(management));
      }
      WebhookServer started = server.build().start();
      ActivityStream stream =
          streamConfig == null
              ? null
              : StreamWiring.start(streamConfig, consumer, registry, observations, webhookCatchUp);
      endpoints.stream(stream);
      return new StandaloneConsumer(
          registry, started, management, pool, store, consumer, stream, probes, brokers);
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
   * {@code DELIVERY=stream} or {@code kafka}: no webhook; {@code PORT} serves only health and
   * metrics, and the stream feeds the consumer (or the Kafka source, started with it, does).
   */
  private static StandaloneConsumer streamOnly(
      Settings settings,
      PrometheusMeterRegistry registry,
      WebhookConsumer consumer,
      ManagementEndpoints endpoints,
      HikariDataSource pool,
      RedisDeduplicator store,
      StreamWiring.Config streamConfig,
      boolean webhookCatchUp,
      ObservationRegistry observations,
      KafkaWiring.Config kafka,
      KafkaBrokerCheck brokers) {
    Undertow management = endpoints.server(settings.host(), settings.port());
    try {
      ManagementEndpoints.start(management, settings.host(), settings.port());
    } catch (RuntimeException e) {
      consumer.close();
      if (pool != null) {
        pool.close();
      }
      throw e;
    }
    if (streamConfig == null) {
      log.info(
          "Kafka mode: no webhook; the listeners run from topic {} in group {}; serving /health"
              + " and /metrics at http://{}:{}",
          kafka.topic(),
          kafka.groupId(),
          settings.host(),
          ManagementEndpoints.boundPort(management));
      return new StandaloneConsumer(
          registry, null, management, pool, store, consumer, null, endpoints.probes(), brokers);
    }
    log.info(
        "Stream mode: no webhook; serving /health and /metrics at http://{}:{}",
        settings.host(),
        ManagementEndpoints.boundPort(management));
    ActivityStream stream =
        StreamWiring.start(streamConfig, consumer, registry, observations, webhookCatchUp);
    endpoints.stream(stream);
    return new StandaloneConsumer(
        registry, null, management, pool, store, consumer, stream, endpoints.probes(), brokers);
  }

  /** The port actually bound (in stream mode, the one serving health and metrics). */
  public int port() {
    return server != null ? server.port() : ManagementEndpoints.boundPort(management);
  }

  /**
   * The management port actually bound, or {@link Settings#NO_MANAGEMENT_PORT} when health and
   * metrics share the webhook port.
   */
  public int managementPort() {
    return management == null
        ? Settings.NO_MANAGEMENT_PORT
        : ManagementEndpoints.boundPort(management);
  }

  /** The consumer served, for what runs beside it (the webhook watch). */
  WebhookConsumer webhookConsumer() {
    return consumer;
  }

  /** The registry {@code /metrics} scrapes. */
  MeterRegistry meterRegistry() {
    return registry;
  }

  /** Whether a webhook is served (false with {@code DELIVERY=stream} or {@code kafka}). */
  boolean servesWebhook() {
    return server != null;
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
    if (brokers != null) {
      brokers.close();
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
