package io.servicehooks.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.servicehooks.core.Acknowledgement;
import io.servicehooks.core.Deduplicator;
import io.servicehooks.core.ErrorHandler;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookListener;
import io.servicehooks.registration.WebhookClient;
import jakarta.servlet.DispatcherType;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * Auto-configuration of a webhook endpoint in a Spring Boot servlet application: a {@link
 * WebhookConsumer} built from the {@code servicehooks.webhook.*} properties, the listener beans and
 * the {@link OnWebhookEvent @OnWebhookEvent} methods, served by a servlet at {@code
 * servicehooks.webhook.path}; metrics in the application's {@link MeterRegistry}, a {@code webhook}
 * health indicator, and, with {@code servicehooks.registration.public-url}, registration of the
 * webhook once the application is ready. With {@code
 * servicehooks.webhook.acknowledgement.mode=durable} (and webhook-postgres on the class path) a
 * {@code PostgresInbox} on the application's {@link DataSource} stores each delivery before it is
 * answered, with the {@code webhookinbox} endpoint and a {@code webhookInbox} health indicator.
 *
 * <p>With {@code servicehooks.webhook.kafka.role=reader} the consumer serves no webhook: no servlet
 * is mapped, no consumer secret is needed, and {@code WebhookKafkaAutoConfiguration} gives the
 * consumer the Kafka topic to run its listeners from.
 *
 * <p>Active only in a servlet web application with at least one consumer secret configured (or the
 * Kafka reader role). Each bean backs off when the application defines its own: the {@link
 * WebhookConsumer}, the servlet registration {@code webhookServletRegistration}, the {@code
 * webhookHealthIndicator} and the {@link WebhookClient}. Metrics, health and registration each
 * switch on only when their library (Micrometer, Spring Boot's health support, {@code
 * webhook-registration}) is on the class path; without it the endpoint still runs and that
 * feature's beans are simply absent.
 *
 * <p>One configuration per feature, as Spring Boot's own are built: this class makes the consumer
 * and serves it; {@code WebhookMetricsConfiguration}, {@code WebhookObservationConfiguration} (the
 * application's {@code ObservationRegistry}), {@code WebhookHealthConfiguration}, {@code
 * WebhookInboxConfiguration} (durable mode), {@code WebhookRegistrationConfiguration} and {@code
 * WebhookAnsweringConfiguration} (the client, credentials and {@code Answering} for listeners that
 * answer) are imported, so they apply under this class's conditions and come with it wherever it is
 * named; {@code WebhookPropertyChecks} checks the values binding cannot.
 *
 * <p>Like Spring Boot's own auto-configurations it is final and never proxied ({@link
 * AutoConfiguration} implies {@code proxyBeanMethods = false}): the {@code @Bean} methods never
 * call one another.
 */
// after the probes' groups exist, so that InboxReadiness finds the readiness group to extend
@AutoConfiguration(
    afterName =
        "org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@Conditional(OnConsumerSecretCondition.class)
@EnableConfigurationProperties(WebhookProperties.class)
// One configuration per feature, each switching on with its own library, in this order (as nested
// classes were before: their beans register before this class's, and in this order).
@Import({
  WebhookMetricsConfiguration.class,
  WebhookObservationConfiguration.class,
  WebhookHealthConfiguration.class,
  WebhookInboxConfiguration.class,
  WebhookRegistrationConfiguration.class,
  WebhookAnsweringConfiguration.class
})
public final class WebhookAutoConfiguration {

  /**
   * The consumer: properties first, then the {@link ErrorHandler} and {@link Deduplicator} beans,
   * the beans implementing the core listener interface, the annotated methods, and last the {@link
   * WebhookConsumerCustomizer}s, so that they may override any of it.
   */
  @Bean
  @ConditionalOnMissingBean
  WebhookConsumer webhookConsumer(
      WebhookProperties properties,
      ConfigurableListableBeanFactory beanFactory,
      ObjectProvider<ErrorHandler> errorHandler,
      ObjectProvider<Deduplicator> deduplicator,
      ObjectProvider<WebhookListener> listeners,
      ObjectProvider<WebhookConsumerCustomizer> customizers,
      Environment environment) {
    WebhookProperties.AcknowledgementProperties ack = properties.getAcknowledgement();
    List<String> secrets = WebhookPropertyChecks.consumerSecrets(properties.getConsumerSecrets());
    if (KafkaProperties.reader(environment)) {
      secrets = readerSecrets(environment, secrets);
    }
    WebhookConsumer.Builder builder =
        WebhookConsumer.builder()
            .consumerSecrets(secrets)
            .maxBodyBytes(WebhookPropertyChecks.checkedMaxBodyBytes(properties.getMaxBodySize()))
            .ignoreOwnEvents(properties.isIgnoreOwnEvents())
            .dedupWindow(properties.getDedup().getWindow())
            .dedupMaxEntries(properties.getDedup().getMaxEntries())
            .acknowledgement(ack.getMode())
            .asyncQueueCapacity(ack.getQueueCapacity())
            .asyncThreads(ack.getThreads())
            .drainTimeout(ack.getDrainTimeout());
    errorHandler.ifUnique(builder::onError);
    deduplicator.ifUnique(builder::deduplicator);
    listeners.orderedStream().forEach(listener -> builder.on(typesOf(listener), listener));
    ListenerMethods.register(beanFactory, builder);
    customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
    try {
      return builder.build();
    } catch (IllegalStateException e) {
      // the core's "requires inbox(...)" names the builder; the user needs the missing module
      if (ack.getMode() == Acknowledgement.DURABLE
          && !ClassUtils.isPresent(POSTGRES_INBOX, beanFactory.getBeanClassLoader())) {
        throw new WebhookSetupException(
            "servicehooks.webhook.acknowledgement.mode=durable needs io.servicehooks:webhook-postgres"
                + " on the class path (its PostgresInbox stores the events), and it is missing.",
            "Add io.servicehooks:servicehooks-spring-boot-starter (or webhook-postgres) and"
                + " spring-boot-starter-jdbc, or set an inbox in a WebhookConsumerCustomizer.");
      }
      throw e;
    }
  }

  private static final String POSTGRES_INBOX = "io.servicehooks.postgres.PostgresInbox";

  /**
   * The reader role serves no webhook, so no signature is ever checked or CRC answered: without a
   * configured secret the consumer gets a random one that never leaves this process. The topic it
   * reads is required here, where the role is known even when webhook-kafka's configuration is off.
   */
  private static List<String> readerSecrets(Environment env, List<String> configured) {
    String topic = env.getProperty(KafkaProperties.TOPIC, "");
    if (topic.isBlank()) {
      throw new WebhookSetupException(
          KafkaProperties.ROLE
              + "=reader runs the listeners from the topic "
              + KafkaProperties.TOPIC
              + " names, and it is not set.",
          "Set "
              + KafkaProperties.TOPIC
              + " to the topic the edge writes (and spring.kafka.bootstrap-servers), or remove "
              + KafkaProperties.ROLE
              + " to serve the webhook here.");
    }
    if (!configured.isEmpty()) {
      return configured;
    }
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return List.of(Base64.getUrlEncoder().withoutPadding().encodeToString(bytes));
  }

  /**
   * The servlet that serves the consumer at {@code servicehooks.webhook.path}; none in the Kafka
   * reader role, where nothing may deliver here (the path is then the application's, 404).
   */
  @Bean
  @ConditionalOnMissingBean(name = "webhookServletRegistration")
  @Conditional(ServedCondition.class)
  ServletRegistrationBean<?> webhookServletRegistration(
      WebhookProperties properties, ObjectProvider<WebhookConsumer> consumer) {
    String path = WebhookPropertyChecks.checkedPath(properties.getPath());
    ServletRegistrationBean<WebhookServlet> registration =
        new ServletRegistrationBean<>(new WebhookServlet(consumer::getObject), path);
    registration.setName("webhookServlet");
    return registration;
  }

  /** The one INFO line saying where the webhook is served, once the context is refreshed. */
  @Bean
  WebhookServingLog webhookServingLog(
      ApplicationContext context,
      WebhookProperties properties,
      ObjectProvider<WebhookConsumer> consumer) {
    return new WebhookServingLog(
        context,
        KafkaProperties.reader(context.getEnvironment()) ? null : properties.getPath(),
        consumer::getObject);
  }

  /**
   * Writes the webhook's 400 {@code unreadable_body} answer on the error dispatch a container
   * starts when it answers a failed body read itself (Tomcat does); ahead of every other filter, so
   * that Spring Security never sees that dispatch.
   */
  @Bean
  @ConditionalOnMissingBean(name = "webhookUnreadableBodyFilter")
  @Conditional(ServedCondition.class)
  FilterRegistrationBean<?> webhookUnreadableBodyFilter() {
    FilterRegistrationBean<UnreadableBodyErrorFilter> registration =
        new FilterRegistrationBean<>(new UnreadableBodyErrorFilter());
    registration.setName("webhookUnreadableBodyFilter");
    registration.setDispatcherTypes(DispatcherType.ERROR);
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
    return registration;
  }

  /** Matches unless {@code servicehooks.webhook.kafka.role=reader}: the webhook is served. */
  static final class ServedCondition extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      ConditionMessage.Builder message =
          ConditionMessage.forCondition("servicehooks webhook served");
      if (KafkaProperties.reader(context.getEnvironment())) {
        return ConditionOutcome.noMatch(
            message.because(KafkaProperties.ROLE + "=reader runs the listeners from Kafka"));
      }
      return ConditionOutcome.match(message.because("not a Kafka reader"));
    }
  }

  private static List<String> typesOf(WebhookListener listener) {
    return ListenerMethods.patterns(
        AnnotatedElementUtils.findMergedAnnotation(
            AopUtils.getTargetClass(listener), OnWebhookEvent.class));
  }
}
