package io.servicehooks.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.servicehooks.kafka.KafkaBrokerCheck;
import io.servicehooks.kafka.KafkaHandOff;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Hands every verified event to a Kafka topic ({@link KafkaHandOff}) when {@code
 * servicehooks.webhook.kafka.topic} is set: each delivery is answered 200 only once the brokers
 * acknowledged its records, 503 otherwise; the listeners run wherever the topic is read.
 *
 * <p>The brokers and the clients' settings are Spring Boot's {@code spring.kafka.*}, read as Boot
 * reads them: {@code bootstrap-servers} (default {@code localhost:9092}), {@code client-id}, {@code
 * security.protocol}, {@code properties.*}, and for the producer {@code producer.properties.*} (the
 * admin client of the broker check takes {@code admin.properties.*}). A value is never logged.
 *
 * <p>Start-up waits at most {@code servicehooks.webhook.kafka.startup-timeout} for a broker to
 * answer and otherwise fails with a failure analysis naming the servers. The {@code webhookKafka}
 * health is DOWN while no broker answers (one bounded, cached check) and joins the readiness group.
 * The hand-off records {@code webhook.kafka.send} and {@code webhook.kafka.in.flight} in the
 * application's {@link MeterRegistry}. Not with durable mode: both choose where events are kept.
 */
@AutoConfiguration(before = WebhookAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@Conditional(OnConsumerSecretCondition.class)
@ConditionalOnProperty(name = WebhookKafkaAutoConfiguration.TOPIC)
@EnableConfigurationProperties(KafkaProperties.class)
public final class WebhookKafkaAutoConfiguration {

  static final String TOPIC = "servicehooks.webhook.kafka.topic";
  static final String SERVERS = "spring.kafka.bootstrap-servers";

  /** The hand-off, when webhook-kafka is on the class path. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.servicehooks.kafka.KafkaHandOff")
  static final class HandOffConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(WebhookKafkaAutoConfiguration.class);

    /**
     * Waits for a broker at start-up, within the start-up time-out; then serves the health. Closed
     * with the context.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    KafkaBrokerCheck webhookKafkaBrokerCheck(KafkaProperties properties, Environment env) {
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
                + TOPIC
                + " hands the webhook's events: "
                + problem.get(),
            "Start the brokers or correct "
                + SERVERS
                + " (and spring.kafka.security.protocol or spring.kafka.properties.* for a secured"
                + " cluster); raise servicehooks.webhook.kafka.startup-timeout for brokers that"
                + " start slowly; remove "
                + TOPIC
                + " to run the listeners here instead.");
      }
      return check;
    }

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

    /** Referenced only when Micrometer is on the class path: the meters in the app's registry. */
    private static final class Meters {
      static void register(KafkaHandOff.Builder builder, ListableBeanFactory beans) {
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

  /** The topic set, but webhook-kafka missing: fail rather than run the listeners here. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingClass("io.servicehooks.kafka.KafkaHandOff")
  static final class MissingKafkaModule {

    @Bean
    Object webhookKafkaHandOffMissing() {
      throw new WebhookSetupException(
          TOPIC
              + " hands the webhook's events to Kafka, but io.servicehooks:webhook-kafka is not on"
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

  /**
   * The client properties as Spring Boot builds them from {@code spring.kafka.*}: {@code
   * client-id}, {@code security.protocol}, {@code properties.*}, then the client's own ({@code
   * spring.kafka.<client>.client-id}, {@code .security.protocol}, {@code .properties.*}).
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
    binder.bind(own + ".properties", Bindable.mapOf(String.class, String.class)).ifBound(p::putAll);
    return p;
  }
}
