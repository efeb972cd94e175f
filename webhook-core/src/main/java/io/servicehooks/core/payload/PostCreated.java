package io.servicehooks.core.payload;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * The post of {@code post.create} (and {@code post.mention.create}, {@code post.reply.create},
 * {@code post.quote.create}, {@code post.repost.create}), from an activity envelope ({@code {id,
 * text, author_id, created_at}}) or a legacy {@code post_create_events} item ({@code id_str}, the
 * author in {@code user}).
 *
 * @param id the post's id
 * @param text its text
 * @param authorId the author's user id
 * @param createdAt when it was posted, as the platform wrote it (ISO-8601 or the legacy format)
 */
public record PostCreated(String id, String text, String authorId, String createdAt) {

  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  static PostCreated of(JsonNode node) {
    return new PostCreated(
        Nodes.text(node, "id", "id_str"),
        Nodes.text(node, "text", "full_text"),
        Nodes.text(node, "author_id") != null
            ? Nodes.text(node, "author_id")
            : Nodes.text(Nodes.path(node, "user"), "id", "id_str"),
        Nodes.text(node, "created_at"));
  }
}
