package io.servicehooks.spring;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Records the core's meters in the application's registry, when it has one.
 *
 * <p>Imported by {@link WebhookAutoConfiguration}, so it applies under that class's conditions.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(MeterRegistry.class)
final class WebhookMetricsConfiguration {

  @Bean
  @ConditionalOnMissingBean(name = "webhookMetricsCustomizer")
  WebhookConsumerCustomizer webhookMetricsCustomizer(ObjectProvider<MeterRegistry> registry) {
    return builder -> registry.ifUnique(builder::meterRegistry);
  }
}
