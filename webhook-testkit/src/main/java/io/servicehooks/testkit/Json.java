package io.servicehooks.testkit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;

/** The one shared, thread-safe {@link ObjectMapper} of the testkit and small helpers around it. */
final class Json {

  static final ObjectMapper MAPPER = new ObjectMapper();

  private Json() {}

  static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  static JsonNode tree(Object value) {
    return value == null ? MAPPER.nullNode() : MAPPER.valueToTree(value);
  }

  static byte[] bytes(JsonNode node) {
    try {
      return MAPPER.writeValueAsBytes(node);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String string(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The inner object under {@code data}, as the current response style wraps it. */
  static ObjectNode data(JsonNode inner) {
    ObjectNode wrapper = object();
    wrapper.set("data", inner);
    return wrapper;
  }

  /** Parses a request body; {@code null} when it is empty or not JSON. */
  static JsonNode parseOrNull(byte[] body) {
    if (body == null || body.length == 0) {
      return null;
    }
    try {
      return MAPPER.readTree(body);
    } catch (IOException e) {
      return null;
    }
  }

  /** A text field of an object, or {@code null} when missing, not text or blank. */
  static String text(JsonNode node, String field) {
    if (node == null) {
      return null;
    }
    JsonNode value = node.get(field);
    return value != null && value.isTextual() && !value.asText().isBlank() ? value.asText() : null;
  }
}
