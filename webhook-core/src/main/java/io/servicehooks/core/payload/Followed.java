package io.servicehooks.core.payload;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code follow.follow} / {@code follow.unfollow} (and {@code block.*}, {@code mute.*}, the same
 * shape): who acted and on whom, from {@code {source:{data:user}, target:{data:user}}} or a legacy
 * {@code follow_events} item ({@code {type, source, target}}).
 *
 * <p>Both users, with their ids, are required: a payload without one fails with {@link
 * MissingPayloadFieldException}; their username and name may be null.
 *
 * @param source the user who followed (blocked, muted)
 * @param target the user followed
 */
public record Followed(User source, User target) {

  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  static Followed of(JsonNode node) {
    return new Followed(
        Nodes.requiredUser(
            Nodes.user(Nodes.path(node, "source")), "Followed", "source", "source id"),
        Nodes.requiredUser(
            Nodes.user(Nodes.path(node, "target")), "Followed", "target", "target id"));
  }
}
