package io.servicehooks.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.testkit.TestSigner;
import io.servicehooks.testsupport.TestDatabase;
import io.servicehooks.undertow.WebhookServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** A real server in durable mode, signed deliveries over HTTP, the inbox on PostgreSQL. */
final class DurableEndToEndTest {

  private static final String SECRET = "e2e-consumer-secret";

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final List<String> handled = new CopyOnWriteArrayList<>();
  private TestDatabase.Schema schema;
  private HikariDataSource pool;
  private WebhookConsumer consumer;
  private WebhookServer server;

  @BeforeEach
  void setUp() throws Exception {
    schema = TestDatabase.schema();
    pool = TestDatabase.pool(6);
  }

  @AfterEach
  void tearDown() throws Exception {
    if (server != null) {
      server.close();
    }
    if (consumer != null) {
      consumer.close();
    }
    pool.close();
    schema.close();
  }

  private void serve(javax.sql.DataSource dataSource) {
    PostgresInbox inbox =
        PostgresInbox.builder()
            .dataSource(dataSource)
            .schema(schema.name)
            .pollInterval(Duration.ofMillis(20))
            .build();
    consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .inbox(inbox)
            .inboxTimeout(Duration.ofSeconds(3))
            .on(
                "post.create",
                event -> handled.add(event.id() + ":" + event.payload().path("text").asText()))
            .on(
                "follow.*",
                event -> handled.add(event.type() + ":" + event.forUserId().orElse("?")))
            .build();
    server = WebhookServer.builder(consumer).port(0).build().start();
  }

  private HttpResponse<String> post(String body) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + server.path()))
            .timeout(Duration.ofSeconds(9))
            .header(TestSigner.SIGNATURE_HEADER, TestSigner.sign(SECRET, body))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private long rows(String eventId) throws Exception {
    return schema.number(
        "SELECT count(*) FROM " + schema.table() + " WHERE event_id = '" + eventId + "'");
  }

  @Test
  void signedDeliveries_answered200OnlyOnceStoredThenHandledOnce() throws Exception {
    PostgresInbox.builder().dataSource(pool).schema(schema.name).createSchema(true).build().close();
    serve(pool);
    String post =
        io.servicehooks.testkit.Events.activity(
            "post.create",
            "2244994945",
            java.util.Map.of("id", "1001", "text", "first post", "author_id", "783214"));
    String uuid =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .readTree(post)
            .path("data")
            .path("event_uuid")
            .asText();

    HttpResponse<String> first = post(post);

    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body()).isEqualTo("{\"status\":\"accepted\",\"events\":1,\"duplicates\":0}");
    // The 200 came after the commit: the row is there for anyone who looks now.
    assertThat(rows(uuid)).isEqualTo(1);
    await().atMost(Duration.ofSeconds(5)).until(() -> handled.contains(uuid + ":first post"));

    HttpResponse<String> copy = post(post);

    assertThat(copy.statusCode()).isEqualTo(200);
    assertThat(copy.body()).isEqualTo("{\"status\":\"duplicate\",\"events\":0,\"duplicates\":1}");
    assertThat(rows(uuid)).isEqualTo(1);

    HttpResponse<String> batch =
        post(io.servicehooks.testkit.Events.accountFollow("777", "unfollow", "1", "2"));
    assertThat(batch.statusCode()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(5)).until(() -> handled.contains("follow.unfollow:777"));
    assertThat(handled).containsExactly(uuid + ":first post", "follow.unfollow:777");
  }

  @Test
  void databaseUnreachable_answered503InboxUnavailableAndNothingStored() throws Exception {
    PostgresInbox.builder().dataSource(pool).schema(schema.name).createSchema(true).build().close();
    PGSimpleDataSource nowhere = new PGSimpleDataSource();
    nowhere.setURL("jdbc:postgresql://127.0.0.1:9/test?user=postgres");
    nowhere.setConnectTimeout(1);
    nowhere.setLoginTimeout(1);
    serve(nowhere);

    HttpResponse<String> r =
        post(
            io.servicehooks.testkit.Events.activity(
                "post.create",
                "2244994945",
                java.util.Map.of("id", "1002", "text", "lost?", "author_id", "783214")));

    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(r.headers().firstValue("Retry-After")).contains("1");
    assertThat(r.body()).startsWith("{\"error\":\"inbox_unavailable\"");
    assertThat(schema.number("SELECT count(*) FROM " + schema.table())).isZero();
    assertThat(handled).isEmpty();
  }
}
