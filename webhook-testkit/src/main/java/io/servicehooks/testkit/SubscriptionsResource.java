package io.servicehooks.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * {@code /2/activity/subscriptions}: create, list, delete, and {@code PUT .../{id}}, which changes
 * {@code tag} or {@code webhook_id} only (a new filter or type means delete and create).
 */
final class SubscriptionsResource {

  private static final Set<String> UPDATABLE = Set.of("tag", "webhook_id");

  private final SimClock clock;
  private final Supplier<String> ids;
  private final Predicate<String> webhookExists;
  private final Supplier<ResponseStyle> style;

  private final Object lock = new Object();
  private final Map<String, ObjectNode> subscriptions = new LinkedHashMap<>(); // guarded by lock

  SubscriptionsResource(
      SimClock clock,
      Supplier<String> ids,
      Predicate<String> webhookExists,
      Supplier<ResponseStyle> style) {
    this.clock = clock;
    this.ids = ids;
    this.webhookExists = webhookExists;
    this.style = style;
  }

  /** Routes {@code /2/activity/subscriptions} ({@code parts.length == 3}) and {@code .../{id}}. */
  SimResponse handle(ApiRequest request, String[] parts) {
    String method = request.method();
    if (parts.length == 3) {
      return switch (method) {
        case "POST" -> create(request);
        case "GET" -> list();
        default -> Api.methodNotAllowed();
      };
    }
    return switch (method) {
      case "DELETE" -> delete(parts[3]);
      case "PUT" -> update(parts[3], request);
      default -> Api.methodNotAllowed();
    };
  }

  /** A snapshot of every subscription, oldest first. */
  List<ObjectNode> all() {
    synchronized (lock) {
      List<ObjectNode> all = new ArrayList<>();
      subscriptions.values().forEach(s -> all.add(s.deepCopy()));
      return all;
    }
  }

  /**
   * Creates a subscription as {@code POST /2/activity/subscriptions} does.
   *
   * @return the subscription id
   * @throws IllegalArgumentException when the platform would refuse it
   */
  String add(String eventType, String userId, String webhookId) {
    ObjectNode body = Json.object();
    body.put("event_type", eventType);
    body.putObject("filter").put("user_id", userId);
    if (webhookId != null) {
      body.put("webhook_id", webhookId);
    }
    SimResponse answer = create(body);
    JsonNode created = Json.parseOrNull(answer.body());
    if (answer.status() != 200) {
      throw new IllegalArgumentException("subscription refused: " + created);
    }
    JsonNode data = created.get("data");
    return (data.has("subscription") ? data.get("subscription") : data)
        .get("subscription_id")
        .asText();
  }

  private SimResponse create(ApiRequest request) {
    return create(Json.parseOrNull(request.body()));
  }

  private SimResponse create(JsonNode body) {
    if (body == null || !body.isObject()) {
      return Api.badRequest("The request body must be a JSON object");
    }
    String eventType = Json.text(body, "event_type");
    JsonNode filter = body.get("filter");
    if (eventType == null) {
      return Api.badRequest("event_type is required");
    }
    if (filter == null
        || !filter.isObject()
        || (Json.text(filter, "user_id") == null && Json.text(filter, "keyword") == null)) {
      return Api.badRequest("filter must name a user_id or a keyword");
    }
    String webhookId = Json.text(body, "webhook_id");
    if (webhookId != null && !webhookExists.test(webhookId)) {
      return Api.webhookIdInvalid(webhookId);
    }
    ObjectNode subscription = Json.object();
    subscription.put("subscription_id", ids.get());
    subscription.put("event_type", eventType);
    subscription.set("filter", filter.deepCopy());
    String tag = Json.text(body, "tag");
    if (tag != null) {
      subscription.put("tag", tag);
    }
    if (webhookId != null) {
      subscription.put("webhook_id", webhookId);
    }
    subscription.put("created_at", RegisteredWebhook.TIMESTAMP.format(clock.now()));
    synchronized (lock) {
      subscriptions.put(subscription.get("subscription_id").asText(), subscription);
    }
    return answer(subscription.deepCopy());
  }

  private SimResponse list() {
    List<ObjectNode> all = all();
    ObjectNode body = Json.object();
    if (!all.isEmpty() || style.get() == ResponseStyle.CURRENT) {
      body.putArray("data").addAll(all);
    }
    body.putObject("meta").put("result_count", all.size());
    return SimResponse.ok(body);
  }

  private SimResponse delete(String id) {
    boolean removed;
    synchronized (lock) {
      removed = subscriptions.remove(id) != null;
    }
    if (!removed) {
      return notFound(id);
    }
    ObjectNode body = Json.object();
    body.putObject("data").put("deleted", true);
    return SimResponse.ok(body);
  }

  private SimResponse update(String id, ApiRequest request) {
    JsonNode body = Json.parseOrNull(request.body());
    if (body == null || !body.isObject() || body.isEmpty()) {
      return Api.badRequest("The request body must be a JSON object with tag and/or webhook_id");
    }
    for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!UPDATABLE.contains(name)) {
        return Api.badRequest(
            name + " cannot be changed: only tag and webhook_id; delete and create instead");
      }
    }
    JsonNode tag = body.get("tag");
    JsonNode webhook = body.get("webhook_id");
    if (tag != null && !tag.isTextual() && !tag.isNull()) {
      return Api.badRequest("tag must be a string or null");
    }
    if (webhook != null && !webhook.isNull()) {
      if (!webhook.isTextual() || !webhookExists.test(webhook.asText())) {
        return Api.webhookIdInvalid(webhook.isTextual() ? webhook.asText() : webhook.toString());
      }
    }
    ObjectNode updated;
    synchronized (lock) {
      ObjectNode subscription = subscriptions.get(id);
      if (subscription == null) {
        return notFound(id);
      }
      apply(subscription, "tag", tag);
      apply(subscription, "webhook_id", webhook);
      updated = subscription.deepCopy();
    }
    return answer(updated);
  }

  // Absent: unchanged; null or blank: removed; text: set.
  private static void apply(ObjectNode subscription, String field, JsonNode value) {
    if (value == null) {
      return;
    }
    if (value.isNull() || value.asText().isBlank()) {
      subscription.remove(field);
    } else {
      subscription.put(field, value.asText());
    }
  }

  private SimResponse answer(ObjectNode subscription) {
    ObjectNode wrapped = Json.object();
    if (style.get() == ResponseStyle.CURRENT) {
      wrapped.set("data", subscription);
    } else {
      wrapped.putObject("data").set("subscription", subscription);
    }
    return SimResponse.ok(wrapped);
  }

  private static SimResponse notFound(String id) {
    return SimResponse.problem(
        404, "Not Found Error", "Subscription " + id + " does not exist", "resource-not-found");
  }
}
