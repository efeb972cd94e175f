package io.servicehooks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.postgres.InboxAdmin;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/** The {@code webhookInbox} indicator is DOWN when the inbox says it cannot do its work. */
final class WebhookInboxHealthIndicatorTest {

  @Test
  void health_inboxReportsProblem_downWithItWithoutAskingTheDatabase() {
    // Port 9 on the loopback: a count would fail; the problem must answer before any query.
    PGSimpleDataSource nowhere = new PGSimpleDataSource();
    nowhere.setURL("jdbc:postgresql://127.0.0.1:9/none");
    InboxAdmin admin = InboxAdmin.builder().dataSource(nowhere).build();
    WebhookInboxHealthIndicator indicator =
        new WebhookInboxHealthIndicator(
            admin, () -> Optional.of("inbox thread servicehooks-inbox-poller is gone"));

    Health health = indicator.health(true);

    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
    assertThat(health.getDetails())
        .containsEntry("error", "inbox thread servicehooks-inbox-poller is gone");
  }
}
