package io.servicehooks.registration;

/**
 * The fields of a post a lookup may ask for ({@code post.fields}), as docs/protocol.md lists them;
 * a name the platform added later goes through {@link PostQuery#rawPostFields(String...)}. Without
 * any, a post is only its {@code id} and {@code text}.
 */
public enum PostField {
  /** The post's id (always sent). */
  ID("id"),

  /** Its text (always sent). */
  TEXT("text"),

  /** The author's user id; {@link Expansion#AUTHOR_ID} adds the author. */
  AUTHOR_ID("author_id"),

  /** The id of the thread's first post. */
  CONVERSATION_ID("conversation_id"),

  /** When it was posted. */
  CREATED_AT("created_at"),

  /** Its language, as the platform detected it. */
  LANG("lang"),

  /** The application it was posted with. */
  SOURCE("source"),

  /** Whether it may hold sensitive content. */
  POSSIBLY_SENSITIVE("possibly_sensitive"),

  /** The author of the post this one answers. */
  IN_REPLY_TO_USER_ID("in_reply_to_user_id"),

  /**
   * Its attachments ({@code media_keys}); {@link Expansion#ATTACHMENTS_MEDIA_KEYS} adds the media.
   */
  ATTACHMENTS("attachments"),

  /** The posts it answers, quotes or reposts ({@code {type, id}}). */
  REFERENCED_POSTS("referenced_posts"),

  /** Its public counts: reposts, replies, likes, quotes. */
  PUBLIC_METRICS("public_metrics"),

  /** The urls, mentions, hashtags and annotations in its text. */
  ENTITIES("entities"),

  /** The platform's context annotations (domain and entity). */
  CONTEXT_ANNOTATIONS("context_annotations"),

  /** Whether it is marked as a paid partnership. */
  PAID_PARTNERSHIP("paid_partnership"),

  /** The community it was posted in. */
  COMMUNITY_ID("community_id"),

  /** The ids of its versions, the original first. */
  EDIT_HISTORY_POST_IDS("edit_history_post_ids");

  private final String wireName;

  PostField(String wireName) {
    this.wireName = wireName;
  }

  /** The name the platform knows, such as {@code author_id}. */
  public String wireName() {
    return wireName;
  }
}
