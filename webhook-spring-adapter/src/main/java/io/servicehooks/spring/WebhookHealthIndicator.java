package io.servicehooks.spring;

import io.servicehooks.core.Acknowledgement;
import io.servicehooks.core.WebhookConsumer;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Shows the webhook endpoint in the Actuator health as {@code webhook}: up while the application
 * serves it, with its path, acknowledgement mode and when it last answered a CRC check ({@code
 * crcLastAnswered}, null before the first: the platform checks hourly, and a webhook it switched
 * off gets no check either). Secrets are never shown.
 */
final class WebhookHealthIndicator extends AbstractHealthIndicator {

  private final String path;
  private final Acknowledgement acknowledgement;
  private final WebhookConsumer consumer;

  WebhookHealthIndicator(String path, Acknowledgement acknowledgement, WebhookConsumer consumer) {
    super("Webhook health check failed");
    this.path = path;
    this.acknowledgement = acknowledgement;
    this.consumer = consumer;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    builder
        .up()
        .withDetail("path", path)
        .withDetail("acknowledgement", acknowledgement.name())
        .withDetail(
            "crcLastAnswered",
            consumer.lastCrcAnswered().map(Object::toString).orElse("none since start"));
  }
}
