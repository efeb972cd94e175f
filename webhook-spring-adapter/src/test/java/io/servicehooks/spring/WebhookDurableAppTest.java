package io.servicehooks.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.core.WebhookListener;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.postgres.DeadLetter;
import io.servicehooks.postgres.DeadLetterListener;
import io.servicehooks.testkit.TestSigner;
import io.servicehooks.testsupport.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Durable mode in a real Boot application on an ephemeral port, over HTTP: a signed delivery is
 * stored and handled, a failing one becomes a dead letter that {@code /actuator/webhookinbox} shows
 * and retries, and {@code /actuator/health} shows the {@code webhookInbox} component.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = WebhookDurableAppTest.App.class,
    properties = {
      "servicehooks.webhook.consumer-secrets=" + WebhookDurableAppTest.SECRET,
      "servicehooks.webhook.acknowledgement.mode=durable",
      "servicehooks.webhook.inbox.create-schema=true",
      "servicehooks.webhook.inbox.max-attempts=1",
      "management.endpoints.web.exposure.include=health,webhookinbox",
      "management.endpoint.health.show-details=always",
      "spring.main.banner-mode=off"
    })
@DirtiesContext
// one application and one inbox for all: the first test counts rows from an empty inbox
@TestMethodOrder(MethodOrderer.MethodName.class)
final class WebhookDurableAppTest {

  static final String SECRET = "test-consumer-secret";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static TestDatabase.Schema schema;

  @LocalServerPort int port;
  @Autowired Listening listening;
  @Autowired Alerts alerts;

  private final HttpClient http = HttpClient.newHttpClient();

  @DynamicPropertySource
  static void inboxSchema(DynamicPropertyRegistry registry) throws Exception {
    schema = TestDatabase.schema();
    registry.add("servicehooks.webhook.inbox.schema", () -> schema.name);
  }

  @AfterAll
  static void dropSchema() throws Exception {
    schema.close();
  }

  @Test
  void deliveries_storedHandledDeadLetteredAndRetriedThroughTheEndpoint() throws Exception {
    assertThat(deliver("ok-1").statusCode()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(10)).until(() -> listening.seen.contains("ok-1"));

    listening.failing.set(true);
    assertThat(deliver("fail-1").statusCode()).isEqualTo(200);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> read("/actuator/webhookinbox").get("dead").asLong() == 1);

    JsonNode inbox = read("/actuator/webhookinbox?limit=5");
    assertThat(inbox.get("done").asLong()).isEqualTo(1);
    JsonNode dead = inbox.get("deadLetters").get(0);
    assertThat(dead.get("eventId").asText()).isEqualTo("fail-1");
    assertThat(dead.get("lastError").asText()).contains("listener down for fail-1");

    JsonNode health = read("/actuator/health").get("components").get("webhookInbox");
    assertThat(health.get("status").asText()).isEqualTo("UP");
    assertThat(health.get("details").get("dead").asLong()).isEqualTo(1);
    assertThat(health.get("details").get("pending").asLong()).isZero();

    listening.failing.set(false);
    HttpResponse<String> retried =
        http.send(
            HttpRequest.newBuilder(uri("/actuator/webhookinbox"))
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString("{\"id\":" + dead.get("id").asLong() + "}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(retried.statusCode()).as(retried.body()).isEqualTo(200);
    assertThat(JSON.readTree(retried.body()).get("retried").asInt()).isEqualTo(1);
    await().atMost(Duration.ofSeconds(10)).until(() -> listening.seen.contains("fail-1"));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> read("/actuator/webhookinbox").get("done").asLong() == 2);
    assertThat(alerts.letters).extracting(DeadLetter::eventId).containsOnlyOnce("fail-1");
  }

  @Test
  void endpoint_unknownIdOrEmptyBody_answers404Or400WithTheReason() throws Exception {
    HttpResponse<String> unknown = post("{\"id\":987654321}");
    assertThat(unknown.statusCode()).as(unknown.body()).isEqualTo(404);
    assertThat(JSON.readTree(unknown.body()).get("error").asText())
        .isEqualTo("no dead or pending inbox row has id 987654321");

    HttpResponse<String> empty = post("{}");
    assertThat(empty.statusCode()).as(empty.body()).isEqualTo(400);
    assertThat(empty.body()).contains("\"id\"").contains("\"allDead\"");
    assertThat(JSON.readTree(empty.body()).get("fields").toString())
        .isEqualTo("[\"id\",\"allDead\"]");

    HttpResponse<String> both = post("{\"id\":1,\"allDead\":true}");
    assertThat(both.statusCode()).as(both.body()).isEqualTo(400);
  }

  @Test
  void endpoint_deleteDeadLetter_discardsItAndCallsTheAlertOnce() throws Exception {
    listening.failing.set(true);
    try {
      assertThat(deliver("discard-1").statusCode()).isEqualTo(200);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> alerts.letters.stream().anyMatch(l -> l.eventId().equals("discard-1")));
    } finally {
      listening.failing.set(false);
    }
    long id =
        alerts.letters.stream().filter(l -> l.eventId().equals("discard-1")).findFirst().get().id();

    HttpResponse<String> discarded = delete("/actuator/webhookinbox/" + id);
    assertThat(discarded.statusCode()).as(discarded.body()).isEqualTo(200);
    assertThat(JSON.readTree(discarded.body()).get("discarded").asInt()).isEqualTo(1);

    HttpResponse<String> again = delete("/actuator/webhookinbox/" + id);
    assertThat(again.statusCode()).as(again.body()).isEqualTo(404);
    assertThat(JSON.readTree(again.body()).get("error").asText())
        .isEqualTo("no dead inbox row has id " + id);
    // discarded, not deleted: the same event again is a duplicate, its listener does not run
    assertThat(deliver("discard-1").body()).contains("duplicate");
    assertThat(listening.seen).doesNotContain("discard-1");
  }

  private HttpResponse<String> post(String json) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri("/actuator/webhookinbox"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> delete(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri(path)).DELETE().build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Records the dead letters, as an application's pager would be called. */
  static final class Alerts implements DeadLetterListener {
    final List<DeadLetter> letters = new CopyOnWriteArrayList<>();

    @Override
    public void deadLettered(DeadLetter letter) {
      letters.add(letter);
    }
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }

  private JsonNode read(String path) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  private HttpResponse<String> deliver(String id) throws Exception {
    String body = WebhookAutoConfigurationTest.Bodies.post(id, "hello");
    return http.send(
        HttpRequest.newBuilder(uri("/webhooks"))
            .header("Content-Type", "application/json")
            .header(WebhookRequest.SIGNATURE_HEADER, TestSigner.sign(SECRET, body))
            .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** A listener that records what ran, or fails while told to. */
  static final class Listening implements WebhookListener {
    final List<String> seen = new CopyOnWriteArrayList<>();
    final AtomicBoolean failing = new AtomicBoolean();

    @Override
    public void onEvent(io.servicehooks.core.WebhookEvent event) {
      if (failing.get()) {
        throw new IllegalStateException("listener down for " + event.id());
      }
      seen.add(event.id());
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {

    @Bean
    Listening listening() {
      return new Listening();
    }

    @Bean
    Alerts alerts() {
      return new Alerts();
    }

    @Bean
    DataSource dataSource() {
      return TestDatabase.dataSource();
    }

    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
      // open for this test only: secure the webhookinbox endpoint in an application
      http.csrf(
              csrf ->
                  csrf.ignoringRequestMatchers(
                      "/webhooks", "/actuator/webhookinbox", "/actuator/webhookinbox/**"))
          .authorizeHttpRequests(
              requests ->
                  requests
                      .requestMatchers(
                          "/webhooks",
                          "/actuator/health",
                          "/actuator/webhookinbox",
                          "/actuator/webhookinbox/**")
                      .permitAll()
                      .anyRequest()
                      .authenticated());
      return http.build();
    }
  }
}
