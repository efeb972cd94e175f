package io.servicehooks.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.MeterRegistry;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.kafka.KafkaDeadLetter;
import io.servicehooks.kafka.KafkaDeadLetterListener;
import io.servicehooks.kafka.KafkaHandOff;
import io.servicehooks.kafka.KafkaSource;
import io.servicehooks.testkit.TestSigner;
import io.servicehooks.testsupport.TestKafka;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Two real Spring Boot applications on port 0 around a real KRaft broker: the edge answers a signed
 * delivery once the topic has it; the reader ({@code servicehooks.webhook.kafka.role=reader}, no
 * consumer secret) runs its {@link OnWebhookEvent} method once for it, sends the event whose method
 * keeps failing to the dead-letter topic (logged, counted, told to the application), serves no
 * webhook (its path is 404) and has the {@code webhookKafka} health in its readiness group.
 */
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
final class WebhookKafkaReaderAppTest {

  private static final String SECRET = "kafka-reader-app-test-consumer-secret-0123";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static TestKafka kafka;

  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void startBroker() throws Exception {
    kafka = TestKafka.start();
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void edgeThenReader_listenerRunsOnce_failingEventDeadLettered_noWebhookOnTheReader(
      CapturedOutput output) throws Exception {
    String topic = kafka.newTopic(2);
    String group = "reader-app-" + UUID.randomUUID();
    try {
      try (ConfigurableApplicationContext edge =
          start(
              "servicehooks.webhook.consumer-secrets=" + SECRET,
              "servicehooks.webhook.kafka.topic=" + topic)) {
        assertThat(edge.getBeansOfType(KafkaHandOff.class)).hasSize(1);
        int port = port(edge);
        // the platform's retry of ok-1 is handed on as well: the reader runs it once
        assertThat(deliver(port, "ok-1", "hello").statusCode()).isEqualTo(200);
        assertThat(deliver(port, "ok-1", "hello").statusCode()).isEqualTo(200);
        assertThat(deliver(port, "fail-1", "fail").statusCode()).isEqualTo(200);
        assertThat(deliver(port, "ok-2", "hello").statusCode()).isEqualTo(200);
      }
      assertThat(kafka.readAll(topic))
          .extracting(r -> TestKafka.header(r, KafkaHandOff.EVENT_ID_HEADER))
          .contains("ok-1", "fail-1", "ok-2");

      try (ConfigurableApplicationContext reader =
          start(
              "servicehooks.webhook.kafka.role=reader",
              "servicehooks.webhook.kafka.topic=" + topic,
              "spring.kafka.consumer.group-id=" + group,
              "servicehooks.webhook.kafka.max-attempts=2",
              "servicehooks.webhook.kafka.backoff-base=100ms")) {
        Listener listener = reader.getBean(Listener.class);
        Alerts alerts = reader.getBean(Alerts.class);
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> listener.seen.contains("ok-2") && !alerts.letters.isEmpty());
        assertThat(listener.seen).containsOnlyOnce("ok-1");
        assertThat(listener.failed).containsExactly("fail-1", "fail-1");
        KafkaDeadLetter letter = alerts.letters.get(0);
        assertThat(letter.eventId()).isEqualTo("fail-1");
        assertThat(letter.deadLetterTopic()).isEqualTo(topic + KafkaSource.DEAD_LETTER_SUFFIX);
        assertThat(letter.attempts()).isEqualTo(2);

        List<ConsumerRecord<String, byte[]>> dead =
            kafka.readAll(topic + KafkaSource.DEAD_LETTER_SUFFIX);
        assertThat(dead)
            .extracting(r -> TestKafka.header(r, KafkaHandOff.EVENT_ID_HEADER))
            .containsExactly("fail-1");
        assertThat(TestKafka.header(dead.get(0), KafkaSource.DEAD_LETTER_REASON_HEADER))
            .contains("listener refuses fail-1");

        MeterRegistry meters = reader.getBean(MeterRegistry.class);
        assertThat(
                meters
                    .get("webhook.kafka.records")
                    .tag("outcome", "dead_lettered")
                    .tag("group", group)
                    .counter()
                    .count())
            .isEqualTo(1);

        int port = port(reader);
        HttpResponse<String> webhook = deliver(port, "ok-3", "hello");
        assertThat(webhook.statusCode()).as(webhook.body()).isEqualTo(404);
        assertThat(listener.seen).doesNotContain("ok-3");

        JsonNode health = get(port, "/actuator/health");
        assertThat(health.at("/components/webhookKafka/status").asText()).isEqualTo("UP");
        JsonNode readiness = get(port, "/actuator/health/readiness");
        assertThat(readiness.at("/components/webhookKafka/status").asText()).isEqualTo("UP");
      }
      assertThat(output.getOut())
          .contains(
              "Webhook listeners run from Kafka topic "
                  + topic
                  + " at "
                  + kafka.bootstrapServers()
                  + " in group "
                  + group
                  + "; dead letters to "
                  + topic
                  + KafkaSource.DEAD_LETTER_SUFFIX)
          .contains("No webhook served (servicehooks.webhook.kafka.role=reader)")
          .contains("fail-1 dead-lettered to " + topic + KafkaSource.DEAD_LETTER_SUFFIX)
          .doesNotContain("Not a servicehooks property");
    } finally {
      kafka.deleteTopic(topic, topic + KafkaSource.DEAD_LETTER_SUFFIX);
      kafka.deleteGroup(group);
    }
  }

  private static ConfigurableApplicationContext start(String... properties) {
    String[] all = new String[properties.length + 8];
    all[0] = "server.port=0";
    all[1] = "spring.main.banner-mode=off";
    all[2] = "spring.kafka.bootstrap-servers=" + kafka.bootstrapServers();
    all[3] = "management.endpoints.web.exposure.include=health";
    all[4] = "management.endpoint.health.show-details=always";
    all[5] = "management.endpoint.health.show-components=always";
    all[6] = "management.endpoint.health.probes.enabled=true";
    all[7] = "management.endpoint.health.group.readiness.show-components=always";
    System.arraycopy(properties, 0, all, 8, properties.length);
    return new SpringApplicationBuilder(App.class)
        .web(WebApplicationType.SERVLET)
        .properties(all)
        .run();
  }

  private static int port(ConfigurableApplicationContext context) {
    return Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
  }

  private HttpResponse<String> deliver(int port, String id, String text) throws Exception {
    String body = WebhookAutoConfigurationTest.Bodies.post(id, text);
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/webhooks"))
            .header("Content-Type", "application/json")
            .header(WebhookRequest.SIGNATURE_HEADER, TestSigner.sign(SECRET, body))
            .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private JsonNode get(int port, String path) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  record Post(String id, String text) {}

  /** The application's listener: records what ran; refuses a post whose text is "fail". */
  static final class Listener {
    final List<String> seen = new CopyOnWriteArrayList<>();
    final List<String> failed = new CopyOnWriteArrayList<>();

    @OnWebhookEvent("post.create")
    void onPost(Post post) {
      if (post.text().equals("fail")) {
        failed.add(post.id());
        throw new IllegalStateException("listener refuses " + post.id());
      }
      seen.add(post.id());
    }
  }

  /** The application's dead-letter alert. */
  static final class Alerts implements KafkaDeadLetterListener {
    final List<KafkaDeadLetter> letters = new CopyOnWriteArrayList<>();

    @Override
    public void deadLettered(KafkaDeadLetter letter) {
      letters.add(letter);
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    Listener listener() {
      return new Listener();
    }

    @Bean
    Alerts alerts() {
      return new Alerts();
    }

    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
      // open for this test only: the webhook authenticates itself by its signature
      http.csrf(csrf -> csrf.disable())
          .authorizeHttpRequests(requests -> requests.anyRequest().permitAll());
      return http.build();
    }
  }
}
