package io.servicehooks.samples;

import java.util.List;
import java.util.Map;

/**
 * The table of every environment variable the standalone consumer reads: its name, flag, default
 * and meaning, as the table "Standalone consumer environment variables" of docs/configuration.md
 * shows them ({@code ConsumerVariablesDocTest} keeps the two alike). A new variable is one constant
 * here, one entry in {@link #ALL} and one row in that table; the code that reads it names the
 * constant, never the string.
 */
final class ConsumerVariables {

  /**
   * One environment variable.
   *
   * @param name the variable's name
   * @param flag the command-line flag that overrides it, or null
   * @param defaultValue its default as the docs state it ("unset", "required", a value)
   * @param meaning what it does, in one line
   */
  record Variable(String name, String flag, String defaultValue, String meaning) {

    /** The raw value, or null when unset. */
    String raw(Map<String, String> env) {
      return env.get(name);
    }

    /** The raw value, or {@code fallback} when unset (a blank value is kept, as given). */
    String rawOr(Map<String, String> env, String fallback) {
      return env.getOrDefault(name, fallback);
    }

    /** The value stripped, or null when unset or blank. */
    String value(Map<String, String> env) {
      String v = env.get(name);
      return v == null || v.isBlank() ? null : v.strip();
    }

    @Override
    public String toString() {
      return name;
    }
  }

  // ---- serving ----
  static final Variable SERVICE_CONSUMER_SECRET =
      new Variable(
          "SERVICE_CONSUMER_SECRET",
          null,
          "required",
          "consumer secrets, comma-separated; the first is current");
  static final Variable PORT = new Variable("PORT", "--port", "8080", "port to listen on");
  static final Variable WEBHOOK_PATH =
      new Variable("WEBHOOK_PATH", "--path", "/webhooks", "the webhook path");
  static final Variable HOST = new Variable("HOST", "--host", "0.0.0.0", "address to bind");
  static final Variable MANAGEMENT_PORT =
      new Variable(
          "MANAGEMENT_PORT",
          "--management-port",
          "unset",
          "serve /health and /metrics only on this port (404 on the webhook port)");
  static final Variable MANAGEMENT_HOST =
      new Variable(
          "MANAGEMENT_HOST",
          "--management-host",
          "HOST",
          "bind address of the management port (needs MANAGEMENT_PORT)");
  static final Variable LISTENER_MODE =
      new Variable(
          "LISTENER_MODE", null, "worker", "worker, or inline (listeners on the IO thread)");
  static final Variable LOG_EVENTS =
      new Variable("LOG_EVENTS", null, "true", "one INFO line per handled event");
  static final Variable IGNORE_OWN_EVENTS =
      new Variable(
          "IGNORE_OWN_EVENTS",
          null,
          "true",
          "skip listeners of events the subscribed user caused itself");
  static final Variable DEDUP_FILE =
      new Variable(
          "DEDUP_FILE",
          null,
          "unset",
          "dedup in this SQLite file, kept across restarts (one process)");
  static final Variable IO_THREADS =
      new Variable("IO_THREADS", null, "one per core", "Undertow IO threads");
  static final Variable WORKER_THREADS =
      new Variable(
          "WORKER_THREADS", null, "four per core", "threads that run listeners (or inbox workers)");

  // ---- rehearsals ----
  static final Variable LISTENER_DELAY_MS =
      new Variable(
          "LISTENER_DELAY_MS", null, "0", "a pause in every event's handling (a slow listener)");
  static final Variable LISTENER_FAIL =
      new Variable(
          "LISTENER_FAIL", null, "false", "every event's handling throws (a failing listener)");

  // ---- durable mode (DatabaseSettings) ----
  static final Variable DATABASE_URL =
      new Variable(
          "DATABASE_URL",
          null,
          "unset",
          "durable mode on PostgreSQL: jdbc:postgresql://... or postgres://user:password@host/db");
  static final Variable DATABASE_USER =
      new Variable("DATABASE_USER", null, "unset", "the user when DATABASE_URL has none");
  static final Variable DATABASE_PASSWORD =
      new Variable("DATABASE_PASSWORD", null, "unset", "the password when DATABASE_URL has none");
  static final Variable DATABASE_SCHEMA =
      new Variable("DATABASE_SCHEMA", null, "servicehooks", "the inbox's schema");
  static final Variable DATABASE_CREATE_SCHEMA =
      new Variable(
          "DATABASE_CREATE_SCHEMA", null, "true", "create the inbox's tables when missing");
  static final Variable INBOX_MAX_ATTEMPTS =
      new Variable("INBOX_MAX_ATTEMPTS", null, "10", "attempts before a dead letter");
  static final Variable INBOX_RETRY_BASE_MS =
      new Variable("INBOX_RETRY_BASE_MS", null, "2000", "the first back-off, doubling");
  static final Variable INBOX_LEASE_MS =
      new Variable(
          "INBOX_LEASE_MS", null, "60000", "how long a taken event belongs to its process");
  static final Variable INBOX_INSTANCE_NAME =
      new Variable(
          "INBOX_INSTANCE_NAME",
          null,
          "unset",
          "a label for this instance in the inbox (leased_by, logs); need not be unique");

  // ---- dedup on Redis ----
  static final Variable REDIS_URL =
      new Variable(
          "REDIS_URL", null, "unset", "dedup on Redis, shared by every instance pointing at it");
  static final Variable REDIS_PREFIX =
      new Variable(
          "REDIS_PREFIX",
          null,
          "servicehooks:default",
          "the namespace of the keys in Redis (needs REDIS_URL)");

  // ---- the platform's API (catch-up, the stream) ----
  static final Variable SERVICE_API_BASE_URL =
      new Variable(
          "SERVICE_API_BASE_URL",
          null,
          "required with CATCH_UP=true, WEBHOOK_URL or DELIVERY=stream",
          "the platform's API address");
  static final Variable SERVICE_API_KEY =
      new Variable("SERVICE_API_KEY", null, "unset", "the app's API key (a token is fetched)");
  static final Variable SERVICE_API_SECRET =
      new Variable("SERVICE_API_SECRET", null, "unset", "the app's API secret");
  static final Variable SERVICE_BEARER_TOKEN =
      new Variable("SERVICE_BEARER_TOKEN", null, "unset", "an app-only bearer token");
  static final Variable ALLOW_INSECURE_URL =
      new Variable(
          "ALLOW_INSECURE_URL", null, "false", "accept http URLs with a port (the simulator)");

  // ---- catch-up (CatchUpWiring) ----
  static final Variable CATCH_UP =
      new Variable("CATCH_UP", null, "false", "heal this consumer's own downtime with a replay");
  static final Variable WEBHOOK_URL =
      new Variable(
          "WEBHOOK_URL",
          null,
          "unset",
          "the consumer's public URL: registered, kept valid, and replayed with CATCH_UP");
  static final Variable CATCH_UP_WEBHOOK_ID =
      new Variable("CATCH_UP_WEBHOOK_ID", null, "unset", "the registered webhook's id");
  static final Variable CATCH_UP_FILE =
      new Variable(
          "CATCH_UP_FILE",
          null,
          "./servicehooks-heartbeat",
          "the heartbeat file when neither REDIS_URL nor DATABASE_URL is set");
  static final Variable CATCH_UP_HEARTBEAT_MS =
      new Variable(
          "CATCH_UP_HEARTBEAT_MS",
          null,
          "30000",
          "how often the heartbeat is recorded and a replay job looked after, in ms");
  static final Variable CATCH_UP_GAP_THRESHOLD_MS =
      new Variable(
          "CATCH_UP_GAP_THRESHOLD_MS",
          null,
          "120000",
          "how old the last heartbeat, or how long every delivery refused, must be for a replay");

  // ---- keeping the webhook switched on (WebhookCheckWiring) ----
  static final Variable WEBHOOK_CHECK_INTERVAL_MS =
      new Variable(
          "WEBHOOK_CHECK_INTERVAL_MS",
          null,
          "900000",
          "with WEBHOOK_URL: how often the webhook's valid flag is read (revalidated when false)");
  static final Variable WEBHOOK_CHECK_SILENCE_MS =
      new Variable(
          "WEBHOOK_CHECK_SILENCE_MS",
          null,
          "4500000",
          "with WEBHOOK_URL: no CRC check answered for this long makes it look at once");

  // ---- the activity stream (StreamWiring) ----
  static final Variable DELIVERY =
      new Variable(
          "DELIVERY",
          null,
          "webhook",
          "webhook, stream (no public URL), both, or kafka (run the listeners from KAFKA_TOPIC)");
  static final Variable STREAM_BACKFILL_MINUTES =
      new Variable(
          "STREAM_BACKFILL_MINUTES", null, "5", "the most minutes a stream reconnect asks again");

  // ---- Kafka (KafkaWiring); any other KAFKA_<PROPERTY> is a client property ----
  static final Variable KAFKA_BOOTSTRAP_SERVERS =
      new Variable(
          "KAFKA_BOOTSTRAP_SERVERS",
          null,
          "unset",
          "hand every event to KAFKA_TOPIC on these brokers instead of running listeners");
  static final Variable KAFKA_TOPIC =
      new Variable("KAFKA_TOPIC", null, "required with KAFKA_BOOTSTRAP_SERVERS", "the topic");
  static final Variable KAFKA_GROUP_ID =
      new Variable(
          "KAFKA_GROUP_ID", null, "servicehooks", "with DELIVERY=kafka: the consumer group");
  static final Variable KAFKA_DEAD_LETTER_TOPIC =
      new Variable(
          "KAFKA_DEAD_LETTER_TOPIC",
          null,
          "<topic>.dead",
          "with DELIVERY=kafka: where an event goes after INBOX_MAX_ATTEMPTS failed attempts");

  // ---- tracing (Tracing): the OpenTelemetry specification's names ----
  static final Variable OTEL_EXPORTER_OTLP_ENDPOINT =
      new Variable(
          "OTEL_EXPORTER_OTLP_ENDPOINT",
          null,
          "unset",
          "traces exported over OTLP to this base URL; the log lines of an event carry its ids");
  static final Variable OTEL_EXPORTER_OTLP_PROTOCOL =
      new Variable("OTEL_EXPORTER_OTLP_PROTOCOL", null, "http/protobuf", "http/protobuf or grpc");
  static final Variable OTEL_EXPORTER_OTLP_HEADERS =
      new Variable(
          "OTEL_EXPORTER_OTLP_HEADERS",
          null,
          "unset",
          "headers sent with every export, key=value,..., values percent-encoded");
  static final Variable OTEL_SERVICE_NAME =
      new Variable("OTEL_SERVICE_NAME", null, "servicehooks-consumer", "the traces' service.name");

  /** Every variable, in the order of the docs' table. */
  static final List<Variable> ALL =
      List.of(
          SERVICE_CONSUMER_SECRET,
          PORT,
          WEBHOOK_PATH,
          HOST,
          MANAGEMENT_PORT,
          MANAGEMENT_HOST,
          LISTENER_MODE,
          LOG_EVENTS,
          IGNORE_OWN_EVENTS,
          LISTENER_DELAY_MS,
          LISTENER_FAIL,
          IO_THREADS,
          WORKER_THREADS,
          DATABASE_URL,
          DATABASE_USER,
          DATABASE_PASSWORD,
          DATABASE_SCHEMA,
          DATABASE_CREATE_SCHEMA,
          INBOX_MAX_ATTEMPTS,
          INBOX_RETRY_BASE_MS,
          INBOX_LEASE_MS,
          INBOX_INSTANCE_NAME,
          DELIVERY,
          STREAM_BACKFILL_MINUTES,
          KAFKA_BOOTSTRAP_SERVERS,
          KAFKA_TOPIC,
          KAFKA_GROUP_ID,
          KAFKA_DEAD_LETTER_TOPIC,
          REDIS_URL,
          REDIS_PREFIX,
          DEDUP_FILE,
          CATCH_UP,
          SERVICE_API_BASE_URL,
          SERVICE_API_KEY,
          SERVICE_API_SECRET,
          SERVICE_BEARER_TOKEN,
          WEBHOOK_URL,
          CATCH_UP_WEBHOOK_ID,
          ALLOW_INSECURE_URL,
          CATCH_UP_FILE,
          CATCH_UP_HEARTBEAT_MS,
          CATCH_UP_GAP_THRESHOLD_MS,
          WEBHOOK_CHECK_INTERVAL_MS,
          WEBHOOK_CHECK_SILENCE_MS,
          OTEL_EXPORTER_OTLP_ENDPOINT,
          OTEL_EXPORTER_OTLP_PROTOCOL,
          OTEL_EXPORTER_OTLP_HEADERS,
          OTEL_SERVICE_NAME);

  private ConsumerVariables() {}
}
