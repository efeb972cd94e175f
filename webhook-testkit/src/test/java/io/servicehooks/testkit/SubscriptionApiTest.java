package io.servicehooks.testkit;

import static io.servicehooks.testkit.PlatformClient.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

final class SubscriptionApiTest {

  private final PlatformSimulator simulator = PlatformSimulator.builder().build().start();
  private final PlatformClient client = new PlatformClient(simulator);

  @AfterEach
  void close() {
    simulator.close();
  }

  @Test
  void create_userFilter_returnedUnderData() {
    HttpResponse<String> response =
        client.call(
            "POST",
            "/2/activity/subscriptions",
            "{\"event_type\":\"profile.update.bio\",\"filter\":{\"user_id\":\"2244994945\"},\"tag\":\"bio\"}");

    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode data = json(response).get("data");
    assertThat(data.get("subscription_id").asText()).matches("[0-9]+");
    assertThat(data.get("event_type").asText()).isEqualTo("profile.update.bio");
    assertThat(data.get("filter").get("user_id").asText()).isEqualTo("2244994945");
    assertThat(data.get("tag").asText()).isEqualTo("bio");
    assertThat(data.has("created_at")).isTrue();
  }

  @Test
  void list_afterCreate_showsSubscription() {
    // a public event type: dm.* needs user context (OAuthEndpointsTest)
    client.call(
        "POST",
        "/2/activity/subscriptions",
        "{\"event_type\":\"chat.received\",\"filter\":{\"user_id\":\"1\",\"direction\":\"received\"}}");

    JsonNode body = json(client.call("GET", "/2/activity/subscriptions", null));

    assertThat(body.get("meta").get("result_count").asInt()).isEqualTo(1);
    assertThat(body.get("data").get(0).get("filter").get("direction").asText())
        .isEqualTo("received");
  }

  @Test
  void delete_existing_deletedTrueAndGone() {
    String id =
        json(client.call(
                "POST",
                "/2/activity/subscriptions",
                "{\"event_type\":\"news.new\",\"filter\":{\"keyword\":\"java\"}}"))
            .get("data")
            .get("subscription_id")
            .asText();

    HttpResponse<String> response = client.call("DELETE", "/2/activity/subscriptions/" + id, null);

    assertThat(response.body()).isEqualTo("{\"data\":{\"deleted\":true}}");
    assertThat(json(client.call("GET", "/2/activity/subscriptions", null)).get("data")).isEmpty();
  }

  @Test
  void delete_unknown_404Problem() {
    HttpResponse<String> response = client.call("DELETE", "/2/activity/subscriptions/77", null);

    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(json(response).get("title").asText()).isNotBlank();
  }

  @Test
  void create_withoutFilter_400Problem() {
    HttpResponse<String> response =
        client.call("POST", "/2/activity/subscriptions", "{\"event_type\":\"post.create\"}");

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(json(response).get("detail").asText()).contains("filter");
  }

  @Test
  void create_unknownWebhookId_webhookIdInvalid() {
    HttpResponse<String> response =
        client.call(
            "POST",
            "/2/activity/subscriptions",
            "{\"event_type\":\"post.create\",\"filter\":{\"user_id\":\"1\"},\"webhook_id\":\"999\"}");

    WebhookApiTest.assertInvalidRequest(response, "WebhookIdInvalid");
  }
}
