package io.servicehooks.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.registration.WebhookWatch;
import java.time.Duration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * Registration at start-up, when {@code servicehooks.registration.public-url} is set.
 *
 * <p>Imported by {@link WebhookAutoConfiguration}, so it applies under that class's conditions.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(WebhookClient.class)
@Conditional(OnPublicUrlCondition.class)
@EnableConfigurationProperties(RegistrationProperties.class)
final class WebhookRegistrationConfiguration {

  static final String BEARER_TOKEN = "SERVICE_BEARER_TOKEN";
  static final String API_KEY = "SERVICE_API_KEY";
  static final String API_SECRET = "SERVICE_API_SECRET";

  /**
   * A client for the platform at {@code servicehooks.registration.base-url}, with credentials from
   * the process environment only, never from properties files.
   */
  @Bean
  @ConditionalOnMissingBean
  WebhookClient webhookClient(
      RegistrationProperties properties, ConfigurableEnvironment environment) {
    return client(properties, environment, "servicehooks.registration.public-url is set");
  }

  /**
   * The client {@link #webhookClient} and the answering configuration build: {@code why} says which
   * setting asked for it, in the message of a missing base URL or missing credentials.
   */
  static WebhookClient client(
      RegistrationProperties properties, ConfigurableEnvironment environment, String why) {
    if (properties.getBaseUrl() == null) {
      throw new IllegalStateException("servicehooks.registration.base-url is required when " + why);
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
          why
              + " but the environment has neither "
              + BEARER_TOKEN
              + " nor both "
              + API_KEY
              + " and "
              + API_SECRET);
    }
    return builder.build();
  }

  /** Whether the process environment holds {@code SERVICE_BEARER_TOKEN}. */
  static boolean hasBearerToken(ConfigurableEnvironment environment) {
    return variable(systemEnvironment(environment), BEARER_TOKEN) != null;
  }

  /**
   * A client on the app's key and secret from the environment, whatever {@code
   * SERVICE_BEARER_TOKEN} says: the one that can sign calls made for a user (OAuth 1.0a needs the
   * key and secret; a bearer token cannot act for a user).
   */
  static WebhookClient userContextClient(
      RegistrationProperties properties, ConfigurableEnvironment environment) {
    PropertySource<?> env = systemEnvironment(environment);
    return WebhookClient.builder()
        .baseUrl(properties.getBaseUrl())
        .allowInsecureUrls(properties.isAllowInsecureUrl())
        .apiCredentials(variable(env, API_KEY), variable(env, API_SECRET))
        .build();
  }

  private static PropertySource<?> systemEnvironment(ConfigurableEnvironment environment) {
    return environment
        .getPropertySources()
        .get(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
  }

  @Bean
  @ConditionalOnMissingBean
  WebhookRegistrar webhookRegistrar(
      WebhookClient client,
      RegistrationProperties properties,
      ConfigurableEnvironment environment,
      WebhookConsumer consumer,
      ObjectProvider<WebhookRegistrar.WatchMetrics> metrics) {
    WebhookWatch.Builder watch =
        WebhookWatch.builder()
            .client(client)
            .checkInterval(atLeastOneSecond(properties.getCheckInterval(), "check-interval"))
            .silence(atLeastOneSecond(properties.getCheckSilence(), "check-silence"))
            .lastCrcAnswered(consumer::lastCrcAnswered);
    metrics.ifAvailable(m -> m.bindTo(watch));
    return new WebhookRegistrar(client, properties.getPublicUrl(), environment, watch);
  }

  private static Duration atLeastOneSecond(Duration value, String property) {
    if (value == null || value.compareTo(WebhookWatch.MIN_PERIOD) < 0) {
      throw new IllegalStateException(
          "servicehooks.registration." + property + " must be at least 1s but was " + value);
    }
    return value;
  }

  /** Counts the watch's revalidations in the application's registry, when it has one. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterRegistry.class)
  static class WatchMetricsConfiguration {
    @Bean
    WebhookRegistrar.WatchMetrics webhookWatchMetrics(ObjectProvider<MeterRegistry> registry) {
      return watch -> registry.ifUnique(watch::meterRegistry);
    }
  }

  private static String variable(PropertySource<?> env, String name) {
    Object value = env == null ? null : env.getProperty(name);
    return value == null || value.toString().isBlank() ? null : value.toString().strip();
  }
}
