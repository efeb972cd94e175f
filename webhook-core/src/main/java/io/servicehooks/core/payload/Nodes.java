package io.servicehooks.core.payload;

import com.fasterxml.jackson.databind.JsonNode;
import io.servicehooks.core.WebhookEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Reading the fields both payload families spell differently, absent ones as null, and refusing a
 * payload that lacks a field its record requires.
 */
final class Nodes {

  private Nodes() {}

  /** The first of {@code names} that {@code node} has as a value, as text. */
  static String text(JsonNode node, String... names) {
    if (node == null) {
      return null;
    }
    for (String name : names) {
      JsonNode value = node.get(name);
      if (value != null && !value.isNull() && !value.isContainerNode()) {
        return value.asText();
      }
    }
    return null;
  }

  /** The first of {@code values} that is not null. */
  static String first(String... values) {
    for (String value : values) {
      if (value != null) {
        return value;
      }
    }
    return null;
  }

  /** {@code node.a.b...}, or null. */
  static JsonNode path(JsonNode node, String... names) {
    JsonNode at = node;
    for (String name : names) {
      if (at == null) {
        return null;
      }
      at = at.get(name);
    }
    return at == null || at.isNull() ? null : at;
  }

  /**
   * {@code value}, or a {@link MissingPayloadFieldException} naming the record, its component and
   * the JSON fields looked at.
   */
  static String required(String value, String record, String field, String lookedAt) {
    if (value == null) {
      throw new MissingPayloadFieldException(
          record, field, record + " needs " + field + ", but the payload has no " + lookedAt);
    }
    return value;
  }

  /** {@code user}, or a {@link MissingPayloadFieldException} when it or its id is absent. */
  static User requiredUser(User user, String record, String field, String lookedAt) {
    if (user == null || user.id() == null) {
      required(null, record, field, lookedAt);
    }
    return user;
  }

  static User user(JsonNode node) {
    if (node == null) {
      return null;
    }
    JsonNode inner = node.has("data") && node.get("data").isObject() ? node.get("data") : node;
    return new User(
        text(inner, "id", "id_str"), text(inner, "username", "screen_name"), text(inner, "name"));
  }

  /** The users of an array of user objects ({@code entities.mentions}); empty when absent. */
  static List<User> users(JsonNode array) {
    List<User> users = new ArrayList<>();
    if (array != null && array.isArray()) {
      for (JsonNode item : array) {
        User user = user(item);
        if (user != null && (user.id() != null || user.username() != null)) {
          users.add(user);
        }
      }
    }
    return List.copyOf(users);
  }

  /** Milliseconds since the epoch as text, read as an ISO-8601 instant; null if it is not one. */
  static String isoFromMillis(String millis) {
    if (millis == null) {
      return null;
    }
    try {
      return Instant.ofEpochMilli(Long.parseLong(millis)).toString();
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** An ISO-8601 instant as milliseconds since the epoch; null if it is not one. */
  static String millisFromIso(String iso) {
    if (iso == null) {
      return null;
    }
    try {
      return Long.toString(Instant.parse(iso).toEpochMilli());
    } catch (java.time.format.DateTimeParseException e) {
      return null;
    }
  }

  /**
   * The expanded user objects beside the payload: the envelope's {@code includes.users} (a list) or
   * a batch's or DM payload's {@code users} map; null without a delivery.
   */
  static User includedUser(WebhookEvent event, JsonNode payload, String id) {
    if (id == null) {
      return null;
    }
    List<JsonNode> places = new ArrayList<>();
    if (payload != null) {
      places.add(path(payload, "users"));
    }
    if (event != null) {
      JsonNode delivery = event.delivery();
      places.add(path(delivery, "data", "includes", "users"));
      places.add(path(delivery, "includes", "users"));
      places.add(path(delivery, "users"));
    }
    for (JsonNode users : places) {
      if (users == null) {
        continue;
      }
      if (users.isObject() && users.get(id) != null && users.get(id).isObject()) {
        return user(users.get(id));
      }
      if (users.isArray()) {
        for (JsonNode u : users) {
          if (id.equals(text(u, "id", "id_str"))) {
            return user(u);
          }
        }
      }
    }
    return null;
  }
}
