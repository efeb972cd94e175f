package io.servicehooks.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.testkit.ConsumerStub;
import io.servicehooks.testkit.OpenStream;
import io.servicehooks.testkit.PlatformSimulator;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code servicehooks connections ...} and {@code subscriptions update} against the simulator. */
final class ConnectionsCommandTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final PlatformSimulator platform =
      PlatformSimulator.builder().localMode(true).streamConnectionLimit(3).build().start();
  private final TestStreams streams = new TestStreams(platform);
  private final Map<String, String> env =
      Map.of(
          "SERVICE_API_BASE_URL", platform.baseUrl().toString(),
          "SERVICE_API_KEY", platform.apiKey(),
          "SERVICE_API_SECRET", platform.apiSecret());

  @AfterEach
  void stop() {
    streams.close();
    platform.close();
  }

  private Cli.Run run(String... args) {
    return Cli.run(env, args);
  }

  @Test
  void list_twoOpen_tableWithBothIds() {
    streams.open();
    streams.open();

    Cli.Run list = run("connections", "list");

    assertThat(list.exitCode()).as(list.toString()).isZero();
    assertThat(list.out()).contains("ENDPOINT_ID", "CONNECTED_AT");
    for (OpenStream stream : platform.openStreams()) {
      assertThat(list.out()).contains(stream.endpointId());
    }
  }

  @Test
  void list_json_arrayWithFieldsAsGiven() throws Exception {
    streams.open();

    Cli.Run list = run("--json", "connections", "list");

    JsonNode array = JSON.readTree(list.out());
    assertThat(array).hasSize(1);
    assertThat(array.get(0).get("endpoint_id").asText())
        .isEqualTo(platform.openStreams().get(0).endpointId());
    assertThat(array.get(0).get("endpoint").asText()).isEqualTo("/2/activity/stream");
  }

  @Test
  void list_none_saysSo() {
    Cli.Run list = run("connections", "list");

    assertThat(list.exitCode()).isZero();
    assertThat(list.out()).contains("No open stream connections.");
  }

  @Test
  void kill_id_thatConnectionEnds() {
    streams.open();
    streams.open();
    String id = platform.openStreams().get(0).endpointId();

    Cli.Run kill = run("connections", "kill", id);

    assertThat(kill.exitCode()).as(kill.toString()).isZero();
    assertThat(kill.out()).contains("Ended connection " + id + ": 1 connection.");
    await().until(() -> platform.openStreams().size() == 1);
    assertThat(platform.openStreams().get(0).endpointId()).isNotEqualTo(id);
  }

  @Test
  void kill_all_everyConnectionEnds() {
    streams.open();
    streams.open();
    streams.open();

    Cli.Run kill = run("connections", "kill", "--all");

    assertThat(kill.exitCode()).as(kill.toString()).isZero();
    assertThat(kill.out()).contains("3 connections");
    await().until(() -> platform.openStreams().isEmpty());
  }

  @Test
  void kill_unknownId_exit1WithPlatformReason() {
    Cli.Run kill = run("connections", "kill", "4242");

    assertThat(kill.exitCode()).isEqualTo(1);
    assertThat(kill.err()).contains("404");
  }

  @Test
  void kill_neitherOrBoth_exit2() {
    assertThat(run("connections", "kill").exitCode()).isEqualTo(2);
    assertThat(run("connections", "kill", "1", "--all").exitCode()).isEqualTo(2);
  }

  @Test
  void subscriptionsUpdate_tagThenNoWebhook_changedOnPlatform() throws Exception {
    ConsumerStub consumer = ConsumerStub.start(platform.consumerSecret());
    try {
      Cli.Run created =
          run("--json", "webhooks", "create", consumer.url("/webhook"), "--allow-insecure-url");
      String webhookId = JSON.readTree(created.out()).get("id").asText();
      Cli.Run subscribed =
          run(
              "--json",
              "subscriptions",
              "create",
              "--event-type",
              "post.create",
              "--user-id",
              "1",
              "--webhook-id",
              webhookId);
      String id = JSON.readTree(subscribed.out()).get("id").asText();

      Cli.Run tagged = run("--json", "subscriptions", "update", id, "--tag", "vip");
      Cli.Run detached = run("subscriptions", "update", id, "--no-webhook");

      assertThat(tagged.exitCode()).as(tagged.toString()).isZero();
      JsonNode after = JSON.readTree(tagged.out());
      assertThat(after.get("tag").asText()).isEqualTo("vip");
      assertThat(after.get("webhook_id").asText()).isEqualTo(webhookId);
      assertThat(detached.exitCode()).as(detached.toString()).isZero();
      JsonNode listed = JSON.readTree(run("--json", "subscriptions", "list").out()).get(0);
      assertThat(listed.get("tag").asText()).isEqualTo("vip");
      assertThat(listed.has("webhook_id")).isFalse();
      Cli.Run reattached = run("--json", "subscriptions", "update", id, "--webhook-id", webhookId);
      assertThat(JSON.readTree(reattached.out()).get("webhook_id").asText()).isEqualTo(webhookId);
    } finally {
      consumer.close();
    }
  }

  @Test
  void subscriptionsUpdate_badArguments_exit2_unknownId_exit1() {
    assertThat(run("subscriptions", "update", "1").exitCode()).isEqualTo(2);
    assertThat(run("subscriptions", "update", "1", "--webhook-id", "2", "--no-webhook").exitCode())
        .isEqualTo(2);
    Cli.Run unknown = run("subscriptions", "update", "999", "--tag", "x");
    assertThat(unknown.exitCode()).isEqualTo(1);
    assertThat(unknown.err()).contains("404");
  }
}
