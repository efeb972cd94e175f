package io.servicehooks.testkit;

import java.time.Instant;
import java.util.Objects;

/**
 * A post the simulated platform holds: created through {@code POST /2/posts}, by {@link
 * PlatformSimulator#createPost}, {@link PlatformSimulator#mention} or seeded with {@link
 * PlatformSimulator#addPost}. What a test reads back to see what a bot answered.
 *
 * @param id the post's id
 * @param authorId who posted it
 * @param text its text
 * @param createdAt when, on the simulator's clock
 * @param inReplyToPostId the post it answers, or null
 * @param quotedPostId the post it quotes, or null
 * @param editOfPostId the earlier version it edits, or null
 * @param json the post object with every field the lookup can select, as JSON
 */
public record SimulatedPost(
    String id,
    String authorId,
    String text,
    Instant createdAt,
    String inReplyToPostId,
    String quotedPostId,
    String editOfPostId,
    String json) {

  /** Checks the required components. */
  public SimulatedPost {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(authorId, "authorId");
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(json, "json");
  }
}
