package io.servicehooks.samples;

import static io.servicehooks.samples.ConsumerVariables.*;

import io.micrometer.core.instrument.MeterRegistry;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.kafka.KafkaBrokerCheck;
import io.servicehooks.kafka.KafkaHandOff;
import io.servicehooks.kafka.KafkaSource;
import io.servicehooks.redis.RedisDeduplicator;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone consumer and Kafka. With {@code KAFKA_BOOTSTRAP_SERVERS} set, a webhook (or
 * stream) consumer hands every event to {@code KAFKA_TOPIC} ({@link KafkaHandOff}) instead of
 * running listeners; with {@code DELIVERY=kafka} the same jar serves no webhook and runs the
 * listeners from the topic in the consumer group {@code KAFKA_GROUP_ID}, retrying a failing event
 * with durable mode's {@code INBOX_MAX_ATTEMPTS} and {@code INBOX_RETRY_BASE_MS}, then writing it
 * to {@code KAFKA_DEAD_LETTER_TOPIC}.
 *
 * <p>Every other {@code KAFKA_<PROPERTY>} variable is a client property, as Confluent's images take
 * them: lower-cased, underscores as dots ({@code KAFKA_SECURITY_PROTOCOL} is {@code
 * security.protocol}, {@code KAFKA_SASL_JAAS_CONFIG} is {@code sasl.jaas.config}). The variables
 * Kubernetes adds for a Service named {@code kafka} ({@code KAFKA_PORT}, {@code
 * KAFKA_SERVICE_HOST}...) are not properties and are left alone. A property whose name says
 * password, JAAS or secret is never printed: the start-up line shows it as {@code ***}.
 *
 * <p>{@code DATABASE_URL} is refused beside it: both choose where the events are kept.
 */
final class KafkaWiring {

  private static final Logger log = LoggerFactory.getLogger("servicehooks.consumer");

  /** The prefix of a client property's variable. */
  static final String PREFIX = "KAFKA_";

  /** How long the consumer waits at start-up for a broker to answer. */
  static final Duration START_WAIT = Duration.ofSeconds(10);

  private static final Set<String> OURS =
      Set.of(
          KAFKA_BOOTSTRAP_SERVERS.name(),
          KAFKA_TOPIC.name(),
          KAFKA_GROUP_ID.name(),
          KAFKA_DEAD_LETTER_TOPIC.name());

  /** Kubernetes' service links for a Service named kafka: addresses, not client properties. */
  private static final Pattern SERVICE_LINK =
      Pattern.compile("KAFKA_(SERVICE_HOST|SERVICE_PORT(_\\w+)?|PORT(_\\d+_(TCP|UDP|SCTP)\\w*)?)");

  private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

  private KafkaWiring() {}

  /**
   * The settings; {@link #toString()} and {@link #clientSettings()} mask every secret property.
   *
   * @param source true with {@code DELIVERY=kafka}: read the topic and run the listeners
   * @param maxAttempts attempts before a dead letter, 0 for the source's default
   * @param retryBase the first back-off, or null for the source's default
   * @param clientProperties every other {@code KAFKA_<PROPERTY>}, as client properties
   */
  record Config(
      String bootstrapServers,
      String topic,
      boolean source,
      String groupId,
      String deadLetterTopic,
      int maxAttempts,
      Duration retryBase,
      Map<String, String> clientProperties) {

    /** The client properties for a log line: {@code name=value, ...}, secrets as {@code ***}. */
    String clientSettings() {
      StringBuilder out = new StringBuilder();
      for (Map.Entry<String, String> e : new TreeMap<>(clientProperties).entrySet()) {
        if (out.length() > 0) {
          out.append(", ");
        }
        out.append(e.getKey()).append('=').append(secret(e.getKey()) ? "***" : e.getValue());
      }
      return out.toString();
    }

    @Override
    public String toString() {
      return "KafkaWiring.Config[bootstrapServers="
          + bootstrapServers
          + ", topic="
          + topic
          + (source
              ? ", groupId=" + groupId + ", deadLetterTopic=" + deadLetterTopic
              : ", hand-off")
          + ", properties={"
          + clientSettings()
          + "}]";
    }
  }

  /** Whether the value of client property {@code name} is never printed. */
  static boolean secret(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    return n.contains("password") || n.contains("jaas") || n.contains("secret");
  }

  /**
   * The settings, or {@code null} when {@code KAFKA_BOOTSTRAP_SERVERS} is unset (and {@code
   * DELIVERY} is not {@code kafka}).
   */
  static Config parse(Map<String, String> env) throws ConsumerMain.ConfigException {
    StreamWiring.Delivery delivery = StreamWiring.delivery(env);
    boolean source = delivery == StreamWiring.Delivery.KAFKA;
    String servers = KAFKA_BOOTSTRAP_SERVERS.value(env);
    if (servers == null) {
      if (source) {
        throw new ConsumerMain.ConfigException(
            "DELIVERY=kafka reads KAFKA_TOPIC from the brokers at KAFKA_BOOTSTRAP_SERVERS, which"
                + " is not set");
      }
      for (Variable v : java.util.List.of(KAFKA_TOPIC, KAFKA_GROUP_ID, KAFKA_DEAD_LETTER_TOPIC)) {
        if (v.value(env) != null) {
          throw new ConsumerMain.ConfigException(
              v + " is set but KAFKA_BOOTSTRAP_SERVERS is not (no event would go to Kafka)");
        }
      }
      return null;
    }
    if (DATABASE_URL.value(env) != null) {
      throw new ConsumerMain.ConfigException(
          "KAFKA_BOOTSTRAP_SERVERS and DATABASE_URL both choose where events are kept: set one"
              + " (KAFKA_BOOTSTRAP_SERVERS hands them to a Kafka topic, DATABASE_URL stores them in"
              + " PostgreSQL)");
    }
    String topic = topic(env, KAFKA_TOPIC, null);
    if (topic == null) {
      throw new ConsumerMain.ConfigException(
          "KAFKA_TOPIC is not set (the topic that KAFKA_BOOTSTRAP_SERVERS hands events to)");
    }
    if (!source) {
      for (Variable v : java.util.List.of(KAFKA_GROUP_ID, KAFKA_DEAD_LETTER_TOPIC)) {
        if (v.value(env) != null) {
          throw new ConsumerMain.ConfigException(
              v
                  + " is set but DELIVERY is not kafka (this consumer hands events to the topic;"
                  + " DELIVERY=kafka runs the listeners from it)");
        }
      }
    }
    String groupId = KAFKA_GROUP_ID.value(env) == null ? "servicehooks" : KAFKA_GROUP_ID.value(env);
    String deadLetterTopic = topic(env, KAFKA_DEAD_LETTER_TOPIC, topic + ".dead");
    if (deadLetterTopic.equals(topic)) {
      throw new ConsumerMain.ConfigException(
          "KAFKA_DEAD_LETTER_TOPIC must differ from KAFKA_TOPIC (a dead letter would be read"
              + " again)");
    }
    Map<String, String> properties = clientProperties(env);
    if (!source) {
      try {
        KafkaHandOff.builder(servers, topic).producerProperties(properties);
      } catch (IllegalArgumentException e) {
        // acks or enable.idempotence weakened: the hand-off's guarantee depends on both
        throw new ConsumerMain.ConfigException(
            "KAFKA_ACKS / KAFKA_ENABLE_IDEMPOTENCE: " + e.getMessage());
      }
    }
    int maxAttempts = 0;
    Duration retryBase = null;
    if (source) {
      maxAttempts = (int) number(env, INBOX_MAX_ATTEMPTS, 1, 1000);
      long ms = number(env, INBOX_RETRY_BASE_MS, 1, 3_600_000);
      retryBase = ms == 0 ? null : Duration.ofMillis(ms);
    }
    return new Config(
        servers, topic, source, groupId, deadLetterTopic, maxAttempts, retryBase, properties);
  }

  /**
   * Every {@code KAFKA_<PROPERTY>} but ours and Kubernetes' service links, as client properties.
   */
  static Map<String, String> clientProperties(Map<String, String> env) {
    Map<String, String> properties = new TreeMap<>();
    for (Map.Entry<String, String> e : env.entrySet()) {
      String name = e.getKey();
      if (!name.startsWith(PREFIX)
          || name.length() == PREFIX.length()
          || OURS.contains(name)
          || SERVICE_LINK.matcher(name).matches()
          || e.getValue() == null) {
        continue;
      }
      properties.put(
          name.substring(PREFIX.length()).toLowerCase(Locale.ROOT).replace('_', '.'),
          e.getValue().strip());
    }
    return properties;
  }

  /**
   * Waits at most {@link #START_WAIT} for a broker to answer, as the database and Redis are checked
   * at start-up: an edge that cannot hand anything over would answer every delivery 503.
   *
   * @return the check, which then serves {@code /health} and readiness
   * @throws StandaloneConsumer.BrokersUnavailableException when none answered
   */
  static KafkaBrokerCheck awaitBrokers(Config config) {
    KafkaBrokerCheck check;
    try {
      check =
          KafkaBrokerCheck.create(
              config.bootstrapServers(),
              config.clientProperties(),
              KafkaBrokerCheck.DEFAULT_TIMEOUT,
              Duration.ofSeconds(1));
    } catch (RuntimeException e) {
      throw new StandaloneConsumer.BrokersUnavailableException(
          "Kafka client settings (KAFKA_*): " + ConsumerMain.reason(e));
    }
    var problem = check.awaitAnswer(START_WAIT);
    if (problem.isPresent()) {
      check.close();
      throw new StandaloneConsumer.BrokersUnavailableException(
          "cannot reach Kafka (KAFKA_BOOTSTRAP_SERVERS) within "
              + START_WAIT.toSeconds()
              + " s: "
              + problem.get());
    }
    return check;
  }

  /** The edge: every event of the consumer goes to the topic; the listeners run elsewhere. */
  static KafkaHandOff installHandOff(
      Config config, MeterRegistry registry, WebhookConsumer.Builder builder) {
    KafkaHandOff handOff;
    try {
      handOff =
          KafkaHandOff.builder(config.bootstrapServers(), config.topic())
              .producerProperties(config.clientProperties())
              .meterRegistry(registry)
              .build();
    } catch (RuntimeException e) {
      // The producer refuses a client property (an unknown security.protocol, say).
      throw new StandaloneConsumer.BrokersUnavailableException(
          "Kafka client settings (KAFKA_*): " + ConsumerMain.reason(e));
    }
    builder.inbox(handOff);
    log.info(
        "Kafka hand-off: every event goes to topic {} at {} (KAFKA_BOOTSTRAP_SERVERS); the"
            + " listeners run where the topic is read{}",
        config.topic(),
        config.bootstrapServers(),
        config.clientProperties().isEmpty() ? "" : "; client settings: " + config.clientSettings());
    return handOff;
  }

  /**
   * {@code DELIVERY=kafka}: the consumer's listeners run from the topic; the source's memory of
   * handled events is Redis when {@code store} is not null (shared by the group's members), else
   * this process's.
   */
  static KafkaSource installSource(
      Config config,
      StandaloneConsumer.Settings settings,
      MeterRegistry registry,
      WebhookConsumer.Builder builder,
      RedisDeduplicator store) {
    KafkaSource.Builder source =
        KafkaSource.builder(config.bootstrapServers(), config.topic())
            .groupId(config.groupId())
            .deadLetterTopic(config.deadLetterTopic())
            .consumerProperties(config.clientProperties())
            .producerProperties(config.clientProperties())
            .meterRegistry(registry)
            .onDeadLetter(
                dead ->
                    log.warn(
                        "Dead letter: {} event {} written to {} after {} attempts: {}",
                        dead.type(),
                        dead.eventId(),
                        dead.deadLetterTopic(),
                        dead.attempts(),
                        dead.reason()));
    if (config.maxAttempts() > 0) {
      source.maxAttempts(config.maxAttempts());
    }
    if (config.retryBase() != null) {
      source.retryBase(config.retryBase());
    }
    if (settings.workerThreads() > 0) {
      source.workers(settings.workerThreads());
    }
    if (store != null) {
      source.deduplicator(store);
    }
    KafkaSource built;
    try {
      built = source.build();
    } catch (RuntimeException e) {
      throw new StandaloneConsumer.BrokersUnavailableException(
          "Kafka client settings (KAFKA_*): " + ConsumerMain.reason(e));
    }
    builder.acknowledgement(io.servicehooks.core.Acknowledgement.DURABLE).inbox(built);
    log.info(
        "Kafka source: the listeners run from topic {} at {} in group {}; dead letters to {}{}",
        config.topic(),
        config.bootstrapServers(),
        config.groupId(),
        config.deadLetterTopic(),
        config.clientProperties().isEmpty() ? "" : "; client settings: " + config.clientSettings());
    return built;
  }

  private static String topic(Map<String, String> env, Variable name, String fallback)
      throws ConsumerMain.ConfigException {
    String value = name.value(env);
    if (value == null) {
      return fallback;
    }
    if (!TOPIC.matcher(value).matches() || value.equals(".") || value.equals("..")) {
      throw new ConsumerMain.ConfigException(
          name + " is not a topic name (letters, digits, '.', '_', '-'), was '" + value + "'");
    }
    return value;
  }

  private static long number(Map<String, String> env, Variable name, long min, long max)
      throws ConsumerMain.ConfigException {
    String value = name.value(env);
    if (value == null) {
      return 0;
    }
    try {
      long n = Long.parseLong(value);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // fall through to the message
    }
    throw new ConsumerMain.ConfigException(
        name + " must be a number from " + min + " to " + max + ", was '" + value + "'");
  }
}
