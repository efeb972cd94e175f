package io.servicehooks.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.servicehooks.core.Acknowledgement;
import io.servicehooks.core.Deduplicator;
import io.servicehooks.core.ErrorHandler;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookListener;
import io.servicehooks.postgres.PostgresInbox;
import io.servicehooks.registration.WebhookClient;
import jakarta.servlet.DispatcherType;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.util.ClassUtils;
import org.springframework.util.unit.DataSize;

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
 * <p>Active only in a servlet web application with at least one consumer secret configured. Each
 * bean backs off when the application defines its own: the {@link WebhookConsumer}, the servlet
 * registration {@code webhookServletRegistration}, the {@code webhookHealthIndicator} and the
 * {@link WebhookClient}. Metrics, health and registration each switch on only when their library
 * (Micrometer, Spring Boot's health support, {@code webhook-registration}) is on the class path;
 * without it the endpoint still runs and that feature's beans are simply absent.
 *
 * <p>Like Spring Boot's own auto-configurations it is final and never proxied ({@link
 * AutoConfiguration} implies {@code proxyBeanMethods = false}): the {@code @Bean} methods never
 * call one another.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@Conditional(OnConsumerSecretCondition.class)
@EnableConfigurationProperties(WebhookProperties.class)
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
      ObjectProvider<WebhookConsumerCustomizer> customizers) {
    WebhookProperties.AcknowledgementProperties ack = properties.getAcknowledgement();
    WebhookConsumer.Builder builder =
        WebhookConsumer.builder()
            .consumerSecrets(consumerSecrets(properties.getConsumerSecrets()))
            .maxBodyBytes(checkedMaxBodyBytes(properties.getMaxBodySize()))
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
        throw new IllegalStateException(
            "servicehooks.webhook.acknowledgement.mode=durable needs io.servicehooks:webhook-postgres"
                + " on the class path (its PostgresInbox stores the events), or a"
                + " WebhookConsumerCustomizer that sets an inbox");
      }
      throw e;
    }
  }

  private static final String POSTGRES_INBOX = "io.servicehooks.postgres.PostgresInbox";

  /** The servlet that serves the consumer at {@code servicehooks.webhook.path}. */
  @Bean
  @ConditionalOnMissingBean(name = "webhookServletRegistration")
  ServletRegistrationBean<?> webhookServletRegistration(
      WebhookProperties properties, ObjectProvider<WebhookConsumer> consumer) {
    String path = checkedPath(properties.getPath());
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
    return new WebhookServingLog(context, properties.getPath(), consumer::getObject);
  }

  /**
   * Writes the webhook's 400 {@code unreadable_body} answer on the error dispatch a container
   * starts when it answers a failed body read itself (Tomcat does); ahead of every other filter, so
   * that Spring Security never sees that dispatch.
   */
  @Bean
  @ConditionalOnMissingBean(name = "webhookUnreadableBodyFilter")
  FilterRegistrationBean<?> webhookUnreadableBodyFilter() {
    FilterRegistrationBean<UnreadableBodyErrorFilter> registration =
        new FilterRegistrationBean<>(new UnreadableBodyErrorFilter());
    registration.setName("webhookUnreadableBodyFilter");
    registration.setDispatcherTypes(DispatcherType.ERROR);
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
    return registration;
  }

  private static List<String> typesOf(WebhookListener listener) {
    return ListenerMethods.patterns(
        AnnotatedElementUtils.findMergedAnnotation(
            AopUtils.getTargetClass(listener), OnWebhookEvent.class));
  }

  /**
   * The largest {@code servicehooks.webhook.max-body-size}. A delivery is read whole into memory
   * before its signature is checked, so the limit is what one unauthenticated request may make the
   * application hold; the platform's deliveries are a few KB of JSON, and 64 times the 1 MB default
   * leaves room for any of them while keeping the adapters' {@code limit + 1} read far from {@code
   * int} overflow (at {@code Integer.MAX_VALUE} every POST failed).
   */
  static final DataSize MAX_BODY_SIZE_LIMIT = DataSize.ofMegabytes(64);

  static int checkedMaxBodyBytes(DataSize size) {
    if (size == null || size.toBytes() < 1 || size.toBytes() > MAX_BODY_SIZE_LIMIT.toBytes()) {
      throw new IllegalStateException(
          "servicehooks.webhook.max-body-size must be from 1B to 64MB, was " + size);
    }
    return (int) size.toBytes();
  }

  /**
   * Each configured element is one whole secret (an indexed {@code consumer-secrets[0]} may hold a
   * comma); a comma-separated value was already split by Spring's binding, which keeps the empty
   * element after a trailing comma: dropped, as before.
   *
   * <p>An element that still holds a {@code ${...}} placeholder is refused: Spring's binding leaves
   * a placeholder it cannot resolve as literal text, so {@code ${SERVICE_CONSUMER_SECRET}} with the
   * variable unset would otherwise become a secret anyone can guess. Checked here, not left to the
   * core, so that the message names the property. Only the placeholder is shown, never the rest of
   * the value.
   */
  static List<String> consumerSecrets(List<String> configured) {
    for (int i = 0; i < configured.size(); i++) {
      String secret = configured.get(i);
      Matcher placeholder = secret == null ? null : PLACEHOLDER.matcher(secret);
      if (placeholder != null && placeholder.find()) {
        String variable = placeholder.group(1);
        throw new WebhookSetupException(
            OnConsumerSecretCondition.PROPERTY
                + "["
                + i
                + "] is the unresolved placeholder "
                + placeholder.group()
                + ": nothing named "
                + variable
                + " is set, and used as it is, that literal text would sign CRC answers and"
                + " accept deliveries that anyone can sign.",
            "Set "
                + variable
                + " (an environment variable or a property) to the app's consumer secret, or give "
                + OnConsumerSecretCondition.PROPERTY
                + " the secret itself.");
      }
    }
    return configured.stream().filter(s -> s != null && !s.isBlank()).toList();
  }

  /** A Spring placeholder left unresolved; group 1 is the name it refers to. */
  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([^}:]*)[^}]*}");

  static String checkedPath(String path) {
    if (path == null
        || !path.startsWith("/")
        || path.contains("*")
        || path.contains("?")
        || path.contains("#")) {
      throw new IllegalStateException(
          "servicehooks.webhook.path must be a plain path starting with '/', such as /webhooks, was: "
              + path);
    }
    return path;
  }

  /** Records the core's meters in the application's registry, when it has one. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterRegistry.class)
  static final class MetricsConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "webhookMetricsCustomizer")
    WebhookConsumerCustomizer webhookMetricsCustomizer(ObjectProvider<MeterRegistry> registry) {
      return builder -> registry.ifUnique(builder::meterRegistry);
    }
  }

  /** The {@code webhook} health indicator. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  @ConditionalOnEnabledHealthIndicator("webhook")
  static final class HealthConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "webhookHealthIndicator")
    HealthIndicator webhookHealthIndicator(WebhookProperties properties) {
      return new WebhookHealthIndicator(
          properties.getPath(), properties.getAcknowledgement().getMode());
    }
  }

  /**
   * Durable mode: a {@link PostgresInbox} on the application's {@link DataSource}, given to the
   * consumer (which starts and closes it), with the {@code webhookinbox} endpoint and the {@code
   * webhookInbox} health indicator.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(PostgresInbox.class)
  @ConditionalOnProperty(
      name = "servicehooks.webhook.acknowledgement.mode",
      havingValue = "durable")
  static final class DurableInboxConfiguration {

    /** Closed by the consumer, not by the context: it must stop after the consumer's last use. */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean
    PostgresInbox webhookInbox(
        WebhookProperties properties,
        ObjectProvider<DataSource> dataSource,
        org.springframework.beans.factory.ListableBeanFactory beans) {
      DataSource ds = dataSource.getIfUnique();
      if (ds == null) {
        throw new IllegalStateException(
            "servicehooks.webhook.acknowledgement.mode=durable needs one DataSource bean for the"
                + " inbox: add spring-boot-starter-jdbc and spring.datasource.url, or define one");
      }
      WebhookProperties.Inbox inbox = properties.getInbox();
      PostgresInbox.Builder builder =
          PostgresInbox.builder()
              .dataSource(ds)
              .schema(inbox.getSchema())
              .table(inbox.getTable())
              .createSchema(inbox.isCreateSchema())
              .workers(inbox.getWorkers())
              .maxAttempts(inbox.getMaxAttempts());
      if (org.springframework.util.ClassUtils.isPresent(
          "io.micrometer.core.instrument.MeterRegistry", null)) {
        InboxMeters.register(builder, beans);
      }
      return builder.build();
    }

    /** Referenced only when Micrometer is on the class path: the inbox's meters in the app's. */
    private static final class InboxMeters {
      static void register(
          PostgresInbox.Builder builder,
          org.springframework.beans.factory.ListableBeanFactory beans) {
        beans.getBeanProvider(MeterRegistry.class).ifUnique(builder::meterRegistry);
      }
    }

    @Bean
    @ConditionalOnMissingBean(name = "webhookInboxCustomizer")
    WebhookConsumerCustomizer webhookInboxCustomizer(PostgresInbox inbox) {
      return builder -> builder.inbox(inbox);
    }

    /** The {@code webhookinbox} endpoint, when the application has the Actuator. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Endpoint.class)
    static final class InboxEndpointConfiguration {

      @Bean
      @ConditionalOnMissingBean
      @ConditionalOnAvailableEndpoint(WebhookInboxEndpoint.class)
      WebhookInboxEndpoint webhookInboxEndpoint(PostgresInbox inbox) {
        return new WebhookInboxEndpoint(inbox.admin());
      }
    }

    /** The {@code webhookInbox} health indicator. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    @ConditionalOnEnabledHealthIndicator("webhookinbox")
    static final class InboxHealthConfiguration {

      @Bean
      @ConditionalOnMissingBean(name = "webhookInboxHealthIndicator")
      HealthIndicator webhookInboxHealthIndicator(PostgresInbox inbox) {
        return new WebhookInboxHealthIndicator(inbox.admin(), inbox::problem);
      }
    }
  }

  /** Registration at start-up, when {@code servicehooks.registration.public-url} is set. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(WebhookClient.class)
  @Conditional(OnPublicUrlCondition.class)
  @EnableConfigurationProperties(RegistrationProperties.class)
  static final class RegistrationConfiguration {

    static final String BEARER_TOKEN = "SERVICE_BEARER_TOKEN";
    static final String API_KEY = "SERVICE_API_KEY";
    static final String API_SECRET = "SERVICE_API_SECRET";

    /**
     * A client for the platform at {@code servicehooks.registration.base-url}, with credentials
     * from the process environment only, never from properties files.
     */
    @Bean
    @ConditionalOnMissingBean
    WebhookClient webhookClient(
        RegistrationProperties properties, ConfigurableEnvironment environment) {
      if (properties.getBaseUrl() == null) {
        throw new IllegalStateException(
            "servicehooks.registration.base-url is required when servicehooks.registration.public-url is set");
      }
      WebhookClient.Builder builder =
          WebhookClient.builder()
              .baseUrl(properties.getBaseUrl())
              .allowInsecureUrls(properties.isAllowInsecureUrl());
      PropertySource<?> env =
          environment
              .getPropertySources()
              .get(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
      String token = variable(env, BEARER_TOKEN);
      String key = variable(env, API_KEY);
      String secret = variable(env, API_SECRET);
      if (token != null) {
        builder.bearerToken(token);
      } else if (key != null && secret != null) {
        builder.apiCredentials(key, secret);
      } else {
        throw new IllegalStateException(
            "servicehooks.registration.public-url is set but the environment has neither "
                + BEARER_TOKEN
                + " nor both "
                + API_KEY
                + " and "
                + API_SECRET);
      }
      return builder.build();
    }

    @Bean
    @ConditionalOnMissingBean
    WebhookRegistrar webhookRegistrar(
        WebhookClient client,
        RegistrationProperties properties,
        ConfigurableEnvironment environment) {
      return new WebhookRegistrar(client, properties.getPublicUrl(), environment);
    }

    private static String variable(PropertySource<?> env, String name) {
      Object value = env == null ? null : env.getProperty(name);
      return value == null || value.toString().isBlank() ? null : value.toString().strip();
    }
  }
}
