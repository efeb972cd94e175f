package io.servicehooks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.catchup.CatchUp;
import io.servicehooks.postgres.PostgresInbox;
import io.servicehooks.testsupport.Ports;
import io.servicehooks.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * Start-up against infrastructure that is missing or refuses: each failure is one failure analysis
 * (a description naming the property, one action), never a bare stack trace, and no password.
 */
@ExtendWith(OutputCaptureExtension.class)
final class WebhookStartupFailuresTest {

  private static final String SECRET = "test-consumer-secret";
  private static final String PASSWORD = "pw-never-shown-7c2d";

  private TestDatabase.Schema schema;
  private WebApplicationContextRunner durable;

  @BeforeEach
  void setUp() throws Exception {
    schema = TestDatabase.schema();
    durable =
        new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(WebhookAutoConfiguration.class))
            .withInitializer(FakeEnvironment.of(Map.of()))
            .withPropertyValues(
                "servicehooks.webhook.consumer-secrets=" + SECRET,
                "servicehooks.webhook.acknowledgement.mode=durable",
                "servicehooks.webhook.inbox.schema=" + schema.name);
  }

  @AfterEach
  void tearDown() throws Exception {
    schema.close();
  }

  @Test
  void durable_createSchemaFalseAndNoTable_failsNamingThePropertyAndTheMigrations() {
    durable
        .withBean(DataSource.class, TestDatabase::dataSource)
        .withPropertyValues("servicehooks.webhook.inbox.create-schema=false")
        .run(
            context -> {
              FailureAnalysis analysis = analysis(context);
              assertThat(analysis.getDescription())
                  .contains(schema.name + ".webhook_inbox does not exist")
                  .contains("servicehooks.webhook.inbox.create-schema=false");
              assertThat(analysis.getAction())
                  .contains("servicehooks.webhook.inbox.create-schema=true")
                  .contains("db/migration/servicehooks/V1__inbox.sql");
            });
  }

  @Test
  void durable_createSchemaFalseAndTableApplied_starts() {
    durable
        .withBean(DataSource.class, TestDatabase::dataSource)
        .run(context -> assertThat(context).hasNotFailed()); // default: creates it
    durable
        .withBean(DataSource.class, TestDatabase::dataSource)
        .withPropertyValues("servicehooks.webhook.inbox.create-schema=false")
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(PostgresInbox.class));
  }

  @Test
  void durable_createSchemaUnset_createsTheTable() throws Exception {
    durable
        .withBean(DataSource.class, TestDatabase::dataSource)
        .run(context -> assertThat(context).hasNotFailed());
    try (Connection c = TestDatabase.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery("SELECT to_regclass('" + schema.name + ".webhook_inbox') IS NOT NULL")) {
      r.next();
      assertThat(r.getBoolean(1)).isTrue();
    }
  }

  @Test
  void durable_databaseUnreachable_failsNamingTheDataSourceUrlWithoutItsPassword()
      throws Exception {
    int port = Ports.free();
    PGSimpleDataSource nowhere = new PGSimpleDataSource();
    nowhere.setURL("jdbc:postgresql://127.0.0.1:" + port + "/test");
    nowhere.setPassword(PASSWORD);
    nowhere.setConnectTimeout(1);
    durable
        .withBean(DataSource.class, () -> nowhere)
        .withPropertyValues(
            "spring.datasource.url=jdbc:postgresql://127.0.0.1:"
                + port
                + "/test?user=app&password="
                + PASSWORD)
        .run(
            context -> {
              FailureAnalysis analysis = analysis(context);
              assertThat(analysis.getDescription())
                  .startsWith("Could not reach the database at spring.datasource.url=")
                  .contains("jdbc:postgresql://127.0.0.1:" + port + "/test")
                  .doesNotContain(PASSWORD);
              assertThat(analysis.getAction()).contains("spring.datasource.url");
            });
  }

  @Test
  void durable_unknownRole_failsNamingTheUsernameProperty() {
    PGSimpleDataSource stranger = TestDatabase.dataSource();
    stranger.setUser("servicehooks_no_such_role");
    stranger.setPassword(PASSWORD);
    durable
        .withBean(DataSource.class, () -> stranger)
        .withPropertyValues("spring.datasource.username=servicehooks_no_such_role")
        .run(
            context -> {
              FailureAnalysis analysis = analysis(context);
              assertThat(analysis.getDescription())
                  .contains(
                      "refused the login of spring.datasource.username=servicehooks_no_such_role")
                  .doesNotContain(PASSWORD);
              assertThat(analysis.getAction()).startsWith("Set spring.datasource.username");
            });
  }

  @Test
  void durable_withoutDataSource_failureAnalysisSaysWhatToAdd() {
    durable.run(
        context ->
            assertThat(analysis(context).getAction())
                .contains("spring-boot-starter-jdbc")
                .contains("spring.datasource.url"));
  }

  @Test
  void durable_withoutWebhookPostgres_failureAnalysisNamesTheStarter() {
    durable
        .withBean(DataSource.class, TestDatabase::dataSource)
        .withClassLoader(new FilteredClassLoader("io.servicehooks.postgres"))
        .run(
            context ->
                assertThat(analysis(context).getAction())
                    .contains("servicehooks-spring-boot-starter"));
  }

  @Test
  void redisDedup_unreachable_failsNamingTheRedisUrl() throws Exception {
    int port = Ports.free();
    redis()
        .withPropertyValues(
            "servicehooks.webhook.dedup.redis.url=redis://:" + PASSWORD + "@127.0.0.1:" + port)
        .run(
            context -> {
              FailureAnalysis analysis = analysis(context);
              assertThat(analysis.getDescription())
                  .startsWith("Webhook dedup on Redis could not connect")
                  .contains("servicehooks.webhook.dedup.redis.url")
                  .doesNotContain(PASSWORD);
              assertThat(analysis.getAction()).contains("servicehooks.webhook.dedup.redis.url");
            });
  }

  @Test
  void redisDedup_withoutWebhookRedis_failsNamingTheModule() {
    redis()
        .withClassLoader(new FilteredClassLoader("io.servicehooks.redis"))
        .withPropertyValues("servicehooks.webhook.dedup.redis.url=redis://127.0.0.1:6379")
        .run(
            context -> {
              FailureAnalysis analysis = analysis(context);
              assertThat(analysis.getDescription())
                  .contains("servicehooks.webhook.dedup.redis.url");
              assertThat(analysis.getAction()).contains("io.servicehooks:webhook-redis");
            });
  }

  @Test
  void catchUp_withoutClient_failsNamingTheRegistrationProperties() {
    new WebApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(WebhookAutoConfiguration.class, CatchUpAutoConfiguration.class))
        .withInitializer(FakeEnvironment.of(Map.of()))
        .withPropertyValues(
            "servicehooks.webhook.consumer-secrets=" + SECRET,
            "servicehooks.webhook.catch-up.enabled=true",
            "servicehooks.webhook.catch-up.webhook-id=1234567890")
        .run(
            context -> {
              assertThat(CatchUp.class).isNotNull();
              FailureAnalysis analysis = analysis(context);
              assertThat(analysis.getDescription())
                  .contains("servicehooks.webhook.catch-up.enabled=true");
              assertThat(analysis.getAction())
                  .contains("servicehooks.registration.public-url")
                  .contains("WebhookClient bean");
            });
  }

  @Test
  void durable_withRedisDedupUrl_opensNoRedisStoreAndWarnsOnce(CapturedOutput output)
      throws Exception {
    int port = Ports.free(); // nothing answers: before, start-up failed on a store never asked
    new WebApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                WebhookRedisAutoConfiguration.class, WebhookAutoConfiguration.class))
        .withInitializer(FakeEnvironment.of(Map.of()))
        .withBean(DataSource.class, TestDatabase::dataSource)
        .withPropertyValues(
            "servicehooks.webhook.consumer-secrets=" + SECRET,
            "servicehooks.webhook.acknowledgement.mode=durable",
            "servicehooks.webhook.inbox.schema=" + schema.name,
            "servicehooks.webhook.dedup.redis.url=redis://127.0.0.1:" + port)
        .run(
            context -> {
              assertThat(context)
                  .hasNotFailed()
                  .doesNotHaveBean(io.servicehooks.redis.RedisDeduplicator.class);
              context.publishEvent(
                  new org.springframework.context.event.ContextRefreshedEvent(context));
            });
    String warning =
        "servicehooks.webhook.dedup.redis.url / servicehooks.webhook.dedup.redis.enabled ignored";
    assertThat(output.getOut().split(java.util.regex.Pattern.quote(warning), -1)).hasSize(2);
    assertThat(output.getOut()).doesNotContain("Webhook dedup on Redis");
  }

  private static WebApplicationContextRunner redis() {
    return new WebApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                WebhookRedisAutoConfiguration.class, WebhookAutoConfiguration.class))
        .withInitializer(FakeEnvironment.of(Map.of()))
        .withPropertyValues("servicehooks.webhook.consumer-secrets=" + SECRET);
  }

  private static FailureAnalysis analysis(AssertableWebApplicationContext context) {
    assertThat(context).hasFailed();
    FailureAnalysis analysis =
        new WebhookSetupFailureAnalyzer().analyze(context.getStartupFailure());
    assertThat(analysis).as("a failure analysis for %s", context.getStartupFailure()).isNotNull();
    assertThat(analysis.getDescription()).doesNotContain("\n\tat ");
    return analysis;
  }
}
