package io.servicehooks.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.testkit.ConsumerStub;
import io.servicehooks.testkit.PlatformSimulator;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code servicehooks trigger} against a simulator with its control endpoint on. */
final class TriggerCommandTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private PlatformSimulator platform;
  private ConsumerStub consumer;
  private Map<String, String> env;

  @BeforeEach
  void start() throws Exception {
    platform = PlatformSimulator.builder().localMode(true).controlEndpoint(true).build().start();
    consumer = ConsumerStub.start(platform.consumerSecret());
    env =
        Map.of(
            "SERVICE_API_BASE_URL", platform.baseUrl().toString(),
            "SERVICE_API_KEY", platform.apiKey(),
            "SERVICE_API_SECRET", platform.apiSecret());
    Cli.Run created =
        Cli.run(env, "webhooks", "create", consumer.url("/webhook"), "--allow-insecure-url");
    assertThat(created.exitCode()).as(created.toString()).isZero();
  }

  @AfterEach
  void stop() {
    consumer.close();
    platform.close();
  }

  @Test
  void trigger_countAndDuplicate_consumerGetsEachEventTwiceSigned() throws Exception {
    Cli.Run run =
        Cli.run(env, "trigger", "post.create", "--count", "3", "--user-id", "77", "--duplicate");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out()).contains("Triggered post.create event", "Started 6 webhook deliveries");
    await().atMost(Duration.ofSeconds(10)).until(() -> consumer.deliveries().size() == 6);
    Set<String> ids = new HashSet<>();
    for (String body : consumer.deliveryBodies()) {
      JsonNode data = JSON.readTree(body).get("data");
      assertThat(data.get("event_type").asText()).isEqualTo("post.create");
      assertThat(data.get("filter").get("user_id").asText()).isEqualTo("77");
      ids.add(data.get("event_uuid").asText());
    }
    assertThat(ids).hasSize(3);
    assertThat(platform.attempts()).allMatch(a -> a.succeeded());
  }

  @Test
  void trigger_json_printsEventIds() throws Exception {
    Cli.Run run = Cli.run(env, "--json", "trigger", "dm.received");

    JsonNode data = JSON.readTree(run.out());
    assertThat(data.get("event_uuids")).hasSize(1);
    assertThat(data.get("webhook_deliveries").asInt()).isEqualTo(1);
  }

  @Test
  void trigger_webhookInvalid_saysWhyItStartedNone() {
    String id = webhookId();
    assertThat(platform.invalidateWebhook(id)).isTrue();

    Cli.Run run = Cli.run(env, "trigger", "post.create");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out())
        .contains("Started 0 webhook deliveries")
        .contains("No webhook delivery: webhook " + id + " is invalid")
        .contains("PUT /2/webhooks/" + id);
  }

  private String webhookId() {
    Cli.Run list = Cli.run(env, "--json", "webhooks", "list");
    try {
      return JSON.readTree(list.out()).get(0).get("id").asText();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void trigger_badCount_exit2() {
    assertThat(Cli.run(env, "trigger", "post.create", "--count", "0").exitCode()).isEqualTo(2);
  }

  @Test
  void trigger_noControlEndpoint_exit1Explained() {
    try (PlatformSimulator plain = PlatformSimulator.builder().build().start()) {
      Cli.Run run =
          Cli.run(
              Map.of("SERVICE_API_BASE_URL", plain.baseUrl().toString()), "trigger", "post.create");

      assertThat(run.exitCode()).isEqualTo(1);
      assertThat(run.err()).contains("no control endpoint");
    }
  }

  @Test
  void trigger_nothingListening_exit1() {
    Cli.Run run =
        Cli.run(Map.of("SERVICE_API_BASE_URL", "http://127.0.0.1:1"), "trigger", "post.create");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("cannot reach");
  }
}
