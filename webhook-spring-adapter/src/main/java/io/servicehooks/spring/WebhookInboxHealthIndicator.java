package io.servicehooks.spring;

import io.servicehooks.postgres.DatabaseMessages;
import io.servicehooks.postgres.InboxAdmin;
import io.servicehooks.postgres.InboxStats;
import java.sql.SQLException;
import java.util.Optional;
import java.util.function.Supplier;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Shows durable mode's inbox in the Actuator health as {@code webhookInbox}: up with its pending,
 * running and dead counts and lag while its database answers, down when it cannot be reached or
 * when the inbox says it cannot do its work (one of its threads is gone, or its loops failed within
 * the last minute: {@link io.servicehooks.postgres.PostgresInbox#problem()}). A dead letter does
 * not make it down: it waits for a person, the application still works.
 */
final class WebhookInboxHealthIndicator extends AbstractHealthIndicator {

  private final InboxAdmin admin;
  private final Supplier<Optional<String>> problem;

  WebhookInboxHealthIndicator(InboxAdmin admin, Supplier<Optional<String>> problem) {
    super("Webhook inbox health check failed");
    this.admin = admin;
    this.problem = problem;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    Optional<String> broken = problem.get();
    if (broken.isPresent()) {
      builder.down().withDetail("error", broken.get());
      return;
    }
    try {
      InboxStats stats = admin.stats();
      builder.up().withDetails(WebhookInboxEndpoint.counts(stats));
    } catch (SQLException e) {
      // the driver's first line names the host and the refusal; scrubbed, as a server's error may
      // repeat a user name that swallowed a password
      String message =
          DatabaseMessages.scrub(
              e.getMessage() == null ? "" : e.getMessage().strip().split("\\R", 2)[0], null);
      builder
          .down()
          .withDetail("error", "the inbox database cannot be reached or refused the count")
          .withDetail("sqlState", String.valueOf(e.getSQLState()))
          .withDetail("message", message);
    }
  }
}
