package io.servicehooks.spring;

import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Observes deliveries, listener runs and the durable inbox in the application's {@link
 * ObservationRegistry}, when it has one (Spring Boot makes it with the actuator, and with tracing
 * its spans carry the trace through the inbox row): Boot's registry is used as it is, with its
 * handlers, predicates and conventions; nothing else is configured here.
 *
 * <p>Imported by {@link WebhookAutoConfiguration}, so it applies under that class's conditions.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(ObservationRegistry.class)
final class WebhookObservationConfiguration {

  @Bean
  @ConditionalOnMissingBean(name = "webhookObservationCustomizer")
  WebhookConsumerCustomizer webhookObservationCustomizer(
      ObjectProvider<ObservationRegistry> registry) {
    return builder -> registry.ifUnique(builder::observationRegistry);
  }
}
