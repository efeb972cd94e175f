package io.servicehooks.core.payload;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code spaces.start} / {@code spaces.end}: {@code {user, broadcast_id}}.
 *
 * <p>{@code broadcastId} is required: a payload without it fails with {@link
 * MissingPayloadFieldException}; {@code user} may be null.
 *
 * @param user the host
 * @param broadcastId the space's id
 */
public record SpaceEvent(User user, String broadcastId) {

  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  static SpaceEvent of(JsonNode node) {
    return new SpaceEvent(
        Nodes.user(Nodes.path(node, "user")),
        Nodes.required(
            Nodes.text(node, "broadcast_id"), "SpaceEvent", "broadcastId", "broadcast_id"));
  }
}
