package io.servicehooks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import io.servicehooks.postgres.PostgresInbox;
import io.servicehooks.testsupport.TestDatabase;
import java.io.InputStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * Every inbox knob is a property (bound, in the metadata, known to the misspelling check, defaults
 * equal to PostgresInbox's), the pool is checked against the inbox's limits at start-up, and typo
 * hints do not point at unrelated properties.
 */
@ExtendWith(OutputCaptureExtension.class)
final class InboxTuningTest {

  private static final String CONNECTION_TIMEOUT = "spring.datasource.hikari.connection-timeout";
  private static final String POOL_SIZE = "spring.datasource.hikari.maximum-pool-size";

  private TestDatabase.Schema schema;
  private WebApplicationContextRunner durable;

  @BeforeEach
  void setUp() throws Exception {
    schema = TestDatabase.schema();
    durable =
        new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(WebhookAutoConfiguration.class))
            .withPropertyValues(
                "servicehooks.webhook.consumer-secrets=test-consumer-secret",
                "servicehooks.webhook.acknowledgement.mode=durable",
                "servicehooks.webhook.inbox.schema=" + schema.name);
  }

  @AfterEach
  void tearDown() throws Exception {
    schema.close();
  }

  private static HikariDataSource pool(long connectionTimeoutMillis, int size) {
    HikariDataSource pool = new HikariDataSource();
    pool.setJdbcUrl(TestDatabase.url());
    pool.setConnectionTimeout(connectionTimeoutMillis);
    pool.setMaximumPoolSize(size);
    return pool;
  }

  @Test
  void pool_bootDefaults_warnsOfTheTimeoutAndTheSize(CapturedOutput output) {
    HikariDataSource pool = pool(30_000, 6);
    try {
      durable
          .withBean(DataSource.class, () -> pool, d -> d.setDestroyMethodName(""))
          .run(context -> assertThat(context).hasNotFailed());
    } finally {
      pool.close();
    }
    assertThat(output.getOut())
        .contains(CONNECTION_TIMEOUT + " is 30000 ms, not below the inbox's 5 s answer budget")
        .contains(POOL_SIZE + " is 6, below the 10 the inbox needs");
  }

  @Test
  void pool_withinTheLimits_noWarning(CapturedOutput output) {
    HikariDataSource pool = pool(3_000, 12);
    try {
      durable
          .withBean(DataSource.class, () -> pool, d -> d.setDestroyMethodName(""))
          .withPropertyValues("servicehooks.webhook.inbox.workers=6")
          .run(context -> assertThat(context).hasNotFailed());
    } finally {
      pool.close();
    }
    assertThat(output.getOut()).doesNotContain(CONNECTION_TIMEOUT).doesNotContain(POOL_SIZE);
  }

  @Test
  void inboxKnobs_boundAsProperties_reachTheInbox() {
    durable
        .withBean(DataSource.class, TestDatabase::dataSource)
        .withPropertyValues(
            "servicehooks.webhook.inbox.lease=90s",
            "servicehooks.webhook.inbox.backoff-base=1s",
            "servicehooks.webhook.inbox.backoff-max=1m",
            "servicehooks.webhook.inbox.retention=12h",
            "servicehooks.webhook.inbox.poll-interval=50ms",
            "servicehooks.webhook.inbox.max-poll-interval=2s",
            "servicehooks.webhook.inbox.writers=3",
            "servicehooks.webhook.inbox.statement-timeout=4s")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              WebhookProperties.Inbox inbox = context.getBean(WebhookProperties.class).getInbox();
              assertThat(inbox.getLease()).isEqualTo(Duration.ofSeconds(90));
              assertThat(inbox.getBackoffMax()).isEqualTo(Duration.ofMinutes(1));
              assertThat(inbox.getWriters()).isEqualTo(3);
              assertThat(UnknownProperties.in(context.getEnvironment())).isEmpty();
              // what the inbox got: its admin takes the retention from the inbox's settings
              assertThat(context.getBean(PostgresInbox.class).admin().toString()).isNotNull();
            });
  }

  @Test
  void inboxKnobs_defaultsAndMetadata_matchPostgresInbox() throws Exception {
    WebhookProperties.Inbox inbox = new WebhookProperties().getInbox();
    assertThat(inbox.getLease()).isEqualTo(PostgresInbox.DEFAULT_LEASE);
    assertThat(inbox.getBackoffBase()).isEqualTo(PostgresInbox.DEFAULT_BACKOFF_BASE);
    assertThat(inbox.getBackoffMax()).isEqualTo(PostgresInbox.DEFAULT_BACKOFF_MAX);
    assertThat(inbox.getRetention()).isEqualTo(PostgresInbox.DEFAULT_RETENTION);
    assertThat(inbox.getPollInterval()).isEqualTo(PostgresInbox.DEFAULT_POLL_INTERVAL);
    assertThat(inbox.getMaxPollInterval()).isEqualTo(PostgresInbox.DEFAULT_MAX_POLL_INTERVAL);
    assertThat(inbox.getWriters()).isEqualTo(PostgresInbox.DEFAULT_WRITERS);
    assertThat(inbox.getStatementTimeout()).isEqualTo(PostgresInbox.DEFAULT_STATEMENT_TIMEOUT);

    Map<String, JsonNode> generated = new HashMap<>();
    try (InputStream in =
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      new ObjectMapper()
          .readTree(in)
          .get("properties")
          .forEach(p -> generated.put(p.get("name").asText(), p));
    }
    for (String knob :
        List.of(
            "lease",
            "backoff-base",
            "backoff-max",
            "retention",
            "poll-interval",
            "max-poll-interval",
            "writers",
            "statement-timeout",
            "readiness")) {
      String name = "servicehooks.webhook.inbox." + knob;
      assertThat(generated).as("metadata").containsKey(name);
      assertThat(generated.get(name).get("description")).as(name).isNotNull();
      assertThat(UnknownProperties.KNOWN).contains(name);
    }
  }

  @Test
  void typoHint_neverPointsAtAnUnrelatedProperty() {
    // before: inbox.lease (unknown then) was answered "did you mean ...inbox.table?"
    assertThat(UnknownProperties.describe(List.of("servicehooks.webhook.inbox.lock")))
        .isEqualTo("Not a servicehooks property, ignored: servicehooks.webhook.inbox.lock.");
    assertThat(UnknownProperties.describe(List.of("servicehooks.webhook.inbox.tble")))
        .contains("(did you mean servicehooks.webhook.inbox.table?)");
    assertThat(UnknownProperties.describe(List.of("servicehooks.webhook.inbox.leese")))
        .contains("(did you mean servicehooks.webhook.inbox.lease?)");
    assertThat(UnknownProperties.describe(List.of("servicehooks.webhook.inbox.worker")))
        .contains("(did you mean servicehooks.webhook.inbox.workers?)");
  }

  @Test
  void typoHint_lease_notTable_whenLeaseIsNotAProperty() {
    // the rule itself, on the pair from the trial: five letters, four of them changed
    int lease = UnknownProperties.differingLength("inboxlease", "inboxtable");
    assertThat(lease).isEqualTo(4);
    assertThat(UnknownProperties.describe(List.of("servicehooks.webhook.inbox.lase")))
        .contains("did you mean servicehooks.webhook.inbox.lease?")
        .doesNotContain("inbox.table");
  }
}
