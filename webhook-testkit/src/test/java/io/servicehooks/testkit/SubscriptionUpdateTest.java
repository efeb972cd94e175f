package io.servicehooks.testkit;

import static io.servicehooks.testkit.PlatformClient.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

final class SubscriptionUpdateTest {

  private final PlatformSimulator simulator =
      PlatformSimulator.builder().localMode(true).build().start();
  private final PlatformClient client = new PlatformClient(simulator);
  private final ConsumerStub consumer;

  SubscriptionUpdateTest() throws IOException {
    consumer = ConsumerStub.start(simulator.consumerSecret());
  }

  @AfterEach
  void close() {
    simulator.close();
    consumer.close();
  }

  private String subscribe(String extra) {
    return json(client.call(
            "POST",
            "/2/activity/subscriptions",
            "{\"event_type\":\"post.create\",\"filter\":{\"user_id\":\"1\"}" + extra + "}"))
        .get("data")
        .get("subscription_id")
        .asText();
  }

  private JsonNode listed() {
    return json(client.call("GET", "/2/activity/subscriptions", null)).get("data").get(0);
  }

  @Test
  void update_tagAndWebhook_changedAndListed() {
    String webhookId = client.register(consumer.url());
    String id = subscribe(",\"tag\":\"old\"");

    HttpResponse<String> response =
        client.call(
            "PUT",
            "/2/activity/subscriptions/" + id,
            "{\"tag\":\"new\",\"webhook_id\":\"" + webhookId + "\"}");

    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode data = json(response).get("data");
    assertThat(data.get("subscription_id").asText()).isEqualTo(id);
    assertThat(data.get("tag").asText()).isEqualTo("new");
    assertThat(data.get("webhook_id").asText()).isEqualTo(webhookId);
    assertThat(listed().get("tag").asText()).isEqualTo("new");
    assertThat(listed().get("event_type").asText()).isEqualTo("post.create");
  }

  @Test
  void update_webhookNull_subscriptionMovesToStreamOnly() {
    String webhookId = client.register(consumer.url());
    String id = subscribe(",\"tag\":\"keep\",\"webhook_id\":\"" + webhookId + "\"");

    HttpResponse<String> response =
        client.call("PUT", "/2/activity/subscriptions/" + id, "{\"webhook_id\":null}");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(listed().has("webhook_id")).isFalse();
    assertThat(listed().get("tag").asText()).isEqualTo("keep");
  }

  @Test
  void update_filterOrType_400AndUnchanged() {
    String id = subscribe(",\"tag\":\"t\"");

    HttpResponse<String> filter =
        client.call("PUT", "/2/activity/subscriptions/" + id, "{\"filter\":{\"user_id\":\"2\"}}");
    HttpResponse<String> type =
        client.call(
            "PUT", "/2/activity/subscriptions/" + id, "{\"tag\":\"x\",\"event_type\":\"dm.sent\"}");

    assertThat(filter.statusCode()).isEqualTo(400);
    assertThat(json(filter).get("detail").asText()).contains("delete and create");
    assertThat(type.statusCode()).isEqualTo(400);
    assertThat(listed().get("tag").asText()).isEqualTo("t");
    assertThat(listed().get("filter").get("user_id").asText()).isEqualTo("1");
  }

  @Test
  void update_unknownWebhook_webhookIdInvalid() {
    String id = subscribe("");

    HttpResponse<String> response =
        client.call("PUT", "/2/activity/subscriptions/" + id, "{\"webhook_id\":\"123\"}");

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(PlatformClient.reason(response)).isEqualTo("WebhookIdInvalid");
    assertThat(listed().has("webhook_id")).isFalse();
  }

  @Test
  void update_unknownSubscriptionOrEmptyBody_404Or400() {
    String id = subscribe("");

    assertThat(client.call("PUT", "/2/activity/subscriptions/999", "{\"tag\":\"x\"}").statusCode())
        .isEqualTo(404);
    assertThat(client.call("PUT", "/2/activity/subscriptions/" + id, "{}").statusCode())
        .isEqualTo(400);
    assertThat(client.call("PUT", "/2/activity/subscriptions/" + id, "not json").statusCode())
        .isEqualTo(400);
  }

  @Test
  void update_legacyStyle_answerUnderDataSubscription() {
    String id = subscribe("");
    simulator.responseStyle(ResponseStyle.LEGACY);

    HttpResponse<String> response =
        client.call("PUT", "/2/activity/subscriptions/" + id, "{\"tag\":\"x\"}");

    assertThat(json(response).get("data").get("subscription").get("tag").asText()).isEqualTo("x");
  }
}
