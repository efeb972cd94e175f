package io.servicehooks.core.payload;

import com.fasterxml.jackson.annotation.JacksonInject;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.OptBoolean;
import com.fasterxml.jackson.databind.JsonNode;
import io.servicehooks.core.WebhookEvent;
import java.util.List;
import java.util.Objects;

/**
 * The post of {@code post.create}, {@code post.mention.create}, {@code post.reply.create}, {@code
 * post.quote.create} and {@code post.repost.create} (which of them: {@link WebhookEvent#type()},
 * given to a listener registered with {@code onEvent(PostCreated.class, (event, post) -> ...)}),
 * from any of its shapes:
 *
 * <ul>
 *   <li>the activity envelope's post object {@code {id, text, author_id, created_at,
 *       conversation_id, in_reply_to_user_id, referenced_posts, entities:{mentions}}}, the author's
 *       username taken from the envelope's {@code includes.users};
 *   <li>a legacy {@code post_create_events} item {@code {id_str, text, created_at or timestamp_ms,
 *       user:{id_str, screen_name}, in_reply_to_status_id_str, in_reply_to_user_id_str,
 *       entities:{user_mentions}}}.
 * </ul>
 *
 * <p>{@code id}, {@code text} and {@code authorId} are required: a payload without one of them
 * fails with {@link MissingPayloadFieldException}. The others may be null ({@code mentions} is
 * empty instead), as said below.
 *
 * @param id the post's id
 * @param text its text
 * @param authorId the author's user id
 * @param createdAt when it was posted, as the platform wrote it (ISO-8601, or the legacy format; a
 *     legacy {@code timestamp_ms} as ISO-8601); null if the payload has no time
 * @param authorUsername the author's handle, without {@code @}; null when neither the post nor the
 *     delivery's expanded users carry it
 * @param conversationId the thread's root post; null in the legacy shape
 * @param inReplyToPostId the post this one answers ({@code referenced_posts} of type {@code
 *     replied_to}, or the legacy {@code in_reply_to_status_id}); null when it answers none
 * @param inReplyToUserId the author of that post; null when it answers none
 * @param mentions the users the post mentions ({@code entities.mentions} or the legacy {@code
 *     entities.user_mentions}: id and username, {@code name} null where the payload leaves it out);
 *     empty, never null, when none
 */
public record PostCreated(
    String id,
    String text,
    String authorId,
    String createdAt,
    String authorUsername,
    String conversationId,
    String inReplyToPostId,
    String inReplyToUserId,
    List<User> mentions) {

  private static final String NAME = "PostCreated";

  /** The mentions, copied; null taken as none. */
  public PostCreated {
    mentions = mentions == null ? List.of() : List.copyOf(mentions);
  }

  /** A post without author username, thread, reply or mentions. */
  public PostCreated(String id, String text, String authorId, String createdAt) {
    this(id, text, authorId, createdAt, null, null, null, null, List.of());
  }

  /**
   * Whether the post mentions the user: {@code post.isMentionOf(botUserId)} tells a mention of the
   * bot apart in one call, whatever the event type (a reply that mentions the bot arrives as {@code
   * post.reply.create}). A bot should also skip its own posts: {@code
   * botUserId.equals(post.authorId())}.
   */
  public boolean isMentionOf(String userId) {
    Objects.requireNonNull(userId, "userId");
    return mentions.stream().anyMatch(user -> userId.equals(user.id()));
  }

  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  static PostCreated of(
      JsonNode node,
      @JacksonInject(optional = OptBoolean.TRUE, useInput = OptBoolean.FALSE) WebhookEvent event) {
    JsonNode user = Nodes.path(node, "user");
    String authorId =
        Nodes.required(
            Nodes.first(Nodes.text(node, "author_id"), Nodes.text(user, "id_str", "id")),
            NAME,
            "authorId",
            "author_id (nor user.id_str)");
    String authorUsername = Nodes.text(user, "screen_name", "username");
    if (authorUsername == null) {
      User included = Nodes.includedUser(event, null, authorId);
      authorUsername = included == null ? null : included.username();
    }
    JsonNode entities = Nodes.path(node, "entities");
    List<User> mentions = Nodes.users(Nodes.path(entities, "mentions"));
    if (mentions.isEmpty()) {
      mentions = Nodes.users(Nodes.path(entities, "user_mentions"));
    }
    return new PostCreated(
        Nodes.required(Nodes.text(node, "id_str", "id"), NAME, "id", "id (nor id_str)"),
        Nodes.required(Nodes.text(node, "text", "full_text"), NAME, "text", "text (nor full_text)"),
        authorId,
        Nodes.first(
            Nodes.text(node, "created_at"), Nodes.isoFromMillis(Nodes.text(node, "timestamp_ms"))),
        authorUsername,
        Nodes.text(node, "conversation_id"),
        Nodes.first(
            referenced(node, "replied_to"),
            Nodes.text(node, "in_reply_to_status_id_str", "in_reply_to_status_id")),
        Nodes.text(node, "in_reply_to_user_id", "in_reply_to_user_id_str"),
        mentions);
  }

  /** The id of the first {@code referenced_posts} entry of {@code type}, or null. */
  private static String referenced(JsonNode node, String type) {
    JsonNode refs = Nodes.path(node, "referenced_posts");
    if (refs != null && refs.isArray()) {
      for (JsonNode ref : refs) {
        if (type.equals(Nodes.text(ref, "type"))) {
          return Nodes.text(ref, "id");
        }
      }
    }
    return null;
  }
}
