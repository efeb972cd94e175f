package io.servicehooks.samples;

import io.servicehooks.catchup.CatchUp;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.redis.RedisDeduplicator;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@code java -jar servicehooks-consumer.jar}: runs the standalone consumer configured from the
 * environment, flags overriding.
 *
 * <pre>
 * SERVICE_CONSUMER_SECRET  required; comma-separated for rotation, the first is current
 * PORT                     default 8080            (flag --port)
 * WEBHOOK_PATH             default /webhooks       (flag --path)
 * HOST                     default 0.0.0.0         (flag --host)
 * MANAGEMENT_PORT          unset (default): /health and /metrics beside the webhook; set: served
 *                          only on this port, 404 on the webhook port   (flag --management-port)
 * MANAGEMENT_HOST          default HOST; needs MANAGEMENT_PORT          (flag --management-host)
 * LISTENER_MODE            worker (default) or inline
 * LOG_EVENTS               true (default) or false
 * IO_THREADS               Undertow IO threads (default: one per available core)
 * WORKER_THREADS           threads that run listeners (default: four per available core)
 * LISTENER_DELAY_MS        a pause, in ms, in every event's handling (default 0): rehearses a slow
 *                          listener, e.g. in the crash test (CrashIT)
 * REDIS_URL                unset (default): dedup in this process's memory; set (redis://host:6379,
 *                          rediss://..., redis-sentinel://...#master): dedup on Redis, shared by
 *                          every instance with the same REDIS_URL and REDIS_PREFIX
 * REDIS_PREFIX             the namespace of the keys in Redis (default servicehooks:default);
 *                          needs REDIS_URL
 * CATCH_UP                 true: replay the consumer's own downtime (see CatchUpWiring for
 *                          SERVICE_API_BASE_URL, the API credentials, WEBHOOK_URL and the store:
 *                          REDIS_URL, else DATABASE_URL, else CATCH_UP_FILE)
 * LISTENER_FAIL            true: every event's handling throws (default false): rehearses a failing
 *                          listener, e.g. to see dead letters (DurableCrashIT)
 * DATABASE_URL             unset (default): synchronous acknowledgement; set: durable mode, each
 *                          delivery answered once stored in PostgreSQL, listeners run by the inbox's
 *                          WORKER_THREADS workers; jdbc:postgresql://... or
 *                          postgres://user:password@host:port/db (percent-encoded)
 * DATABASE_USER            the user when DATABASE_URL has none
 * DATABASE_PASSWORD        the password when DATABASE_URL has none
 * DATABASE_SCHEMA          default servicehooks
 * DATABASE_CREATE_SCHEMA   true (default): create the inbox's tables at start-up when missing
 * INBOX_MAX_ATTEMPTS       attempts before a dead letter (default 10)
 * INBOX_RETRY_BASE_MS      the first back-off after a failure (default 2000), doubling
 * INBOX_LEASE_MS           how long a taken event belongs to its process (default 60000)
 * DELIVERY                 webhook (default), stream (no public URL: the activity stream only; PORT
 *                          serves just /health and /metrics; SERVICE_CONSUMER_SECRET optional) or
 *                          both (see StreamWiring for SERVICE_API_BASE_URL, the credentials and
 *                          STREAM_BACKFILL_MINUTES, 0-5, default 5)
 * --demo                   run the demo instead: a consumer plus a sender of signed events
 * </pre>
 *
 * The secret is read from the environment only, never from a flag, so it does not show in process
 * listings; the database password and a password in {@code REDIS_URL} are never printed. Exit
 * codes: 0 after a clean stop (SIGTERM finishes in-flight deliveries first), 2 for a configuration
 * error (including a port or address it cannot bind, and a database or Redis it cannot reach at
 * start-up).
 */
public final class ConsumerMain {

  static final String USAGE =
      "usage: java -jar servicehooks-consumer.jar [--port N] [--path /webhooks] [--host ADDR]\n"
          + "                                           [--management-port N] [--management-host ADDR] [--demo]\n"
          + "environment: SERVICE_CONSUMER_SECRET (required, comma-separated, first current), PORT,\n"
          + "             WEBHOOK_PATH, HOST, MANAGEMENT_PORT, MANAGEMENT_HOST,\n"
          + "             LISTENER_MODE=worker|inline, LOG_EVENTS=true|false, IO_THREADS, WORKER_THREADS,\n"
          + "             LISTENER_DELAY_MS, LISTENER_FAIL, DATABASE_URL, DATABASE_USER, DATABASE_PASSWORD,\n"
          + "             DATABASE_SCHEMA, DATABASE_CREATE_SCHEMA, INBOX_MAX_ATTEMPTS, INBOX_RETRY_BASE_MS,\n"
          + "             INBOX_LEASE_MS, REDIS_URL, REDIS_PREFIX, CATCH_UP=true|false (with\n"
          + "             SERVICE_API_BASE_URL, SERVICE_API_KEY, SERVICE_API_SECRET or SERVICE_BEARER_TOKEN,\n"
          + "             WEBHOOK_URL or CATCH_UP_WEBHOOK_ID, and REDIS_URL, DATABASE_URL or CATCH_UP_FILE),\n"
          + "             DELIVERY=webhook|stream|both (with SERVICE_API_BASE_URL, the credentials above and\n"
          + "             STREAM_BACKFILL_MINUTES=0..5)";

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
    int exit = run(args, System.getenv(), System.out, System.err);
    if (exit != 0) {
      System.exit(exit);
    }
  }

  static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err)
      throws Exception {
    Command command;
    long listenerDelayMs;
    CatchUpWiring.Config catchUpConfig;
    StreamWiring.Config streamConfig;
    boolean listenerFail;
    try {
      command = parse(args, env);
      listenerDelayMs = listenerDelayMs(env);
      listenerFail = bool(env, "LISTENER_FAIL", false);
      catchUpConfig = command.help() || command.demo() ? null : CatchUpWiring.parse(env);
      streamConfig = command.help() || command.demo() ? null : StreamWiring.parse(env);
      if (streamConfig != null && streamConfig.streamOnly() && env.get("MANAGEMENT_PORT") != null) {
        throw new ConfigException(
            "DELIVERY=stream serves /health and /metrics on PORT; MANAGEMENT_PORT is not used");
      }
    } catch (ConfigException e) {
      err.println("servicehooks-consumer: " + e.getMessage());
      return 2;
    }
    if (command.help()) {
      out.println(USAGE);
      return 0;
    }
    if (command.demo()) {
      return Demo.run(command.settings(), out);
    }
    StandaloneConsumer consumer;
    CatchUp[] catchUp = new CatchUp[1];
    try {
      consumer =
          StandaloneConsumer.start(
              command.settings(),
              command.database(),
              (b, registry) -> {
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
              },
              streamConfig,
              catchUpConfig != null);
    } catch (StandaloneConsumer.DatabaseUnavailableException e) {
      err.println("servicehooks-consumer: " + e.getMessage());
      return 2;
    } catch (UncheckedIOException bindFailure) {
      // A taken port or an address not of this machine: a setting it cannot use, named.
      err.println("servicehooks-consumer: " + bindFailure.getMessage());
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
    if (catchUp[0] != null) {
      catchUp[0].start(); // once the consumer answers: the replay may follow at once
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  if (catchUp[0] != null) {
                    catchUp[0].close();
                  }
                  consumer.close();
                  stopped.countDown();
                },
                "servicehooks-shutdown"));
    stopped.await();
    return 0;
  }

  static Command parse(String[] args, Map<String, String> env) throws ConfigException {
    boolean demo = false;
    boolean help = false;
    String port = env.getOrDefault("PORT", "8080");
    String path = env.getOrDefault("WEBHOOK_PATH", "/webhooks");
    String host = env.getOrDefault("HOST", "0.0.0.0");
    String managementPort = env.get("MANAGEMENT_PORT");
    String managementHost = env.get("MANAGEMENT_HOST");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--demo" -> demo = true;
        case "--help", "-h" -> help = true;
        case "--port" -> port = value(args, ++i, "--port");
        case "--path" -> path = value(args, ++i, "--path");
        case "--host" -> host = value(args, ++i, "--host");
        case "--management-port" -> managementPort = value(args, ++i, "--management-port");
        case "--management-host" -> managementHost = value(args, ++i, "--management-host");
        default -> throw new ConfigException("unknown argument '" + args[i] + "'\n" + USAGE);
      }
    }
    int portNumber = port("PORT", port);
    int managementPortNumber = StandaloneConsumer.Settings.NO_MANAGEMENT_PORT;
    if (managementPort != null && !managementPort.isBlank()) {
      managementPortNumber = port("MANAGEMENT_PORT", managementPort);
      if (managementPortNumber != 0 && managementPortNumber == portNumber) {
        throw new ConfigException(
            "MANAGEMENT_PORT must differ from PORT, both were " + managementPortNumber);
      }
    } else if (managementHost != null && !managementHost.isBlank()) {
      throw new ConfigException(
          "MANAGEMENT_HOST is set but MANAGEMENT_PORT is not (health and metrics would stay on PORT)");
    }
    if (managementHost == null || managementHost.isBlank()) {
      managementHost = host;
    }
    if (!path.startsWith("/")) {
      throw new ConfigException("WEBHOOK_PATH must start with '/', was '" + path + "'");
    }
    String mode = env.getOrDefault("LISTENER_MODE", "worker").trim().toLowerCase(Locale.ROOT);
    if (!mode.equals("worker") && !mode.equals("inline")) {
      throw new ConfigException("LISTENER_MODE must be 'worker' or 'inline', was '" + mode + "'");
    }
    boolean logEvents = bool(env, "LOG_EVENTS", true);
    int cores = Runtime.getRuntime().availableProcessors();
    int ioThreads = threads(env, "IO_THREADS", defaultIoThreads(cores));
    int workerThreads = threads(env, "WORKER_THREADS", defaultWorkerThreads(cores));
    List<String> secrets = new ArrayList<>();
    for (String s : env.getOrDefault("SERVICE_CONSUMER_SECRET", "").split(",")) {
      if (!s.isBlank()) {
        secrets.add(s.strip());
      }
    }
    if (secrets.isEmpty() && !demo && !help && streamOnly(env)) {
      // No webhook is served, so no signature is ever checked; the consumer still needs a key.
      secrets.add(unusedSecret());
    }
    if (secrets.isEmpty() && !demo && !help) {
      throw new ConfigException(
          "SERVICE_CONSUMER_SECRET is not set (your app's consumer secret; comma-separated to rotate, first is current)");
    }
    if (!secrets.isEmpty()) {
      try {
        // The core's own checks (an unresolved placeholder), here so they give one line and 2.
        WebhookConsumer.builder().consumerSecrets(secrets);
      } catch (IllegalArgumentException e) {
        throw new ConfigException("SERVICE_CONSUMER_SECRET: " + e.getMessage());
      }
    }
    String redisUrl = env.get("REDIS_URL");
    String redisPrefix = env.get("REDIS_PREFIX");
    checkRedis(redisUrl, redisPrefix);
    StandaloneConsumer.Settings settings =
        new StandaloneConsumer.Settings(
                List.copyOf(secrets),
                host,
                portNumber,
                path,
                mode.equals("inline"),
                logEvents,
                ioThreads,
                workerThreads,
                managementHost,
                managementPortNumber)
            .withRedis(blankToNull(redisUrl), blankToNull(redisPrefix));
    DatabaseSettings database;
    try {
      database = DatabaseSettings.fromEnvironment(env);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
    return new Command(settings, database, demo, help);
  }

  private static boolean streamOnly(Map<String, String> env) throws ConfigException {
    return StreamWiring.delivery(env) == StreamWiring.Delivery.STREAM;
  }

  /** A random key nobody knows: with DELIVERY=stream nothing is ever verified with it. */
  private static String unusedSecret() {
    byte[] bytes = new byte[32];
    new java.security.SecureRandom().nextBytes(bytes);
    return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private static boolean bool(Map<String, String> env, String name, boolean fallback)
      throws ConfigException {
    String value = env.getOrDefault(name, String.valueOf(fallback)).trim().toLowerCase(Locale.ROOT);
    if (!value.equals("true") && !value.equals("false")) {
      throw new ConfigException(name + " must be 'true' or 'false', was '" + value + "'");
    }
    return value.equals("true");
  }

  /**
   * {@code REDIS_URL} and {@code REDIS_PREFIX} as the store itself checks them (without
   * connecting), so a bad one gives one line and 2; the store's messages show a URL without its
   * password.
   */
  static void checkRedis(String url, String prefix) throws ConfigException {
    if (url == null || url.isBlank()) {
      if (prefix != null && !prefix.isBlank()) {
        throw new ConfigException(
            "REDIS_PREFIX is set but REDIS_URL is not (dedup would stay in this process's memory)");
      }
      return;
    }
    RedisDeduplicator.Builder store;
    try {
      store = RedisDeduplicator.builder(url.strip());
    } catch (IllegalArgumentException e) {
      throw new ConfigException("REDIS_URL: " + e.getMessage());
    }
    if (prefix != null && !prefix.isBlank()) {
      try {
        store.prefix(prefix.strip());
      } catch (IllegalArgumentException e) {
        throw new ConfigException("REDIS_PREFIX: " + e.getMessage());
      }
    }
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value.strip();
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

  private static int threads(Map<String, String> env, String name, int fallback)
      throws ConfigException {
    String value = env.get(name);
    if (value == null || value.isBlank()) {
      return fallback;
    }
    try {
      int n = Integer.parseInt(value.trim());
      if (n >= 1 && n <= 1024) {
        return n;
      }
    } catch (NumberFormatException e) {
      // fall through to the message
    }
    throw new ConfigException(name + " must be a number from 1 to 1024, was '" + value + "'");
  }

  /** {@code LISTENER_DELAY_MS}: 0 to 10,000, default 0. */
  static long listenerDelayMs(Map<String, String> env) throws ConfigException {
    String value = env.get("LISTENER_DELAY_MS");
    if (value == null || value.isBlank()) {
      return 0;
    }
    try {
      long ms = Long.parseLong(value.trim());
      if (ms >= 0 && ms <= 10_000) {
        return ms;
      }
    } catch (NumberFormatException e) {
      // fall through to the message
    }
    throw new ConfigException(
        "LISTENER_DELAY_MS must be a number from 0 to 10000, was '" + value + "'");
  }

  private static int port(String name, String value) throws ConfigException {
    int n;
    try {
      n = Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new ConfigException(name + " must be a number, was '" + value + "'");
    }
    if (n < 0 || n > 65535) {
      throw new ConfigException(name + " must be 0 to 65535, was " + n);
    }
    return n;
  }

  private static String value(String[] args, int i, String flag) throws ConfigException {
    if (i >= args.length) {
      throw new ConfigException(flag + " needs a value");
    }
    return args[i];
  }
}
