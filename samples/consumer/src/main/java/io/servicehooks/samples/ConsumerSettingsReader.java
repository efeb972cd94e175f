package io.servicehooks.samples;

import static io.servicehooks.samples.ConsumerVariables.*;

import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.redis.RedisDeduplicator;
import io.servicehooks.samples.ConsumerMain.ConfigException;
import io.servicehooks.samples.ConsumerVariables.Variable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads the standalone consumer's settings from the command line and the environment ({@link
 * ConsumerVariables}), checking each as the part that uses it would, so that a bad one gives one
 * line naming it and exit code 2 before anything starts.
 */
final class ConsumerSettingsReader {

  private ConsumerSettingsReader() {}

  static ConsumerMain.Command parse(String[] args, Map<String, String> env) throws ConfigException {
    boolean demo = false;
    boolean help = false;
    String port = PORT.rawOr(env, "8080");
    String path = WEBHOOK_PATH.rawOr(env, "/webhooks");
    String host = HOST.rawOr(env, "0.0.0.0");
    String managementPort = MANAGEMENT_PORT.raw(env);
    String managementHost = MANAGEMENT_HOST.raw(env);
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--demo" -> demo = true;
        case "--help", "-h" -> help = true;
        case "--port" -> port = value(args, ++i, "--port");
        case "--path" -> path = value(args, ++i, "--path");
        case "--host" -> host = value(args, ++i, "--host");
        case "--management-port" -> managementPort = value(args, ++i, "--management-port");
        case "--management-host" -> managementHost = value(args, ++i, "--management-host");
        default ->
            throw new ConfigException("unknown argument '" + args[i] + "'\n" + ConsumerMain.USAGE);
      }
    }
    int portNumber = port(PORT, port);
    int managementPortNumber = StandaloneConsumer.Settings.NO_MANAGEMENT_PORT;
    if (managementPort != null && !managementPort.isBlank()) {
      managementPortNumber = port(MANAGEMENT_PORT, managementPort);
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
    String mode = LISTENER_MODE.rawOr(env, "worker").trim().toLowerCase(Locale.ROOT);
    if (!mode.equals("worker") && !mode.equals("inline")) {
      throw new ConfigException("LISTENER_MODE must be 'worker' or 'inline', was '" + mode + "'");
    }
    boolean logEvents = bool(env, LOG_EVENTS, true);
    int cores = Runtime.getRuntime().availableProcessors();
    int ioThreads = threads(env, IO_THREADS, ConsumerMain.defaultIoThreads(cores));
    int workerThreads = threads(env, WORKER_THREADS, ConsumerMain.defaultWorkerThreads(cores));
    List<String> secrets = new ArrayList<>();
    for (String s : SERVICE_CONSUMER_SECRET.rawOr(env, "").split(",")) {
      if (!s.isBlank()) {
        secrets.add(s.strip());
      }
    }
    if (secrets.isEmpty() && !demo && !help && noWebhook(env)) {
      // No webhook is served (the stream only, or a Kafka topic), so no signature is ever
      // checked; the consumer still needs a key.
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
    String redisUrl = REDIS_URL.raw(env);
    String redisPrefix = REDIS_PREFIX.raw(env);
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
    return new ConsumerMain.Command(settings, database, demo, help);
  }

  /**
   * {@code DEDUP_FILE}: the SQLite file of the dedup store, or null when unset. Refused beside
   * {@code REDIS_URL} or {@code DATABASE_URL}, which choose a store of their own (Redis, the inbox
   * table).
   */
  static java.nio.file.Path dedupFile(Map<String, String> env) throws ConfigException {
    String file = DEDUP_FILE.value(env);
    if (file == null) {
      return null;
    }
    for (Variable other : List.of(REDIS_URL, DATABASE_URL)) {
      if (other.value(env) != null) {
        throw new ConfigException(
            "DEDUP_FILE and "
                + other
                + " both choose the dedup store: set one (DEDUP_FILE for one process that keeps"
                + " its memory across restarts, "
                + other
                + " for a store the instances share)");
      }
    }
    try {
      return java.nio.file.Path.of(file);
    } catch (java.nio.file.InvalidPathException e) {
      throw new ConfigException("DEDUP_FILE is not a file path: " + e.getReason());
    }
  }

  private static boolean noWebhook(Map<String, String> env) throws ConfigException {
    StreamWiring.Delivery delivery = StreamWiring.delivery(env);
    return delivery == StreamWiring.Delivery.STREAM || delivery == StreamWiring.Delivery.KAFKA;
  }

  /** A random key nobody knows: with DELIVERY=stream nothing is ever verified with it. */
  private static String unusedSecret() {
    byte[] bytes = new byte[32];
    new java.security.SecureRandom().nextBytes(bytes);
    return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  static boolean bool(Map<String, String> env, Variable name, boolean fallback)
      throws ConfigException {
    String value = name.rawOr(env, String.valueOf(fallback)).trim().toLowerCase(Locale.ROOT);
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

  private static int threads(Map<String, String> env, Variable name, int fallback)
      throws ConfigException {
    String value = name.raw(env);
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
    String value = LISTENER_DELAY_MS.raw(env);
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

  private static int port(Variable name, String value) throws ConfigException {
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
