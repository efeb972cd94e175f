package io.servicehooks.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the events that the platform's own activity causes (a created post, a sent direct message)
 * to the activity subscriptions they match: a subscription of the event's type whose {@code
 * filter.user_id} is the user the event concerns (and whose {@code filter.direction}, if any, fits
 * a direct message). Each match gets its own activity envelope with the subscription's filter and
 * tag, so {@code filter.user_id} names the subscribed user. A subscription with a webhook is
 * delivered to that webhook (signed, retried, kept for replay) and to the open streams; one without
 * goes to the streams only, as on the platform.
 */
final class ActivityRouter {

  private static final Logger log = LoggerFactory.getLogger(ActivityRouter.class);

  private final Supplier<List<ObjectNode>> subscriptions;
  private final Function<String, RegisteredWebhook> webhooks;
  private final Deliveries deliveries;
  private final StreamHub streams;
  private final Supplier<String> eventIds;

  ActivityRouter(
      Supplier<List<ObjectNode>> subscriptions,
      Function<String, RegisteredWebhook> webhooks,
      Deliveries deliveries,
      StreamHub streams,
      Supplier<String> eventIds) {
    this.subscriptions = subscriptions;
    this.webhooks = webhooks;
    this.deliveries = deliveries;
    this.streams = streams;
    this.eventIds = eventIds;
  }

  /**
   * Sends one event to every subscription of {@code eventType} for {@code userId}.
   *
   * @param direction {@code sent} or {@code received} for a direct message, else null
   * @param includes the envelope's {@code includes}, or null
   * @return how many subscriptions it matched
   */
  int publish(
      String eventType, String userId, String direction, JsonNode payload, JsonNode includes) {
    int matched = 0;
    for (ObjectNode subscription : subscriptions.get()) {
      if (!matches(subscription, eventType, userId, direction)) {
        continue;
      }
      matched++;
      ObjectNode root = Json.object();
      ObjectNode data = root.putObject("data");
      data.put("event_uuid", eventIds.get());
      data.put("event_type", eventType);
      data.set("filter", subscription.get("filter").deepCopy());
      String tag = Json.text(subscription, "tag");
      if (tag != null) {
        data.put("tag", tag);
      }
      data.set("payload", payload.deepCopy());
      if (includes != null && !includes.isEmpty()) {
        data.set("includes", includes.deepCopy());
      }
      byte[] body = Json.bytes(root);
      streams.publish(body, 1);
      String webhookId = Json.text(subscription, "webhook_id");
      RegisteredWebhook webhook = webhookId == null ? null : webhooks.apply(webhookId);
      if (webhook != null) {
        deliveries.remember(webhook, body);
        if (webhook.receivesDeliveries()) {
          deliveries.start(webhook, body);
        } else {
          log.info(
              "{} for user {} not delivered to webhook {}: {}",
              eventType,
              userId,
              webhookId,
              webhook.whyNoDeliveries());
        }
      }
    }
    log.debug("{} for user {} matched {} subscription(s)", eventType, userId, matched);
    return matched;
  }

  private static boolean matches(
      ObjectNode subscription, String eventType, String userId, String direction) {
    if (!eventType.equals(Json.text(subscription, "event_type"))) {
      return false;
    }
    JsonNode filter = subscription.get("filter");
    if (!userId.equals(Json.text(filter, "user_id"))) {
      return false;
    }
    String wanted = Json.text(filter, "direction");
    return wanted == null || direction == null || wanted.toLowerCase(Locale.ROOT).equals(direction);
  }
}
