package io.servicehooks.samples;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.servicehooks.catchup.CatchUp;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.registration.WebhookWatch;
import io.servicehooks.sqlite.SqliteDeduplicator;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code java -jar servicehooks-consumer.jar}: runs the standalone consumer configured from the
 * environment, flags overriding. The variables, their flags and defaults are the table {@code
 * ConsumerVariables} (and docs/configuration.md); {@code ConsumerSettingsReader} reads them, and
 * this class wires what they name: the consumer, catch-up, the stream, the shutdown hook.
 *
 * <p>The secret is read from the environment only, never from a flag, so it does not show in
 * process listings; the database password and a password in {@code REDIS_URL} are never printed.
 * Exit codes: 0 after a clean stop (SIGTERM finishes in-flight deliveries first), 2 for a
 * configuration error (including a port or address it cannot bind, and a database, Redis or Kafka
 * brokers it cannot reach at start-up).
 */
public final class ConsumerMain {

  private static final Logger log = LoggerFactory.getLogger("servicehooks.consumer");

  static final String USAGE =
      "usage: java -jar servicehooks-consumer.jar [--port N] [--path /webhooks] [--host ADDR]\n"
          + "                                           [--management-port N] [--management-host ADDR] [--demo]\n"
          + "environment: SERVICE_CONSUMER_SECRET (required, comma-separated, first current), PORT,\n"
          + "             WEBHOOK_PATH, HOST, MANAGEMENT_PORT, MANAGEMENT_HOST,\n"
          + "             LISTENER_MODE=worker|inline, LOG_EVENTS=true|false, IGNORE_OWN_EVENTS=true|false,\n"
          + "             IO_THREADS, WORKER_THREADS,\n"
          + "             LISTENER_DELAY_MS, LISTENER_FAIL, DATABASE_URL, DATABASE_USER, DATABASE_PASSWORD,\n"
          + "             DATABASE_SCHEMA, DATABASE_CREATE_SCHEMA, INBOX_MAX_ATTEMPTS, INBOX_RETRY_BASE_MS,\n"
          + "             INBOX_LEASE_MS, INBOX_INSTANCE_NAME, REDIS_URL, REDIS_PREFIX, DEDUP_FILE,\n"
          + "             CATCH_UP=true|false (with\n"
          + "             SERVICE_API_BASE_URL, SERVICE_API_KEY, SERVICE_API_SECRET or SERVICE_BEARER_TOKEN,\n"
          + "             WEBHOOK_URL or CATCH_UP_WEBHOOK_ID, and REDIS_URL, DATABASE_URL or CATCH_UP_FILE;\n"
          + "             CATCH_UP_HEARTBEAT_MS, CATCH_UP_GAP_THRESHOLD_MS),\n"
          + "             WEBHOOK_URL alone: registered and kept valid (WEBHOOK_CHECK_INTERVAL_MS,\n"
          + "             WEBHOOK_CHECK_SILENCE_MS; with SERVICE_API_BASE_URL and the credentials),\n"
          + "             DELIVERY=webhook|stream|both (with SERVICE_API_BASE_URL, the credentials above and\n"
          + "             STREAM_BACKFILL_MINUTES=1..5),\n"
          + "             KAFKA_BOOTSTRAP_SERVERS with KAFKA_TOPIC: every event handed to the topic;\n"
          + "             DELIVERY=kafka runs the listeners from it (KAFKA_GROUP_ID, KAFKA_DEAD_LETTER_TOPIC);\n"
          + "             any client property as KAFKA_<PROPERTY>, e.g. KAFKA_SECURITY_PROTOCOL";

  private ConsumerMain() {}

  /** A configuration error: one line for the user, exit code 2. */
  static final class ConfigException extends Exception {
    ConfigException(String message) {
      super(message, null, false, false);
    }
  }

  /** The parsed command line: settings (and the database, or null), or the demo, or help. */
  record Command(
      StandaloneConsumer.Settings settings,
      DatabaseSettings database,
      boolean demo,
      boolean help) {}

  public static void main(String[] args) throws Exception {
    BufferedStdout.installFor(System.getenv());
    // Netty (Lettuce's transport when REDIS_URL is set) samples about one buffer in a hundred for
    // leak reports unless told otherwise: a debugging aid that cost 1-2% of the Redis path's CPU
    // (benchmarks/RESULTS.md, "Store paths"). Off unless the property is set.
    if (System.getProperty("io.netty.leakDetection.level") == null) {
      System.setProperty("io.netty.leakDetection.level", "disabled");
    }
    int exit = run(args, System.getenv(), System.out, System.err);
    if (exit != 0) {
      System.exit(exit);
    }
  }

  /**
   * What a bot built on this jar adds to the standalone consumer (the reply bot's listeners, say),
   * given the registries the consumer reports to: its meters ({@code /metrics}) and its
   * observations (traced over OTLP when configured, else a no-op registry).
   */
  @FunctionalInterface
  public interface Listeners {

    /** No listeners of the caller's own. */
    Listeners NONE = (builder, meters, observations) -> {};

    /** Adds the listeners to {@code builder}. */
    void addTo(
        WebhookConsumer.Builder builder, MeterRegistry meters, ObservationRegistry observations);
  }

  /** The standalone consumer, started from a command line and an environment; close to stop. */
  public static final class Running implements AutoCloseable {
    private final StandaloneConsumer consumer;
    private final WebhookWatch watch;
    private final CatchUp catchUp;
    private final SqliteDeduplicator dedupStore;
    private final Tracing tracing;

    private Running(
        StandaloneConsumer consumer,
        WebhookWatch watch,
        CatchUp catchUp,
        SqliteDeduplicator dedupStore,
        Tracing tracing) {
      this.consumer = consumer;
      this.watch = watch;
      this.catchUp = catchUp;
      this.dedupStore = dedupStore;
      this.tracing = tracing;
    }

    /** The port the webhook (or, with {@code DELIVERY=stream}, the probes) is served on. */
    public int port() {
      return consumer.port();
    }

    /**
     * Stops, as SIGTERM does: the check, catch-up, the consumer, the dedup file, then the traces'
     * exporter.
     */
    @Override
    public void close() {
      if (watch != null) {
        watch.close();
      }
      if (catchUp != null) {
        catchUp.close();
      }
      consumer.close();
      if (dedupStore != null) {
        dedupStore.close(); // after the deliveries that use it
      }
      if (tracing != null) {
        tracing.close(); // after the consumer: its last spans are exported too
      }
    }
  }

  static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err)
      throws Exception {
    return run(args, env, out, err, Listeners.NONE);
  }

  /**
   * Runs the standalone consumer as {@code main} does, with {@code listeners} added, until SIGTERM.
   *
   * @return the exit status: 0 after a clean stop, 2 for a configuration error (one line on {@code
   *     err})
   */
  public static int run(
      String[] args, Map<String, String> env, PrintStream out, PrintStream err, Listeners listeners)
      throws Exception {
    int[] exit = new int[1];
    Running running = start(args, env, out, err, listeners, exit);
    if (running == null) {
      return exit[0];
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  running.close();
                  stopped.countDown();
                },
                "servicehooks-shutdown"));
    stopped.await();
    return 0;
  }

  /**
   * Starts the standalone consumer as {@code main} does, with {@code listeners} added, and returns
   * it running; {@code null} after help, the demo, or a configuration error, with {@code exit[0]}
   * the status {@code main} would exit with.
   */
  public static Running start(
      String[] args,
      Map<String, String> env,
      PrintStream out,
      PrintStream err,
      Listeners listeners,
      int[] exit)
      throws Exception {
    Command command;
    long listenerDelayMs;
    CatchUpWiring.Config catchUpConfig;
    WebhookCheckWiring.Config checkConfig;
    StreamWiring.Config streamConfig;
    KafkaWiring.Config kafkaConfig;
    boolean listenerFail;
    boolean ignoreOwnEvents;
    java.nio.file.Path dedupFile;
    Tracing tracing;
    try {
      command = ConsumerSettingsReader.parse(args, env);
      listenerDelayMs = ConsumerSettingsReader.listenerDelayMs(env);
      listenerFail = ConsumerSettingsReader.bool(env, ConsumerVariables.LISTENER_FAIL, false);
      ignoreOwnEvents = ConsumerSettingsReader.bool(env, ConsumerVariables.IGNORE_OWN_EVENTS, true);
      dedupFile = ConsumerSettingsReader.dedupFile(env);
      catchUpConfig = command.help() || command.demo() ? null : CatchUpWiring.parse(env);
      checkConfig = command.help() || command.demo() ? null : WebhookCheckWiring.parse(env);
      streamConfig = command.help() || command.demo() ? null : StreamWiring.parse(env);
      kafkaConfig = command.help() || command.demo() ? null : KafkaWiring.parse(env);
      if (streamConfig != null
          && streamConfig.streamOnly()
          && ConsumerVariables.MANAGEMENT_PORT.raw(env) != null) {
        throw new ConfigException(
            "DELIVERY=stream serves /health and /metrics on PORT; MANAGEMENT_PORT is not used");
      }
      if (kafkaConfig != null && kafkaConfig.source()) {
        if (ConsumerVariables.MANAGEMENT_PORT.raw(env) != null) {
          throw new ConfigException(
              "DELIVERY=kafka serves /health and /metrics on PORT; MANAGEMENT_PORT is not used");
        }
        if (dedupFile != null) {
          throw new ConfigException(
              "DEDUP_FILE is not used with DELIVERY=kafka: the group's members remember handled"
                  + " events in REDIS_URL (shared) or each in its own memory");
        }
        if (catchUpConfig != null) {
          throw new ConfigException(
              "CATCH_UP=true heals a webhook's downtime, but DELIVERY=kafka serves no webhook: the"
                  + " edge that hands events to the topic catches up");
        }
      }
      tracing = command.help() || command.demo() ? null : tracing(env);
    } catch (ConfigException e) {
      err.println("servicehooks-consumer: " + e.getMessage());
      exit[0] = 2;
      return null;
    }
    if (command.help()) {
      out.println(USAGE);
      exit[0] = 0;
      return null;
    }
    if (command.demo()) {
      exit[0] = Demo.run(command.settings(), out);
      return null;
    }
    StandaloneConsumer consumer;
    CatchUp[] catchUp = new CatchUp[1];
    SqliteDeduplicator dedupStore;
    try {
      dedupStore = dedupFile == null ? null : SqliteDeduplicator.open(dedupFile);
    } catch (IllegalStateException e) {
      err.println("servicehooks-consumer: DEDUP_FILE: " + e.getMessage());
      exit[0] = 2;
      return null;
    }
    if (dedupStore != null) {
      log.info("Dedup in {} (DEDUP_FILE): kept across restarts of this process", dedupFile);
    } else if (streamConfig != null
        && command.settings().redisUrl() == null
        && command.database() == null) {
      log.info(StreamWiring.inMemoryRestartLine(streamConfig));
    }
    try {
      consumer =
          StandaloneConsumer.start(
              command.settings(),
              command.database(),
              (b, registry) -> {
                b.ignoreOwnEvents(ignoreOwnEvents);
                if (dedupStore != null) {
                  b.deduplicator(dedupStore);
                }
                if (listenerDelayMs > 0) {
                  b.onAny(event -> Thread.sleep(listenerDelayMs));
                }
                if (listenerFail) {
                  b.onAny(
                      event -> {
                        throw new IllegalStateException("LISTENER_FAIL is set (a rehearsal)");
                      });
                }
                if (catchUpConfig != null) {
                  catchUp[0] = CatchUpWiring.build(catchUpConfig, registry);
                  catchUp[0].install(b);
                }
                listeners.addTo(
                    b,
                    registry,
                    tracing == null ? ObservationRegistry.NOOP : tracing.observationRegistry());
              },
              streamConfig,
              catchUpConfig != null,
              tracing == null ? ObservationRegistry.NOOP : tracing.observationRegistry(),
              kafkaConfig);
    } catch (RuntimeException e) {
      if (tracing != null) {
        tracing.close();
      }
      if (dedupStore != null) {
        dedupStore.close();
      }
      exit[0] = refused(e, err);
      return null;
    }
    if (catchUp[0] != null) {
      catchUp[0].start(); // once the consumer answers: the replay may follow at once
    }
    WebhookWatch watch = null;
    if (checkConfig != null && consumer.servesWebhook()) {
      // Once the consumer answers: the first check may register the webhook (a CRC check).
      watch =
          WebhookCheckWiring.start(
              checkConfig, consumer.webhookConsumer(), consumer.meterRegistry());
      log.info("Keeping the webhook switched on: {}", watch);
    } else if (checkConfig != null) {
      log.info("DELIVERY={} serves no webhook: WEBHOOK_URL is not checked", deliveryName(env));
    }
    return new Running(consumer, watch, catchUp[0], dedupStore, tracing);
  }

  private static String deliveryName(Map<String, String> env) {
    return ConsumerVariables.DELIVERY.rawOr(env, "").strip().toLowerCase(java.util.Locale.ROOT);
  }

  /** {@code OTEL_EXPORTER_OTLP_ENDPOINT} and friends: traces over OTLP, or null when unset. */
  private static Tracing tracing(Map<String, String> env) throws ConfigException {
    Tracing tracing;
    try {
      tracing = Tracing.fromEnvironment(env);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
    if (tracing != null) {
      log.info("Tracing: {}", tracing);
    }
    return tracing;
  }

  /** The one line and exit status 2 for a start-up failure it can name; anything else is thrown. */
  private static int refused(RuntimeException failure, PrintStream err) {
    try {
      throw failure;
    } catch (StandaloneConsumer.DatabaseUnavailableException e) {
      err.println("servicehooks-consumer: " + e.getMessage());
      return 2;
    } catch (UncheckedIOException bindFailure) {
      // A taken port or an address not of this machine: a setting it cannot use, named.
      err.println("servicehooks-consumer: " + bindFailure.getMessage());
      return 2;
    } catch (StandaloneConsumer.BrokersUnavailableException kafkaDown) {
      err.println("servicehooks-consumer: " + kafkaDown.getMessage());
      return 2;
    } catch (org.apache.kafka.common.KafkaException kafkaRefused) {
      // A Kafka client refused a KAFKA_* property when the source started (the message names the
      // property, never a password's value: the clients print those as [hidden]).
      err.println(
          "servicehooks-consumer: Kafka client settings (KAFKA_*): " + reason(kafkaRefused));
      return 2;
    } catch (StandaloneConsumer.DedupStoreException redisDown) {
      // Without the memory it shares with the other instances it would run their events again.
      err.println("servicehooks-consumer: " + redisDown.getMessage());
      return 2;
    } catch (IllegalArgumentException | IllegalStateException storeFailure) {
      // A heartbeat store it cannot open (Redis not answering, a table it cannot create).
      err.println("servicehooks-consumer: catch-up: " + storeFailure.getMessage());
      return 2;
    }
  }

  /** {@code e}'s first line, and its innermost cause's when there is one. */
  static String reason(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String first = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
    return root == e
        ? first
        : first + ": " + String.valueOf(root.getMessage()).lines().findFirst().orElse("");
  }

  /** The command line and the environment read into settings ({@code ConsumerSettingsReader}). */
  static Command parse(String[] args, Map<String, String> env) throws ConfigException {
    return ConsumerSettingsReader.parse(args, env);
  }

  /** {@code LISTENER_DELAY_MS}: 0 to 10,000, default 0. */
  static long listenerDelayMs(Map<String, String> env) throws ConfigException {
    return ConsumerSettingsReader.listenerDelayMs(env);
  }

  /**
   * One IO thread per core the JVM may use (Undertow's own default, two at the least, makes two IO
   * threads time-slice one core when the process is pinned to it, which raised p99 in
   * benchmarks/RESULTS.md).
   */
  public static int defaultIoThreads(int cores) {
    return Math.max(1, cores);
  }

  /** Listener threads: enough to hide short blocking listeners, few enough not to thrash. */
  public static int defaultWorkerThreads(int cores) {
    return 4 * Math.max(1, cores);
  }
}
