package io.servicehooks.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.servicehooks.catchup.CatchUp;
import io.servicehooks.catchup.HeartbeatStore;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.registration.WebhookClient;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Catch-up for the auto-configured consumer, on {@code servicehooks.webhook.catch-up.enabled=true}:
 * a {@link CatchUp} whose {@code replay_job_status} listener is installed on the consumer and whose
 * heartbeat starts once the application is ready (its endpoint answers). It needs a {@link
 * WebhookClient} (the registration's, from {@code servicehooks.registration.*}, or your own bean)
 * and the webhook ({@code servicehooks.webhook.catch-up.webhook-id}, else {@code
 * servicehooks.registration.public-url}).
 */
@AutoConfiguration(after = WebhookAutoConfiguration.class)
@ConditionalOnClass({CatchUp.class, WebhookClient.class})
@ConditionalOnBean(WebhookConsumer.class)
@ConditionalOnProperty(
    prefix = "servicehooks.webhook.catch-up",
    name = "enabled",
    havingValue = "true")
@EnableConfigurationProperties(CatchUpProperties.class)
public final class CatchUpAutoConfiguration {

  /** The catch-up; closed with the context (the job in progress stays in the store). */
  @Bean
  @ConditionalOnMissingBean
  CatchUp webhookCatchUp(
      CatchUpProperties properties,
      ObjectProvider<WebhookClient> client,
      ObjectProvider<DataSource> dataSource,
      ObjectProvider<MeterRegistry> registry,
      Environment environment) {
    WebhookClient webhookClient = client.getIfUnique();
    if (webhookClient == null) {
      throw new WebhookSetupException(
          "servicehooks.webhook.catch-up.enabled=true asks the platform for replays, which needs a"
              + " WebhookClient, and the application has "
              + (client.stream().count() == 0 ? "none" : "several")
              + ".",
          "Set servicehooks.registration.public-url and servicehooks.registration.base-url (with"
              + " SERVICE_BEARER_TOKEN, or SERVICE_API_KEY and SERVICE_API_SECRET, in the"
              + " environment) and add io.servicehooks:webhook-registration, or define one"
              + " WebhookClient bean.");
    }
    CatchUp.Builder builder =
        CatchUp.builder()
            .client(webhookClient)
            .store(store(properties, dataSource, environment))
            .heartbeatInterval(properties.getHeartbeatInterval())
            .safetyMargin(properties.getSafetyMargin())
            .gapThreshold(properties.getGapThreshold());
    String publicUrl = environment.getProperty("servicehooks.registration.public-url");
    if (properties.getWebhookId() != null && !properties.getWebhookId().isBlank()) {
      builder.webhookId(properties.getWebhookId().strip());
    } else if (publicUrl != null && !publicUrl.isBlank()) {
      builder.webhookUrl(publicUrl.strip());
    } else {
      throw new WebhookSetupException(
          "servicehooks.webhook.catch-up.enabled=true does not know which webhook to replay.",
          "Set servicehooks.webhook.catch-up.webhook-id, or servicehooks.registration.public-url"
              + " (the webhook registered for it).");
    }
    MeterRegistry meters = registry.getIfUnique();
    if (meters != null) {
      builder.meterRegistry(meters);
    }
    return builder.build();
  }

  /** Installs the {@code replay_job_status} listener on the consumer. */
  @Bean
  WebhookConsumerCustomizer webhookCatchUpCustomizer(CatchUp catchUp) {
    return catchUp::install;
  }

  /** Starts the heartbeat once the application is ready, so a replay finds the endpoint up. */
  @Bean
  ApplicationListener<ApplicationReadyEvent> webhookCatchUpStarter(CatchUp catchUp) {
    return event -> catchUp.start();
  }

  static HeartbeatStore store(
      CatchUpProperties properties, ObjectProvider<DataSource> dataSource, Environment env) {
    String redisUrl = properties.getRedisUrl();
    if (redisUrl == null || redisUrl.isBlank()) {
      redisUrl = env.getProperty("spring.data.redis.url");
    }
    boolean hasRedis = redisUrl != null && !redisUrl.isBlank();
    DataSource ds = dataSource.getIfUnique();
    CatchUpProperties.Store store = properties.getStore();
    if (store == CatchUpProperties.Store.AUTO) {
      store =
          hasRedis
              ? CatchUpProperties.Store.REDIS
              : ds != null ? CatchUpProperties.Store.POSTGRES : CatchUpProperties.Store.FILE;
    }
    switch (store) {
      case REDIS:
        if (!hasRedis) {
          throw new WebhookSetupException(
              "servicehooks.webhook.catch-up.store=redis keeps the heartbeat on Redis, and no Redis"
                  + " URL is set.",
              "Set servicehooks.webhook.catch-up.redis-url or spring.data.redis.url.");
        }
        return HeartbeatStore.redis(redisUrl.strip(), properties.getRedisPrefix());
      case POSTGRES:
        if (ds == null) {
          throw new WebhookSetupException(
              "servicehooks.webhook.catch-up.store=postgres keeps the heartbeat in the"
                  + " application's DataSource, and it has none.",
              "Add spring-boot-starter-jdbc and set spring.datasource.url.");
        }
        try {
          return HeartbeatStore.postgres(
              ds, properties.getTable(), "default", properties.isCreateTable());
        } catch (IllegalStateException e) {
          throw StartupFailures.database(
              "creating the catch-up table " + properties.getTable(),
              "servicehooks.webhook.catch-up.create-table",
              "catchup-postgres.sql (in the webhook-catchup jar)",
              e,
              env);
        }
      default:
        return HeartbeatStore.file(properties.getFile());
    }
  }
}
