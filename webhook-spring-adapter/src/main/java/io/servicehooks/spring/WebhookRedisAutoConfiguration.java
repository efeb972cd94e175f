package io.servicehooks.spring;

import io.lettuce.core.RedisClient;
import io.servicehooks.core.Deduplicator;
import io.servicehooks.redis.RedisDeduplicator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Dedup on Redis for an application that runs several instances: a {@link RedisDeduplicator} bean,
 * which {@link WebhookAutoConfiguration} hands to the consumer, so that a copy of an event landing
 * on another instance is recognised as done or as running elsewhere.
 *
 * <p>On when {@code servicehooks.webhook.dedup.redis.url} is set (the store opens its own client to
 * that URL) or when {@code servicehooks.webhook.dedup.redis.enabled=true} and the application has
 * one Lettuce {@link RedisClient} bean (the store opens one connection on it and leaves the client
 * to the application). Keys go under {@code servicehooks.webhook.dedup.redis.prefix}; done ids are
 * kept for {@code servicehooks.webhook.dedup.window}. Backs off when the application defines its
 * own {@link Deduplicator}. Needs {@code webhook-redis} (and with it Lettuce) on the class path;
 * when the properties ask for Redis without it, start-up fails rather than keep dedup per instance.
 */
@AutoConfiguration(before = WebhookAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@Conditional({
  OnConsumerSecretCondition.class,
  WebhookRedisAutoConfiguration.OnRedisDedupCondition.class
})
@EnableConfigurationProperties(WebhookProperties.class)
public final class WebhookRedisAutoConfiguration {

  static final String URL = "servicehooks.webhook.dedup.redis.url";
  static final String ENABLED = "servicehooks.webhook.dedup.redis.enabled";

  /** The store, when webhook-redis and Lettuce are on the class path. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(
      name = {"io.servicehooks.redis.RedisDeduplicator", "io.lettuce.core.RedisClient"})
  static final class RedisStoreConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(WebhookRedisAutoConfiguration.class);

    /**
     * Connects at start-up, so an instance does not serve without the memory it shares with the
     * others; closed with the context, after the servlet stopped taking deliveries.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(Deduplicator.class)
    RedisDeduplicator webhookRedisDeduplicator(
        WebhookProperties properties, ObjectProvider<RedisClient> client) {
      WebhookProperties.Redis redis = properties.getDedup().getRedis();
      RedisDeduplicator.Builder builder;
      if (redis.getUrl() != null && !redis.getUrl().isBlank()) {
        try {
          builder = RedisDeduplicator.builder(redis.getUrl().strip());
        } catch (IllegalArgumentException e) {
          // The store's message shows the URL without its password.
          throw new WebhookSetupException(
              URL + " is not a Redis URL: " + e.getMessage(),
              "Set "
                  + URL
                  + " to redis://[[user]:password@]host[:port][/database] (rediss:// for TLS), the"
                  + " password from the environment.");
        }
      } else {
        RedisClient own = client.getIfUnique();
        if (own == null) {
          throw new WebhookSetupException(
              ENABLED
                  + "=true puts webhook dedup on the application's Lettuce RedisClient, and the"
                  + " application has "
                  + client.stream().count()
                  + " RedisClient beans where it needs exactly one.",
              "Set "
                  + URL
                  + " (the store then opens its own client), or define one RedisClient bean.");
        }
        builder = RedisDeduplicator.builder(own);
      }
      RedisDeduplicator store;
      try {
        store =
            builder
                .prefix(redis.getPrefix())
                .window(properties.getDedup().getWindow())
                .commandTimeout(redis.getCommandTimeout())
                .build();
      } catch (RuntimeException e) {
        // Lettuce's message names host and port; the store scrubbed any password from it.
        throw new WebhookSetupException(
            "Webhook dedup on Redis could not connect ("
                + (redis.getUrl() != null && !redis.getUrl().isBlank()
                    ? URL
                    : "the application's RedisClient bean")
                + "): "
                + StartupFailures.firstLine(e)
                + (e.getCause() == null
                    ? ""
                    : " (" + StartupFailures.firstLine(e.getCause()) + ")"),
            "Start Redis there or correct "
                + URL
                + "; remove it (and "
                + ENABLED
                + ") to keep dedup per instance.");
      }
      LOG.info("Webhook dedup on Redis: {}", store);
      return store;
    }
  }

  /** Redis asked for, but webhook-redis is missing: fail rather than dedup per instance. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingClass("io.servicehooks.redis.RedisDeduplicator")
  static final class MissingRedisModule {

    @Bean
    Object webhookRedisDeduplicatorMissing() {
      throw new WebhookSetupException(
          URL
              + " or "
              + ENABLED
              + " puts webhook dedup on Redis, but io.servicehooks:webhook-redis is not on the"
              + " class path.",
          "Add io.servicehooks:webhook-redis (it brings Lettuce), or remove the property to keep"
              + " dedup per instance.");
    }
  }

  /** Whether the properties put dedup on Redis, whatever the mode. */
  static boolean asked(Environment env) {
    String url = env.getProperty(URL);
    return (url != null && !url.isBlank()) || env.getProperty(ENABLED, Boolean.class, false);
  }

  static boolean durable(Environment env) {
    return "durable"
        .equalsIgnoreCase(env.getProperty("servicehooks.webhook.acknowledgement.mode", "").strip());
  }

  /**
   * Matches when the Redis URL is set or Redis dedup is enabled explicitly, outside durable mode.
   */
  static final class OnRedisDedupCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      ConditionMessage.Builder message = ConditionMessage.forCondition("servicehooks Redis dedup");
      Environment env = context.getEnvironment();
      if (durable(env)) {
        // the inbox table is the dedup of durable mode: a Redis store would connect, could fail
        // start-up, and never be asked (WebhookServingLog says so once)
        return ConditionOutcome.noMatch(
            message.because("durable mode dedups in its inbox table, not on Redis"));
      }
      String url = env.getProperty(URL);
      if (url != null && !url.isBlank()) {
        return ConditionOutcome.match(message.found("property").items(URL));
      }
      if (env.getProperty(ENABLED, Boolean.class, false)) {
        return ConditionOutcome.match(message.found("property").items(ENABLED));
      }
      return ConditionOutcome.noMatch(message.didNotFind("property").items(URL, ENABLED));
    }
  }
}
