package io.servicehooks.spring;

import io.servicehooks.postgres.InboxAdmin;
import io.servicehooks.postgres.InboxStats;
import java.sql.SQLException;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Shows durable mode's inbox in the Actuator health as {@code webhookInbox}: up with its pending,
 * running and dead counts and lag while its database answers, down when it cannot be reached. A
 * dead letter does not make it down: it waits for a person, the application still works.
 */
final class WebhookInboxHealthIndicator extends AbstractHealthIndicator {

  private final InboxAdmin admin;

  WebhookInboxHealthIndicator(InboxAdmin admin) {
    super("Webhook inbox health check failed");
    this.admin = admin;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    try {
      InboxStats stats = admin.stats();
      builder.up().withDetails(WebhookInboxEndpoint.counts(stats));
    } catch (SQLException e) {
      // the driver's first line names the host and the refusal, never the password
      String message = e.getMessage() == null ? "" : e.getMessage().strip().split("\\R", 2)[0];
      builder
          .down()
          .withDetail("error", "the inbox database cannot be reached or refused the count")
          .withDetail("sqlState", String.valueOf(e.getSQLState()))
          .withDetail("message", message);
    }
  }
}
