package io.servicehooks.core.payload;

import com.fasterxml.jackson.databind.JsonNode;

/** Reading the fields both payload families spell differently, absent ones as null. */
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

  static User user(JsonNode node) {
    if (node == null) {
      return null;
    }
    JsonNode inner = node.has("data") && node.get("data").isObject() ? node.get("data") : node;
    return new User(
        text(inner, "id", "id_str"), text(inner, "username", "screen_name"), text(inner, "name"));
  }
}
