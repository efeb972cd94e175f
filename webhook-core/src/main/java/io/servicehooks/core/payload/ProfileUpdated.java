package io.servicehooks.core.payload;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code profile.update.*} ({@code bio}, {@code screenname}, {@code url}, ...): the value before
 * and after, as text when the platform sends text (a picture change may send an object: then its
 * JSON).
 *
 * <p>Neither value is required: either may be null (a field set for the first time, or cleared).
 *
 * @param before the old value
 * @param after the new value
 */
public record ProfileUpdated(String before, String after) {

  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  static ProfileUpdated of(JsonNode node) {
    return new ProfileUpdated(value(node.get("before")), value(node.get("after")));
  }

  private static String value(JsonNode v) {
    return v == null || v.isNull() ? null : v.isContainerNode() ? v.toString() : v.asText();
  }
}
