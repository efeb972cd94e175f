package io.servicehooks.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.stream.ActivityStream;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * The activity stream for the auto-configured consumer, on {@code
 * servicehooks.webhook.stream.enabled=true}: an {@link ActivityStream} into the same {@link
 * WebhookConsumer} (so a webhook copy and a stream copy of one event run once), started once the
 * application is ready and closed with the context, before the consumer. It connects with the
 * application's {@link WebhookClient} bean, or one built from {@code
 * servicehooks.registration.base-url} and {@code SERVICE_API_KEY}/{@code SERVICE_API_SECRET} or
 * {@code SERVICE_BEARER_TOKEN} from the process environment. A {@code webhookStream} health
 * indicator is DOWN once the stream has been down for a minute or the platform refused the token.
 */
@AutoConfiguration(after = {WebhookAutoConfiguration.class, CatchUpAutoConfiguration.class})
@ConditionalOnClass({ActivityStream.class, WebhookClient.class})
@ConditionalOnBean(WebhookConsumer.class)
@ConditionalOnProperty(
    prefix = "servicehooks.webhook.stream",
    name = "enabled",
    havingValue = "true")
@EnableConfigurationProperties(StreamProperties.class)
public final class StreamAutoConfiguration {

  /** The stream; Spring closes it (ending the connection) before the consumer it feeds. */
  @Bean
  @ConditionalOnMissingBean
  ActivityStream webhookActivityStream(
      WebhookConsumer consumer,
      StreamProperties properties,
      ObjectProvider<WebhookClient> client,
      ObjectProvider<MeterRegistry> registry,
      ObjectProvider<ObservationRegistry> observations,
      ConfigurableEnvironment environment) {
    int minutes = properties.getBackfillMinutes();
    if (minutes < 1 || minutes > ActivityStream.MAX_BACKFILL_MINUTES) {
      throw new IllegalStateException(
          "servicehooks.webhook.stream.backfill-minutes must be between 1 and 5, was "
              + minutes
              + (minutes == 0
                  ? " (0 would lose every event the consumer could not take, with the lines read"
                      + " after it, and every event sent while the stream reconnects)"
                  : ""));
    }
    WebhookClient webhookClient = client.getIfUnique();
    if (webhookClient == null) {
      webhookClient = client(environment);
    }
    ActivityStream.Builder builder =
        ActivityStream.builder(consumer, webhookClient)
            .backfillMinutes(minutes)
            .webhookCatchUp(
                "true".equals(environment.getProperty("servicehooks.webhook.catch-up.enabled")));
    MeterRegistry meters = registry.getIfUnique();
    if (meters != null) {
      builder.meterRegistry(meters);
    }
    // The application's registry, as the consumer's: one trace from the line to its listeners.
    observations.ifUnique(builder::observationRegistry);
    return builder.build();
  }

  /** Opens the stream once the application is ready. */
  @Bean
  ApplicationListener<ApplicationReadyEvent> webhookStreamStarter(ActivityStream stream) {
    return event -> stream.start();
  }

  private static WebhookClient client(ConfigurableEnvironment environment) {
    String baseUrl = environment.getProperty("servicehooks.registration.base-url");
    if (baseUrl == null || baseUrl.isBlank()) {
      throw new IllegalStateException(
          "servicehooks.webhook.stream.enabled=true needs servicehooks.registration.base-url (the"
              + " platform's API address) or a WebhookClient bean");
    }
    PropertySource<?> env =
        environment
            .getPropertySources()
            .get(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
    String token = variable(env, "SERVICE_BEARER_TOKEN");
    String key = variable(env, "SERVICE_API_KEY");
    String secret = variable(env, "SERVICE_API_SECRET");
    WebhookClient.Builder builder =
        WebhookClient.builder()
            .baseUrl(java.net.URI.create(baseUrl.strip()))
            .allowInsecureUrls(
                "true"
                    .equals(
                        environment.getProperty("servicehooks.registration.allow-insecure-url")));
    if (key != null && secret != null) {
      builder.apiCredentials(key, secret);
    } else if (token != null) {
      builder.bearerToken(token);
    } else {
      throw new IllegalStateException(
          "servicehooks.webhook.stream.enabled=true but the environment has neither"
              + " SERVICE_API_KEY and SERVICE_API_SECRET nor SERVICE_BEARER_TOKEN");
    }
    return builder.build();
  }

  private static String variable(PropertySource<?> env, String name) {
    Object value = env == null ? null : env.getProperty(name);
    return value == null || value.toString().isBlank() ? null : value.toString().strip();
  }

  /**
   * The {@code webhookStream} health indicator (management.health.webhookstream.enabled), when the
   * application has health support.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  @ConditionalOnEnabledHealthIndicator("webhookstream")
  static final class StreamHealthConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "webhookStreamHealthIndicator")
    HealthIndicator webhookStreamHealthIndicator(ActivityStream stream) {
      return new AbstractHealthIndicator("Activity stream health check failed") {
        @Override
        protected void doHealthCheck(Health.Builder builder) {
          (stream.healthy() ? builder.up() : builder.down())
              .withDetail("state", stream.state().name());
          stream.refusal().ifPresent(r -> builder.withDetail("refusal", r));
        }
      };
    }
  }
}
