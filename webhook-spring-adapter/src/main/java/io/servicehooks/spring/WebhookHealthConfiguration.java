package io.servicehooks.spring;

import io.servicehooks.core.WebhookConsumer;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code webhook} health indicator; none in the Kafka reader role, which serves no webhook (its
 * {@code webhookKafka} health says whether the brokers answer).
 *
 * <p>Imported by {@link WebhookAutoConfiguration}, so it applies under that class's conditions.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnEnabledHealthIndicator("webhook")
@Conditional(WebhookAutoConfiguration.ServedCondition.class)
final class WebhookHealthConfiguration {

  @Bean
  @ConditionalOnMissingBean(name = "webhookHealthIndicator")
  HealthIndicator webhookHealthIndicator(WebhookProperties properties, WebhookConsumer consumer) {
    return new WebhookHealthIndicator(
        properties.getPath(), properties.getAcknowledgement().getMode(), consumer);
  }
}
