package io.servicehooks.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.core.Acknowledgement;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookListener;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookResponse;
import io.servicehooks.postgres.PostgresInbox;
import io.servicehooks.testkit.TestSigner;
import io.servicehooks.testsupport.TestDatabase;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code servicehooks.webhook.acknowledgement.mode=durable} on a real PostgreSQL: the inbox on the
 * application's DataSource, the {@code webhookinbox} endpoint and the {@code webhookInbox} health.
 */
final class WebhookDurableModeTest {

  private static final String SECRET = "test-consumer-secret";

  private TestDatabase.Schema schema;
  private WebApplicationContextRunner durable;

  @BeforeEach
  void setUp() throws Exception {
    schema = TestDatabase.schema();
    durable =
        new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(WebhookAutoConfiguration.class))
            .withPropertyValues(
                "servicehooks.webhook.consumer-secrets=" + SECRET,
                "servicehooks.webhook.acknowledgement.mode=durable",
                "servicehooks.webhook.inbox.schema=" + schema.name,
                "servicehooks.webhook.inbox.create-schema=true",
                "management.endpoints.web.exposure.include=health,webhookinbox")
            .withUserConfiguration(Listening.class);
  }

  @AfterEach
  void tearDown() throws Exception {
    schema.close();
  }

  @Test
  void durable_deliveryStoredThenListenersRunFromTheInbox() {
    durable
        .withUserConfiguration(Database.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(PostgresInbox.class);
              WebhookConsumer consumer = context.getBean(WebhookConsumer.class);
              assertThat(consumer.acknowledgement()).isEqualTo(Acknowledgement.DURABLE);
              Listening listening = context.getBean(Listening.class);

              WebhookResponse response = deliver(consumer, "p-1");

              assertThat(response.status()).as(response.bodyAsString()).isEqualTo(200);
              await().atMost(Duration.ofSeconds(10)).until(() -> listening.seen.contains("p-1"));
              PostgresInbox inbox = context.getBean(PostgresInbox.class);
              await().atMost(Duration.ofSeconds(10)).until(() -> inbox.admin().stats().done() == 1);
              // the same event again is a duplicate of the stored row: its listener does not run
              assertThat(deliver(consumer, "p-1").bodyAsString()).contains("duplicate");
              assertThat(listening.seen).containsExactly("p-1");
            });
  }

  @Test
  void durable_inboxMetersGoToTheApplicationsRegistry() {
    durable
        .withUserConfiguration(Database.class)
        .withBean(
            io.micrometer.core.instrument.simple.SimpleMeterRegistry.class,
            io.micrometer.core.instrument.simple.SimpleMeterRegistry::new)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              var registry =
                  context.getBean(io.micrometer.core.instrument.simple.SimpleMeterRegistry.class);
              WebhookResponse response = deliver(context.getBean(WebhookConsumer.class), "m-1");
              assertThat(response.status()).as(response.bodyAsString()).isEqualTo(200);
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(
                      () ->
                          registry.find("webhook.inbox.processing").timers().stream()
                                  .mapToLong(io.micrometer.core.instrument.Timer::count)
                                  .sum()
                              == 1);
              assertThat(registry.find("webhook.inbox.pending").gauge()).isNotNull();
            });
  }

  @Test
  void endpoint_readsDeadLettersAndRetriesThem() {
    durable
        .withUserConfiguration(Database.class)
        .withPropertyValues("servicehooks.webhook.inbox.max-attempts=1")
        .run(
            context -> {
              Listening listening = context.getBean(Listening.class);
              listening.failing.set(true);
              WebhookConsumer consumer = context.getBean(WebhookConsumer.class);
              WebhookInboxEndpoint endpoint = context.getBean(WebhookInboxEndpoint.class);
              assertThat(deliver(consumer, "p-dead").status()).isEqualTo(200);
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> ((Number) endpoint.inbox(null).get("dead")).longValue() == 1);

              Map<String, Object> read = endpoint.inbox(5);

              assertThat(read).containsEntry("pending", 0L).containsEntry("done", 0L);
              @SuppressWarnings("unchecked")
              List<Map<String, Object>> dead = (List<Map<String, Object>>) read.get("deadLetters");
              assertThat(dead).hasSize(1);
              assertThat(dead.get(0))
                  .containsEntry("eventId", "p-dead")
                  .containsEntry("attempts", 1)
                  .containsEntry(
                      "lastError", "java.lang.IllegalStateException: listener down for p-dead");
              long id = (Long) dead.get(0).get("id");

              listening.failing.set(false);
              assertThat(endpoint.retry(id, null).getBody())
                  .containsEntry("id", id)
                  .containsEntry("retried", 1);

              await().atMost(Duration.ofSeconds(10)).until(() -> listening.seen.contains("p-dead"));
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> ((Number) endpoint.inbox(null).get("done")).longValue() == 1);
              assertThat(endpoint.retry(id, null).getStatus()).isEqualTo(404);
              assertThat(endpoint.retry(id, null).getBody())
                  .containsEntry("error", "no dead or pending inbox row has id " + id);
              assertThat(endpoint.retry(null, true).getBody()).containsEntry("retried", 0);
              assertThat(endpoint.retry(null, null).getStatus()).isEqualTo(400);
              assertThatThrownBy(() -> endpoint.inbox(0))
                  .isInstanceOf(InvalidEndpointRequestException.class);
            });
  }

  @Test
  void endpoint_notExposed_absent() {
    durable
        .withUserConfiguration(Database.class)
        .withPropertyValues("management.endpoints.web.exposure.include=health")
        .run(
            context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(WebhookInboxEndpoint.class));
  }

  @Test
  void health_databaseAnswers_upWithCounts() {
    durable
        .withUserConfiguration(Database.class)
        .withPropertyValues("servicehooks.webhook.inbox.max-attempts=1")
        .run(
            context -> {
              context.getBean(Listening.class).failing.set(true);
              assertThat(deliver(context.getBean(WebhookConsumer.class), "p-h").status())
                  .isEqualTo(200);
              PostgresInbox inbox = context.getBean(PostgresInbox.class);
              await().atMost(Duration.ofSeconds(10)).until(() -> inbox.admin().stats().dead() == 1);

              Health health =
                  context.getBean("webhookInboxHealthIndicator", HealthIndicator.class).health();

              assertThat(health.getStatus()).isEqualTo(Status.UP);
              assertThat(health.getDetails())
                  .containsEntry("pending", 0L)
                  .containsEntry("dead", 1L)
                  .containsKey("lagSeconds");
            });
  }

  @Test
  void health_databaseCutAfterStart_down() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    PGSimpleDataSource nowhere = new PGSimpleDataSource();
    nowhere.setURL("jdbc:postgresql://127.0.0.1:" + port + "/test");
    nowhere.setUser("servicehooks");
    nowhere.setPassword("pw-never-shown-5b1e");
    nowhere.setConnectTimeout(1);
    // the real database while starting, then a real driver that finds nothing at its address
    AtomicBoolean cut = new AtomicBoolean();
    DataSource real = TestDatabase.dataSource();
    DataSource switching =
        (DataSource)
            java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                  try {
                    return method.invoke(cut.get() ? nowhere : real, args);
                  } catch (java.lang.reflect.InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    durable
        .withBean(DataSource.class, () -> switching)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              cut.set(true);
              Health health =
                  context.getBean("webhookInboxHealthIndicator", HealthIndicator.class).health();

              assertThat(health.getStatus()).isEqualTo(Status.DOWN);
              assertThat(health.getDetails()).containsEntry("sqlState", "08001");
              assertThat(health.toString()).doesNotContain("pw-never-shown-5b1e");
            });
  }

  @Test
  void classPath_withoutActuator_durableModeWithoutTheEndpoint() {
    durable
        .withUserConfiguration(Database.class)
        .withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate"))
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .hasSingleBean(PostgresInbox.class)
                    .doesNotHaveBean(WebhookInboxEndpoint.class));
  }

  @Test
  void durable_withoutWebhookPostgres_failsStartupNamingTheModule() {
    durable
        .withUserConfiguration(Database.class)
        .withClassLoader(new FilteredClassLoader("io.servicehooks.postgres"))
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("servicehooks.webhook.acknowledgement.mode=durable")
                    .hasMessageContaining("io.servicehooks:webhook-postgres"));
  }

  @Test
  void durable_withoutDataSource_failsStartupNamingIt() {
    durable.run(
        context ->
            assertThat(context)
                .getFailure()
                .rootCause()
                .hasMessageContaining("servicehooks.webhook.acknowledgement.mode=durable")
                .hasMessageContaining("DataSource"));
  }

  @Test
  void notDurable_noInbox() {
    new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WebhookAutoConfiguration.class))
        .withPropertyValues("servicehooks.webhook.consumer-secrets=" + SECRET)
        .withUserConfiguration(Database.class)
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .doesNotHaveBean(PostgresInbox.class)
                    .doesNotHaveBean(WebhookInboxEndpoint.class)
                    .doesNotHaveBean("webhookInboxHealthIndicator"));
  }

  @Test
  void inboxProperties_defaultsAndMetadata_matchPostgresInbox() throws Exception {
    WebhookProperties.Inbox inbox = new WebhookProperties().getInbox();
    assertThat(inbox.getSchema()).isEqualTo(PostgresInbox.DEFAULT_SCHEMA);
    assertThat(inbox.getTable()).isEqualTo(PostgresInbox.DEFAULT_TABLE);
    assertThat(inbox.getWorkers()).isEqualTo(PostgresInbox.DEFAULT_WORKERS);
    assertThat(inbox.getMaxAttempts()).isEqualTo(PostgresInbox.DEFAULT_MAX_ATTEMPTS);
    assertThat(inbox.isCreateSchema()).isTrue();
    Map<String, JsonNode> defaults = new HashMap<>();
    try (InputStream in =
        getClass().getResourceAsStream("/META-INF/additional-spring-configuration-metadata.json")) {
      new ObjectMapper()
          .readTree(in)
          .get("properties")
          .forEach(p -> defaults.put(p.get("name").asText(), p.get("defaultValue")));
    }
    assertThat(defaults.get("servicehooks.webhook.inbox.schema").asText())
        .isEqualTo(PostgresInbox.DEFAULT_SCHEMA);
    assertThat(defaults.get("servicehooks.webhook.inbox.table").asText())
        .isEqualTo(PostgresInbox.DEFAULT_TABLE);
    assertThat(defaults.get("servicehooks.webhook.inbox.workers").asInt())
        .isEqualTo(PostgresInbox.DEFAULT_WORKERS);
    assertThat(defaults.get("servicehooks.webhook.inbox.max-attempts").asInt())
        .isEqualTo(PostgresInbox.DEFAULT_MAX_ATTEMPTS);
    assertThat(defaults.get("servicehooks.webhook.inbox.create-schema").asBoolean()).isTrue();
  }

  private static WebhookResponse deliver(WebhookConsumer consumer, String id) {
    String json = WebhookAutoConfigurationTest.Bodies.post(id, "hello");
    return consumer
        .handle(
            WebhookRequest.post(
                TestSigner.sign(SECRET, json), json.getBytes(StandardCharsets.UTF_8)))
        .join();
  }

  /** The application's DataSource: the real test database. */
  @Configuration(proxyBeanMethods = false)
  static class Database {
    @Bean
    DataSource dataSource() {
      return TestDatabase.dataSource();
    }
  }

  /** A listener that records what ran, or fails while told to. */
  @Configuration(proxyBeanMethods = false)
  static class Listening {
    final List<String> seen = new CopyOnWriteArrayList<>();
    final AtomicBoolean failing = new AtomicBoolean();

    @Bean
    WebhookListener recordingListener() {
      return event -> {
        if (failing.get()) {
          throw new IllegalStateException("listener down for " + event.id());
        }
        seen.add(event.id());
      };
    }
  }
}
