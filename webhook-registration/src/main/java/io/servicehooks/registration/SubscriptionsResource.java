package io.servicehooks.registration;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The activity-subscription calls ({@code /2/activity/subscriptions}), shared by {@link
 * WebhookClient} (app-only token) and {@link UserClient} (signed for a user): the caller given
 * decides how each call is authenticated.
 */
final class SubscriptionsResource {

  private final ApiCaller api;

  SubscriptionsResource(ApiCaller api) {
    this.api = api;
  }

  Subscription create(String eventType, Map<String, String> filter, String tag, String webhookId)
      throws IOException {
    if (eventType == null || eventType.isBlank()) {
      throw new IllegalArgumentException("event type must not be empty");
    }
    if (filter == null || filter.isEmpty()) {
      throw new IllegalArgumentException(
          "subscription filter must name user_id or keyword, was empty");
    }
    ObjectNode body = Responses.JSON.createObjectNode().put("event_type", eventType);
    ObjectNode filterNode = body.putObject("filter");
    filter.forEach(filterNode::put);
    if (tag != null) {
      body.put("tag", tag);
    }
    if (webhookId != null) {
      body.put("webhook_id", WebhookUrls.checkWebhookId(webhookId));
    }
    return Responses.subscription(
        api.call(
            "POST", "/2/activity/subscriptions", Responses.bytes(body), ApiCaller.Repeat.UNSAFE));
  }

  List<Subscription> list() throws IOException {
    return Responses.subscriptions(
        api.call("GET", "/2/activity/subscriptions", null, ApiCaller.Repeat.SAFE));
  }

  boolean delete(String subscriptionId) throws IOException {
    String path = "/2/activity/subscriptions/" + WebhookUrls.checkSubscriptionId(subscriptionId);
    return Responses.deleted(api.call("DELETE", path, null, ApiCaller.Repeat.SAFE));
  }

  Subscription update(String subscriptionId, SubscriptionUpdate update) throws IOException {
    String path = "/2/activity/subscriptions/" + WebhookUrls.checkSubscriptionId(subscriptionId);
    Objects.requireNonNull(update, "update");
    if (update.isEmpty()) {
      throw new IllegalArgumentException(
          "a subscription update needs a tag, a webhook id or no webhook");
    }
    ObjectNode body = Responses.JSON.createObjectNode();
    if (update.newTag() != null) {
      body.put("tag", update.newTag());
    }
    if (update.newWebhookId() != null) {
      body.put("webhook_id", update.newWebhookId());
    } else if (update.detaches()) {
      body.putNull("webhook_id");
    }
    return Responses.subscription(
        api.call("PUT", path, Responses.bytes(body), ApiCaller.Repeat.SAFE));
  }
}
