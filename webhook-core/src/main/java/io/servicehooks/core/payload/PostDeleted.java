package io.servicehooks.core.payload;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code post.delete}: {@code {id, author_id}}, or the legacy {@code {status:{id, user_id}}}.
 *
 * <p>Both fields are required: a payload without one fails with {@link
 * MissingPayloadFieldException}.
 *
 * @param id the deleted post's id
 * @param authorId its author's user id
 */
public record PostDeleted(String id, String authorId) {

  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  static PostDeleted of(JsonNode node) {
    JsonNode status = Nodes.path(node, "status");
    JsonNode post = status != null ? status : node;
    return new PostDeleted(
        Nodes.required(Nodes.text(post, "id", "id_str"), "PostDeleted", "id", "id (nor status.id)"),
        Nodes.required(
            status != null
                ? Nodes.text(status, "user_id_str", "user_id")
                : Nodes.text(node, "author_id"),
            "PostDeleted",
            "authorId",
            "author_id (nor status.user_id)"));
  }
}
