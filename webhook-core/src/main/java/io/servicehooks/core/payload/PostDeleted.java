package io.servicehooks.core.payload;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code post.delete}: {@code {id, author_id}}, or the legacy {@code {status:{id, user_id}}}.
 *
 * @param id the deleted post's id
 * @param authorId its author's user id
 */
public record PostDeleted(String id, String authorId) {

  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  static PostDeleted of(JsonNode node) {
    JsonNode status = Nodes.path(node, "status");
    return status != null
        ? new PostDeleted(Nodes.text(status, "id", "id_str"), Nodes.text(status, "user_id"))
        : new PostDeleted(Nodes.text(node, "id"), Nodes.text(node, "author_id"));
  }
}
