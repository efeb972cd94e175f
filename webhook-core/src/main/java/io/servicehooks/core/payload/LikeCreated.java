package io.servicehooks.core.payload;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code like.create}: {@code {id, liked_post_id, liked_post_author_id, created_at}}, or a legacy
 * {@code favorite_events} item ({@code id}, the post in {@code favorited_status}, the liker in
 * {@code user}).
 *
 * <p>{@code id} and {@code likedPostId} are required: a payload without one fails with {@link
 * MissingPayloadFieldException}; the others may be null.
 *
 * @param id the like's id
 * @param likedPostId the liked post
 * @param likedPostAuthorId the liked post's author, when the payload says
 * @param createdAt when, as the platform wrote it; null if the payload does not say
 */
public record LikeCreated(
    String id, String likedPostId, String likedPostAuthorId, String createdAt) {

  private static final String NAME = "LikeCreated";

  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  static LikeCreated of(JsonNode node) {
    JsonNode status = Nodes.path(node, "favorited_status");
    if (status != null) {
      return new LikeCreated(
          Nodes.required(Nodes.text(node, "id"), NAME, "id", "id"),
          Nodes.required(
              Nodes.text(status, "id_str", "id"), NAME, "likedPostId", "favorited_status.id_str"),
          Nodes.text(Nodes.path(status, "user"), "id_str", "id"),
          Nodes.text(node, "created_at", "timestamp_ms"));
    }
    return new LikeCreated(
        Nodes.required(Nodes.text(node, "id"), NAME, "id", "id"),
        Nodes.required(Nodes.text(node, "liked_post_id"), NAME, "likedPostId", "liked_post_id"),
        Nodes.text(node, "liked_post_author_id"),
        Nodes.text(node, "created_at"));
  }
}
