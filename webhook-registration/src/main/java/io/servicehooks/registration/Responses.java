package io.servicehooks.registration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.io.IOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the platform's success bodies. Every variant the platform has used is accepted: objects
 * with or without the {@code data} wrapper, {@code valid} or {@code attempted}, lists as {@code
 * data: []}, absent {@code data} or a bare array, and subscriptions under {@code data} or {@code
 * data.subscription}.
 */
final class Responses {

  static final ObjectMapper JSON = new ObjectMapper();

  private Responses() {}

  /** A request body as JSON bytes. */
  static byte[] bytes(com.fasterxml.jackson.databind.node.ObjectNode node) {
    try {
      return JSON.writeValueAsBytes(node);
    } catch (IOException e) {
      throw new IllegalStateException("cannot write JSON", e);
    }
  }

  static JsonNode parse(ApiResponse response) throws WebhookApiException {
    if (response.body() == null || response.body().length == 0) {
      return MissingNode.getInstance();
    }
    try {
      JsonNode root = JSON.readTree(response.body());
      return root == null ? MissingNode.getInstance() : root;
    } catch (IOException e) {
      throw ApiErrors.unexpected(response, "the response body is not JSON");
    }
  }

  static Webhook webhook(ApiResponse response) throws WebhookApiException {
    JsonNode node = unwrap(parse(response));
    Webhook webhook = webhookOrNull(node);
    if (webhook == null) {
      throw ApiErrors.unexpected(response, "the response has no webhook id and url");
    }
    return webhook;
  }

  static List<Webhook> webhooks(ApiResponse response) throws WebhookApiException {
    List<Webhook> result = new ArrayList<>();
    for (JsonNode node : listItems(parse(response), "webhooks")) {
      Webhook webhook = webhookOrNull(node);
      if (webhook != null) {
        result.add(webhook);
      }
    }
    return List.copyOf(result);
  }

  /** The outcome of a revalidation: {@code valid}, or {@code attempted} in the older shape. */
  static boolean validity(ApiResponse response) throws WebhookApiException {
    JsonNode root = parse(response);
    if (root.isMissingNode()) {
      // an older answer was 204 with no body: the check passed, else an error would have come
      return true;
    }
    JsonNode node = unwrap(root);
    if (node.hasNonNull("valid")) {
      return node.get("valid").asBoolean();
    }
    if (node.hasNonNull("attempted")) {
      return node.get("attempted").asBoolean();
    }
    throw ApiErrors.unexpected(response, "the response has neither valid nor attempted");
  }

  static boolean deleted(ApiResponse response) throws WebhookApiException {
    JsonNode root = parse(response);
    if (root.isMissingNode()) {
      return true;
    }
    JsonNode node = unwrap(root);
    return !node.hasNonNull("deleted") || node.get("deleted").asBoolean();
  }

  static ReplayJob replayJob(ApiResponse response) throws WebhookApiException {
    JsonNode node = unwrap(parse(response));
    String jobId = text(node, "job_id");
    if (jobId == null) {
      jobId = text(node, "id");
    }
    if (jobId == null) {
      throw ApiErrors.unexpected(response, "the response has no job_id");
    }
    return new ReplayJob(jobId, instant(node.get("created_at")));
  }

  static Subscription subscription(ApiResponse response) throws WebhookApiException {
    JsonNode node = unwrap(parse(response));
    if (node.has("subscription") && node.get("subscription").isObject()) {
      node = node.get("subscription");
    }
    Subscription subscription = subscriptionOrNull(node);
    if (subscription == null) {
      throw ApiErrors.unexpected(response, "the response has no subscription id");
    }
    return subscription;
  }

  static List<Subscription> subscriptions(ApiResponse response) throws WebhookApiException {
    List<Subscription> result = new ArrayList<>();
    for (JsonNode node : listItems(parse(response), "subscriptions")) {
      if (node.has("subscription") && node.get("subscription").isObject()) {
        node = node.get("subscription");
      }
      Subscription subscription = subscriptionOrNull(node);
      if (subscription != null) {
        result.add(subscription);
      }
    }
    return List.copyOf(result);
  }

  static List<StreamConnection> connections(ApiResponse response) throws WebhookApiException {
    List<StreamConnection> result = new ArrayList<>();
    for (JsonNode node : listItems(parse(response), "connections")) {
      String id = text(node, "endpoint_id");
      if (id == null) {
        id = text(node, "id");
      }
      if (id == null) {
        id = text(node, "connection_id");
      }
      if (id == null) {
        continue;
      }
      Map<String, String> fields = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        if (field.getValue().isValueNode() && !field.getValue().isNull()) {
          fields.put(field.getKey(), field.getValue().asText());
        }
      }
      JsonNode at = node.get("connected_at");
      if (at == null) {
        at = node.get("created_at");
      }
      result.add(new StreamConnection(id, instant(at), fields));
    }
    return List.copyOf(result);
  }

  /** The count of a connections delete: {@code killed_connections} as a number or an array. */
  static int killed(ApiResponse response, int whenUnsaid) throws WebhookApiException {
    JsonNode node = unwrap(parse(response));
    JsonNode killed = node.get("killed_connections");
    if (killed != null && killed.isArray()) {
      return killed.size();
    }
    if (killed != null && killed.canConvertToInt()) {
      return killed.asInt();
    }
    if (node.hasNonNull("deleted") && !node.get("deleted").asBoolean()) {
      return 0;
    }
    return whenUnsaid;
  }

  private static JsonNode unwrap(JsonNode root) {
    JsonNode data = root.get("data");
    return data != null && data.isObject() ? data : root;
  }

  private static List<JsonNode> listItems(JsonNode root, String innerName) {
    JsonNode array = root;
    if (root.isObject()) {
      JsonNode data = root.get("data");
      if (data != null && data.isObject()) {
        data = data.get(innerName);
      }
      array = data;
    }
    List<JsonNode> items = new ArrayList<>();
    if (array != null && array.isArray()) {
      array.forEach(items::add);
    }
    return items;
  }

  private static Webhook webhookOrNull(JsonNode node) {
    String id = text(node, "id");
    String url = text(node, "url");
    if (id == null || url == null) {
      return null;
    }
    return new Webhook(
        id, url, node.path("valid").asBoolean(false), instant(node.get("created_at")));
  }

  private static Subscription subscriptionOrNull(JsonNode node) {
    String id = text(node, "id");
    if (id == null) {
      id = text(node, "subscription_id");
    }
    if (id == null) {
      return null;
    }
    Map<String, String> filter = new LinkedHashMap<>();
    JsonNode filterNode = node.get("filter");
    if (filterNode != null && filterNode.isObject()) {
      for (Map.Entry<String, JsonNode> field : filterNode.properties()) {
        if (field.getValue().isValueNode() && !field.getValue().isNull()) {
          filter.put(field.getKey(), field.getValue().asText());
        }
      }
    }
    return new Subscription(
        id,
        text(node, "event_type"),
        filter,
        text(node, "tag"),
        text(node, "webhook_id"),
        instant(node.get("created_at")));
  }

  static String text(JsonNode node, String field) {
    JsonNode value = node == null ? null : node.get(field);
    if (value == null || value.isNull() || !value.isValueNode()) {
      return null;
    }
    return value.asText();
  }

  static Instant instant(JsonNode value) {
    if (value == null || value.isNull()) {
      return null;
    }
    if (value.isNumber()) {
      return Instant.ofEpochMilli(value.asLong());
    }
    String text = value.asText();
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException notInstant) {
      try {
        return OffsetDateTime.parse(text).toInstant();
      } catch (DateTimeParseException notOffset) {
        if (text.chars().allMatch(Character::isDigit) && !text.isEmpty() && text.length() < 19) {
          return Instant.ofEpochMilli(Long.parseLong(text));
        }
        return null;
      }
    }
  }
}
