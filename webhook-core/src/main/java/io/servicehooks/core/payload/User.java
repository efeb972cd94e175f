package io.servicehooks.core.payload;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * A user as payloads carry it ({@code {id, username, name}}, or the legacy {@code {id_str,
 * screen_name, name}}); fields the payload leaves out are null.
 *
 * @param id the user's id
 * @param username the handle, without {@code @}
 * @param name the display name
 */
public record User(String id, String username, String name) {

  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  static User of(JsonNode node) {
    return Nodes.user(node);
  }
}
