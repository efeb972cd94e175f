package io.servicehooks.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.servicehooks.core.Acknowledgement;
import io.servicehooks.core.Deduplicator;
import io.servicehooks.kafka.KafkaBrokerCheck;
import io.servicehooks.kafka.KafkaDeadLetterListener;
import io.servicehooks.kafka.KafkaHandOff;
import io.servicehooks.kafka.KafkaSource;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.unit.DataSize;

/**
 * Kafka between the webhook and the listeners, when {@code servicehooks.webhook.kafka.topic} is
 * set: one application (or a fleet of them) is the edge that answers the platform, others run the
 * listeners from the topic.
 *
 * <ul>
 *   <li>{@code servicehooks.webhook.kafka.role=edge} (the default): every verified event goes to
 *       the topic ({@link KafkaHandOff}); each delivery is answered 200 only once the brokers
 *       acknowledged its records, 503 otherwise. No listener runs here.
 *   <li>{@code role=reader}: no webhook is served (no servlet is mapped, no consumer secret is
 *       needed); the consumer's listeners ({@link OnWebhookEvent} methods, {@code WebhookListener}
 *       beans) run from the topic as a member of the consumer group {@code group-id} ({@link
 *       KafkaSource}), with {@code max-attempts} attempts {@code backoff-base} apart, then the
 *       dead-letter topic ({@code dead-letter-topic}, default {@code <topic>.dead}), where the
 *       application's {@link KafkaDeadLetterListener} beans hear of it. The application's {@link
 *       Deduplicator} (webhook-redis's, say) is the group's memory of what ran.
 * </ul>
 *
 * <p>The brokers and the clients' settings are Spring Boot's {@code spring.kafka.*}, read as Boot
 * reads them: {@code bootstrap-servers} (default {@code localhost:9092}), {@code client-id}, {@code
 * security.protocol}, {@code properties.*}; for the producer (the edge's, the reader's dead
 * letters) {@code producer.client-id}, {@code producer.security.protocol}, {@code producer.acks},
 * {@code producer.properties.*}; for the reader's consumer {@code consumer.group-id} (the group
 * when {@code group-id} is unset), {@code consumer.client-id}, {@code consumer.security.protocol},
 * {@code consumer.auto-offset-reset}, {@code consumer.enable-auto-commit} (only {@code false}),
 * {@code consumer.max-poll-records}, {@code consumer.max-poll-interval}, {@code
 * consumer.heartbeat-interval}, {@code consumer.fetch-max-wait}, {@code consumer.fetch-min-size},
 * {@code consumer.isolation-level} and {@code consumer.properties.*} (the admin client of the
 * broker check takes {@code admin.properties.*}). A value is never logged.
 *
 * <p>Start-up waits at most {@code servicehooks.webhook.kafka.startup-timeout} for a broker to
 * answer and otherwise fails with a failure analysis naming the servers. The {@code webhookKafka}
 * health is DOWN while no broker answers (one bounded, cached check) and joins the readiness group,
 * in both roles. With the application's {@link MeterRegistry} the edge records {@code
 * webhook.kafka.send} and {@code webhook.kafka.in.flight}, the reader {@code
 * webhook.kafka.records}. Not with durable mode: both choose where events are kept; and a reader
 * refuses what needs a served webhook (registration, catch-up, the activity stream).
 */
@AutoConfiguration(before = WebhookAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@Conditional(OnConsumerSecretCondition.class)
@ConditionalOnProperty(name = WebhookKafkaAutoConfiguration.TOPIC)
@EnableConfigurationProperties(KafkaProperties.class)
public final class WebhookKafkaAutoConfiguration {

  static final String TOPIC = KafkaProperties.TOPIC;
  static final String SERVERS = "spring.kafka.bootstrap-servers";

  /** The broker check and its health, and the edge or the reader, when webhook-kafka is present. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.servicehooks.kafka.KafkaHandOff")
  static final class KafkaConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(WebhookKafkaAutoConfiguration.class);

    /**
     * Waits for a broker at start-up, within the start-up time-out; then serves the health. Closed
     * with the context.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    KafkaBrokerCheck webhookKafkaBrokerCheck(KafkaProperties properties, Environment env) {
      boolean reader = properties.getRole() == KafkaProperties.Role.READER;
      if (reader) {
        refuseBesideReader(env);
      }
      if (WebhookRedisAutoConfiguration.durable(env)) {
        throw new WebhookSetupException(
            TOPIC
                + " hands events to Kafka and servicehooks.webhook.acknowledgement.mode=durable"
                + " stores them in PostgreSQL: both choose where events are kept.",
            "Set one: remove " + TOPIC + ", or the durable acknowledgement mode.");
      }
      String servers = servers(env);
      Map<String, Object> admin = clientProperties(env, "admin");
      KafkaBrokerCheck check;
      try {
        check = KafkaBrokerCheck.create(servers, admin);
      } catch (RuntimeException e) {
        throw new WebhookSetupException(
            "The Kafka admin client refused the spring.kafka.* settings: "
                + StartupFailures.firstLine(e),
            "Correct spring.kafka.* (the property the message names).");
      }
      Optional<String> problem = check.awaitAnswer(properties.getStartupTimeout());
      if (problem.isPresent()) {
        check.close();
        throw new WebhookSetupException(
            "No Kafka broker answered within "
                + properties.getStartupTimeout().toMillis()
                + " ms at "
                + servers
                + " ("
                + SERVERS
                + "), where "
                + (reader
                    ? "the listeners are to run from " + TOPIC + " (" + ROLE + "=reader): "
                    : TOPIC + " hands the webhook's events: ")
                + problem.get(),
            "Start the brokers or correct "
                + SERVERS
                + " (and spring.kafka.security.protocol or spring.kafka.properties.* for a secured"
                + " cluster); raise servicehooks.webhook.kafka.startup-timeout for brokers that"
                + " start slowly"
                + (reader ? "." : "; remove " + TOPIC + " to run the listeners here instead."));
      }
      return check;
    }

    /** The edge: the webhook is served and every event handed to the topic. */
    @Configuration(proxyBeanMethods = false)
    @Conditional(WebhookAutoConfiguration.ServedCondition.class)
    static final class EdgeConfiguration {

      /** Closed by the consumer, after its last delivery, not by the context. */
      @Bean(destroyMethod = "")
      @ConditionalOnMissingBean
      KafkaHandOff webhookKafkaHandOff(
          KafkaProperties properties,
          Environment env,
          KafkaBrokerCheck brokers,
          ListableBeanFactory beans) {
        String topic = properties.getTopic().strip();
        KafkaHandOff.Builder builder;
        try {
          builder =
              KafkaHandOff.builder(brokers.bootstrapServers(), topic)
                  .sendTimeout(properties.getSendTimeout())
                  .producerProperties(clientProperties(env, "producer"));
        } catch (IllegalArgumentException e) {
          throw new WebhookSetupException(
              "The Kafka hand-off refused its settings: " + e.getMessage(),
              "Correct servicehooks.webhook.kafka.send-timeout or spring.kafka.producer.*: the"
                  + " hand-off keeps acks=all and the idempotent producer.");
        }
        if (org.springframework.util.ClassUtils.isPresent(
            "io.micrometer.core.instrument.MeterRegistry", null)) {
          Meters.register(builder, beans);
        }
        KafkaHandOff handOff;
        try {
          handOff = builder.build();
        } catch (RuntimeException e) {
          throw new WebhookSetupException(
              "The Kafka producer refused the spring.kafka.* settings: "
                  + StartupFailures.firstLine(e),
              "Correct spring.kafka.* (the property the message names).");
        }
        LOG.info(
            "Webhook events go to Kafka topic {} at {}; the listeners run where the topic is read",
            topic,
            brokers.bootstrapServers());
        return handOff;
      }

      @Bean
      @ConditionalOnMissingBean(name = "webhookKafkaCustomizer")
      WebhookConsumerCustomizer webhookKafkaCustomizer(KafkaHandOff handOff) {
        return builder -> builder.inbox(handOff);
      }
    }

    /** The reader: no webhook; the listeners run from the topic in the consumer group. */
    @Configuration(proxyBeanMethods = false)
    @Conditional(ReaderCondition.class)
    static final class ReaderConfiguration {

      /** Started by the consumer when it is built, closed by it: not by the context. */
      @Bean(destroyMethod = "")
      @ConditionalOnMissingBean
      KafkaSource webhookKafkaSource(
          KafkaProperties properties,
          Environment env,
          KafkaBrokerCheck brokers,
          ListableBeanFactory beans) {
        String topic = properties.getTopic().strip();
        String group = groupId(properties, env);
        String deadLetterTopic =
            properties.getDeadLetterTopic() == null || properties.getDeadLetterTopic().isBlank()
                ? topic + KafkaSource.DEAD_LETTER_SUFFIX
                : properties.getDeadLetterTopic().strip();
        checkReader(properties, topic, deadLetterTopic);
        Map<String, Object> consumer = clientProperties(env, "consumer");
        Map<String, Object> producer = clientProperties(env, "producer");
        checkClients(brokers.bootstrapServers(), group, consumer, producer);
        KafkaSource.Builder builder;
        try {
          builder =
              KafkaSource.builder(brokers.bootstrapServers(), topic)
                  .groupId(group)
                  .deadLetterTopic(deadLetterTopic)
                  .maxAttempts(properties.getMaxAttempts())
                  .retryBase(properties.getBackoffBase())
                  .workers(properties.getWorkers())
                  .consumerProperties(consumer)
                  .producerProperties(producer);
        } catch (IllegalArgumentException e) {
          throw new WebhookSetupException(
              "The Kafka reader refused its settings: " + e.getMessage(),
              "Correct spring.kafka.consumer.*: the reader commits the offsets itself, after the"
                  + " listeners ran.");
        }
        beans.getBeanProvider(Deduplicator.class).ifUnique(builder::deduplicator);
        beans
            .getBeanProvider(KafkaDeadLetterListener.class)
            .orderedStream()
            .forEach(builder::onDeadLetter);
        if (org.springframework.util.ClassUtils.isPresent(
            "io.micrometer.core.instrument.MeterRegistry", null)) {
          Meters.register(builder, beans);
        }
        KafkaSource source = builder.build();
        LOG.info(
            "Webhook listeners run from Kafka topic {} at {} in group {}; dead letters to {}",
            topic,
            brokers.bootstrapServers(),
            group,
            deadLetterTopic);
        return source;
      }

      /** The consumer runs what the source reads; it starts the source when it is built. */
      @Bean
      @ConditionalOnMissingBean(name = "webhookKafkaCustomizer")
      WebhookConsumerCustomizer webhookKafkaCustomizer(KafkaSource source) {
        return builder -> builder.acknowledgement(Acknowledgement.DURABLE).inbox(source);
      }

      /**
       * {@code group-id}, else {@code spring.kafka.consumer.group-id}, else the source's default.
       */
      static String groupId(KafkaProperties properties, Environment env) {
        for (String candidate :
            new String[] {
              properties.getGroupId(), env.getProperty("spring.kafka.consumer.group-id")
            }) {
          if (candidate != null && !candidate.isBlank()) {
            return candidate.strip();
          }
        }
        return KafkaSource.DEFAULT_GROUP_ID;
      }

      private static void checkReader(KafkaProperties p, String topic, String deadLetterTopic) {
        String prefix = KafkaProperties.PREFIX + ".";
        if (p.getMaxAttempts() < 1) {
          throw new WebhookSetupException(
              prefix + "max-attempts must be at least 1, was " + p.getMaxAttempts() + ".",
              "Set " + prefix + "max-attempts to 1 or more (default 10).");
        }
        if (p.getWorkers() < 1) {
          throw new WebhookSetupException(
              prefix + "workers must be at least 1, was " + p.getWorkers() + ".",
              "Set " + prefix + "workers to 1 or more (default 4).");
        }
        if (p.getBackoffBase() == null
            || p.getBackoffBase().isNegative()
            || p.getBackoffBase().isZero()) {
          throw new WebhookSetupException(
              prefix + "backoff-base must be positive, was " + p.getBackoffBase() + ".",
              "Set " + prefix + "backoff-base to a positive duration (default 2s).");
        }
        if (deadLetterTopic.equals(topic)) {
          throw new WebhookSetupException(
              prefix + "dead-letter-topic is the topic itself (" + topic + ").",
              "Set "
                  + prefix
                  + "dead-letter-topic to another topic, or remove it for "
                  + topic
                  + KafkaSource.DEAD_LETTER_SUFFIX
                  + ".");
        }
      }

      /**
       * The consumer and the dead-letter producer connect when the consumer starts the source:
       * their settings are checked here, where a refusal is a failure analysis (values never
       * shown).
       */
      private static void checkClients(
          String servers,
          String group,
          Map<String, Object> consumer,
          Map<String, Object> producer) {
        Map<String, Object> c = new LinkedHashMap<>(consumer);
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
        c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        Map<String, Object> pr = new LinkedHashMap<>(producer);
        pr.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
        pr.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        pr.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        try {
          ConsumerConfig.configDef().parse(c);
          ProducerConfig.configDef().parse(pr);
        } catch (ConfigException e) {
          // Kafka's message names the property; a password's value is never part of it.
          throw new WebhookSetupException(
              "The Kafka reader's clients refused the spring.kafka.* settings: "
                  + StartupFailures.firstLine(e),
              "Correct spring.kafka.* (the property the message names).");
        }
      }
    }

    /** Referenced only when Micrometer is on the class path: the meters in the app's registry. */
    private static final class Meters {
      static void register(KafkaHandOff.Builder builder, ListableBeanFactory beans) {
        beans.getBeanProvider(MeterRegistry.class).ifUnique(builder::meterRegistry);
      }

      static void register(KafkaSource.Builder builder, ListableBeanFactory beans) {
        beans.getBeanProvider(MeterRegistry.class).ifUnique(builder::meterRegistry);
      }
    }

    /** The {@code webhookKafka} health indicator. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    @ConditionalOnEnabledHealthIndicator("webhookkafka")
    static final class KafkaHealthConfiguration {

      @Bean
      @ConditionalOnMissingBean(name = "webhookKafkaHealthIndicator")
      HealthIndicator webhookKafkaHealthIndicator(KafkaBrokerCheck brokers) {
        return new BrokersHealthIndicator(brokers);
      }

      /** The brokers in Boot's readiness group, when there is one. */
      @Bean
      @ConditionalOnClass(
          name =
              "org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor")
      @ConditionalOnProperty(
          name = "servicehooks.webhook.kafka.readiness",
          havingValue = "true",
          matchIfMissing = true)
      static InboxReadiness webhookKafkaReadiness() {
        return new InboxReadiness("webhookKafka");
      }
    }
  }

  /** Matches with {@code servicehooks.webhook.kafka.role=reader}. */
  static final class ReaderCondition extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      ConditionMessage.Builder message = ConditionMessage.forCondition("servicehooks Kafka reader");
      return KafkaProperties.reader(context.getEnvironment())
          ? ConditionOutcome.match(message.found("property").items(ROLE + "=reader"))
          : ConditionOutcome.noMatch(message.because(ROLE + " is not reader"));
    }
  }

  static final String ROLE = KafkaProperties.ROLE;

  /**
   * A reader serves no webhook: what needs one is refused rather than left to fail later (the
   * platform delivering to a 404, a replay or a stream with nowhere to go).
   */
  static void refuseBesideReader(Environment env) {
    List<String> refused = new java.util.ArrayList<>();
    String publicUrl = env.getProperty(OnPublicUrlCondition.PROPERTY, "");
    if (!publicUrl.isBlank()) {
      refused.add(OnPublicUrlCondition.PROPERTY + " (registration)");
    }
    if (env.getProperty("servicehooks.webhook.catch-up.enabled", Boolean.class, false)) {
      refused.add("servicehooks.webhook.catch-up.enabled=true");
    }
    if (env.getProperty("servicehooks.webhook.stream.enabled", Boolean.class, false)) {
      refused.add("servicehooks.webhook.stream.enabled=true");
    }
    if (!refused.isEmpty()) {
      throw new WebhookSetupException(
          ROLE
              + "=reader serves no webhook and runs the listeners from "
              + TOPIC
              + ", but "
              + String.join(", ", refused)
              + " needs the webhook served here.",
          "Set "
              + String.join(", ", refused.stream().map(r -> r.split("[ =]")[0]).toList())
              + " on the edge (the application that serves the webhook and hands events to the"
              + " topic), not on the reader.");
    }
  }

  /** The topic set, but webhook-kafka missing: fail rather than run the listeners here. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingClass("io.servicehooks.kafka.KafkaHandOff")
  static final class MissingKafkaModule {

    @Bean
    Object webhookKafkaHandOffMissing() {
      throw new WebhookSetupException(
          TOPIC
              + " hands the webhook's events to Kafka (or, with "
              + ROLE
              + "=reader, runs the listeners from it), but io.servicehooks:webhook-kafka is not on"
              + " the class path.",
          "Add io.servicehooks:webhook-kafka (it brings kafka-clients), or remove " + TOPIC + ".");
    }
  }

  /** Health: UP while a broker answers the cached check, DOWN with the problem otherwise. */
  static final class BrokersHealthIndicator extends AbstractHealthIndicator {
    private final KafkaBrokerCheck brokers;

    BrokersHealthIndicator(KafkaBrokerCheck brokers) {
      super("Kafka broker check failed");
      this.brokers = brokers;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
      Optional<String> problem = brokers.problem();
      if (problem.isPresent()) {
        builder.down().withDetail("error", problem.get());
      } else {
        builder.up().withDetail("bootstrapServers", brokers.bootstrapServers());
      }
    }
  }

  /** {@code spring.kafka.bootstrap-servers}, a list or comma-separated; Boot's default else. */
  static String servers(Environment env) {
    List<String> servers =
        Binder.get(env).bind(SERVERS, Bindable.listOf(String.class)).orElse(List.of());
    List<String> cleaned = servers.stream().map(String::strip).filter(s -> !s.isEmpty()).toList();
    return cleaned.isEmpty() ? "localhost:9092" : String.join(",", cleaned);
  }

  /** The typed {@code spring.kafka.consumer.*} settings, as Boot's consumer factory maps them. */
  private static void consumerSettings(Binder binder, String own, Map<String, Object> p) {
    binder
        .bind(own + ".auto-offset-reset", String.class)
        .ifBound(v -> p.put("auto.offset.reset", v.strip().toLowerCase(Locale.ROOT)));
    binder
        .bind(own + ".enable-auto-commit", Boolean.class)
        .ifBound(v -> p.put("enable.auto.commit", v));
    binder
        .bind(own + ".max-poll-records", Integer.class)
        .ifBound(v -> p.put("max.poll.records", v));
    binder
        .bind(own + ".max-poll-interval", Duration.class)
        .ifBound(v -> p.put("max.poll.interval.ms", (int) v.toMillis()));
    binder
        .bind(own + ".heartbeat-interval", Duration.class)
        .ifBound(v -> p.put("heartbeat.interval.ms", (int) v.toMillis()));
    binder
        .bind(own + ".fetch-max-wait", Duration.class)
        .ifBound(v -> p.put("fetch.max.wait.ms", (int) v.toMillis()));
    binder
        .bind(own + ".fetch-min-size", DataSize.class)
        .ifBound(v -> p.put("fetch.min.bytes", (int) v.toBytes()));
    binder
        .bind(own + ".isolation-level", String.class)
        .ifBound(
            v -> p.put("isolation.level", v.strip().toLowerCase(Locale.ROOT).replace('-', '_')));
  }

  /**
   * The client properties as Spring Boot builds them from {@code spring.kafka.*}: {@code
   * client-id}, {@code security.protocol}, {@code properties.*}, then the client's own ({@code
   * spring.kafka.<client>.client-id}, {@code .security.protocol}, the producer's {@code acks}, the
   * consumer's typed settings, {@code .properties.*}).
   */
  static Map<String, Object> clientProperties(Environment env, String client) {
    Binder binder = Binder.get(env);
    Map<String, Object> p = new LinkedHashMap<>();
    binder.bind("spring.kafka.client-id", String.class).ifBound(v -> p.put("client.id", v));
    binder
        .bind("spring.kafka.security.protocol", String.class)
        .ifBound(v -> p.put("security.protocol", v));
    binder
        .bind("spring.kafka.properties", Bindable.mapOf(String.class, String.class))
        .ifBound(p::putAll);
    String own = "spring.kafka." + client;
    binder.bind(own + ".client-id", String.class).ifBound(v -> p.put("client.id", v));
    binder
        .bind(own + ".security.protocol", String.class)
        .ifBound(v -> p.put("security.protocol", v));
    if (client.equals("producer")) {
      binder.bind(own + ".acks", String.class).ifBound(v -> p.put("acks", v));
    }
    if (client.equals("consumer")) {
      consumerSettings(binder, own, p);
    }
    binder.bind(own + ".properties", Bindable.mapOf(String.class, String.class)).ifBound(p::putAll);
    return p;
  }
}
