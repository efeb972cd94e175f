package io.servicehooks.spring;

import io.servicehooks.core.Acknowledgement;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Shows the webhook endpoint in the Actuator health as {@code webhook}: up while the application
 * serves it, with its path and acknowledgement mode. Secrets are never shown.
 */
final class WebhookHealthIndicator extends AbstractHealthIndicator {

  private final String path;
  private final Acknowledgement acknowledgement;

  WebhookHealthIndicator(String path, Acknowledgement acknowledgement) {
    super("Webhook health check failed");
    this.path = path;
    this.acknowledgement = acknowledgement;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    builder.up().withDetail("path", path).withDetail("acknowledgement", acknowledgement.name());
  }
}
