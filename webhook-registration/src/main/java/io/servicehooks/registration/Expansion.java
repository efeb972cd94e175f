package io.servicehooks.registration;

/**
 * The objects a lookup may add under {@code includes} ({@code expansions}), as docs/protocol.md
 * lists them: the answer's {@link Post#author()}, {@link Post#media()} and {@link
 * Post#referencedPosts()} are resolved from them. A name the platform added later goes through
 * {@link PostQuery#rawExpansions(String...)}.
 */
public enum Expansion {
  /** The author, in {@code includes.users}. */
  AUTHOR_ID("author_id"),

  /** The attached media, in {@code includes.media}. */
  ATTACHMENTS_MEDIA_KEYS("attachments.media_keys"),

  /** The posts answered, quoted or reposted, in {@code includes.posts}. */
  REFERENCED_POSTS_ID("referenced_posts.id"),

  /** The authors of those posts, in {@code includes.users}. */
  REFERENCED_POSTS_ID_AUTHOR_ID("referenced_posts.id.author_id"),

  /** The author of the post answered, in {@code includes.users}. */
  IN_REPLY_TO_USER_ID("in_reply_to_user_id"),

  /** The mentioned users, in {@code includes.users}. */
  ENTITIES_MENTIONS_USERNAME("entities.mentions.username"),

  /** The earlier versions of an edited post, in {@code includes.posts}. */
  EDIT_HISTORY_POST_IDS("edit_history_post_ids");

  private final String wireName;

  Expansion(String wireName) {
    this.wireName = wireName;
  }

  /** The name the platform knows, such as {@code referenced_posts.id.author_id}. */
  public String wireName() {
    return wireName;
  }
}
