package io.servicehooks.testkit;

import static io.servicehooks.testkit.PlatformClient.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

final class ResponseStyleTest {

  private static final DateTimeFormatter REPLAY_DATE =
      DateTimeFormatter.ofPattern("yyyyMMddHHmm").withZone(ZoneOffset.UTC);

  private final PlatformSimulator simulator =
      PlatformSimulator.builder().localMode(true).build().start();
  private final PlatformClient client = new PlatformClient(simulator);
  private final ConsumerStub consumer;

  ResponseStyleTest() throws IOException {
    consumer = ConsumerStub.start(simulator.consumerSecret());
    simulator.responseStyle(ResponseStyle.LEGACY);
  }

  @AfterEach
  void close() {
    simulator.close();
    consumer.close();
  }

  @Test
  void legacyCreate_crcPasses_bareObject() {
    JsonNode body = json(client.createWebhook(consumer.url()));

    assertThat(body.has("data")).isFalse();
    assertThat(body.get("id").asText()).matches("[0-9]+");
    assertThat(body.get("valid").asBoolean()).isTrue();
  }

  @Test
  void legacyRevalidate_crcPasses_attemptedTrue() {
    String id = client.register(consumer.url());

    HttpResponse<String> response = client.call("PUT", "/2/webhooks/" + id, null);

    assertThat(response.body()).isEqualTo("{\"data\":{\"attempted\":true}}");
  }

  @Test
  void legacyRevalidate_crcFails_crcValidationFailed() {
    String id = client.register(consumer.url());
    consumer.crcAnswer(ConsumerStub.CrcAnswer.WRONG_TOKEN);

    WebhookApiTest.assertInvalidRequest(
        client.call("PUT", "/2/webhooks/" + id, null), "CrcValidationFailed");
  }

  @Test
  void legacyList_none_omitsData() {
    JsonNode body = json(client.call("GET", "/2/webhooks", null));

    assertThat(body.has("data")).isFalse();
    assertThat(body.get("meta").get("result_count").asInt()).isZero();
  }

  @Test
  void legacyReplay_accepted_flatJob() {
    String id = client.register(consumer.url());
    String now = REPLAY_DATE.format(simulator.now());

    JsonNode body =
        json(
            client.call(
                "POST",
                "/2/webhooks/replay",
                "{\"webhook_id\":\""
                    + id
                    + "\",\"from_date\":\""
                    + now
                    + "\",\"to_date\":\""
                    + now
                    + "\"}"));

    assertThat(body.has("data")).isFalse();
    assertThat(body.get("job_id").asText()).matches("[0-9]+");
    assertThat(body.has("created_at")).isTrue();
  }

  @Test
  void legacySubscription_created_underDataSubscription() {
    JsonNode body =
        json(
            client.call(
                "POST",
                "/2/activity/subscriptions",
                "{\"event_type\":\"post.create\",\"filter\":{\"user_id\":\"1\"}}"));

    assertThat(body.get("data").get("subscription").get("event_type").asText())
        .isEqualTo("post.create");
  }

  @Test
  void responseStyle_switchedBackToCurrent_wrapsInData() {
    simulator.responseStyle(ResponseStyle.CURRENT);

    assertThat(json(client.createWebhook(consumer.url())).get("data").get("id").asText())
        .matches("[0-9]+");
  }
}
