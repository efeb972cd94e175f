package io.servicehooks.spring;

import io.servicehooks.core.WebhookConsumer;

/**
 * Adjusts the {@link WebhookConsumer.Builder} of the auto-configured consumer after the {@code
 * servicehooks.webhook.*} properties, the listener beans and the annotated methods were applied,
 * for what properties do not cover (aliases, a custom {@code ObjectMapper}, a shared {@link
 * io.servicehooks.core.Deduplicator}, more listeners). Declare one or more as beans; they run in
 * {@link org.springframework.core.annotation.Order} order.
 *
 * <pre>{@code
 * @Bean
 * WebhookConsumerCustomizer aliases() {
 *     return builder -> builder.alias("PostCreateEvent", "post.create");
 * }
 * }</pre>
 */
@FunctionalInterface
public interface WebhookConsumerCustomizer {

  /** Adjusts the builder; called once, before {@link WebhookConsumer.Builder#build()}. */
  void customize(WebhookConsumer.Builder builder);
}
