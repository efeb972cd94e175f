package io.servicehooks.registration;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A post to create ({@link Posts#create}): its text and, optionally, the post it replies to or
 * quotes, media, who may reply, a community, the paid-partnership mark, or the earlier post it
 * edits. Immutable: each method returns a new value.
 *
 * <pre>{@code
 * posts.create(NewPost.text("@alice thanks!").replyTo(mention.id()));
 * }</pre>
 */
public final class NewPost {

  /** How long after its creation a post may still be edited. */
  public static final java.time.Duration EDIT_WINDOW = java.time.Duration.ofHours(1);

  private final String text;
  private final String inReplyToPostId;
  private final List<String> excludeReplyUserIds;
  private final String quotePostId;
  private final List<String> mediaIds;
  private final ReplySettings replySettings;
  private final String communityId;
  private final Boolean shareWithFollowers;
  private final Boolean paidPartnership;
  private final String previousPostId;
  private final Instant originalCreatedAt;

  private NewPost(
      String text,
      String inReplyToPostId,
      List<String> excludeReplyUserIds,
      String quotePostId,
      List<String> mediaIds,
      ReplySettings replySettings,
      String communityId,
      Boolean shareWithFollowers,
      Boolean paidPartnership,
      String previousPostId,
      Instant originalCreatedAt) {
    this.text = text;
    this.inReplyToPostId = inReplyToPostId;
    this.excludeReplyUserIds = List.copyOf(excludeReplyUserIds);
    this.quotePostId = quotePostId;
    this.mediaIds = List.copyOf(mediaIds);
    this.replySettings = replySettings;
    this.communityId = communityId;
    this.shareWithFollowers = shareWithFollowers;
    this.paidPartnership = paidPartnership;
    this.previousPostId = previousPostId;
    this.originalCreatedAt = originalCreatedAt;
  }

  /** A post with this text. */
  public static NewPost text(String text) {
    Objects.requireNonNull(text, "text");
    return new NewPost(text, null, List.of(), null, List.of(), null, null, null, null, null, null);
  }

  /**
   * A post of media only (up to 4 images, or 1 GIF, or 1 video, uploaded before); {@link
   * #withText(String)} adds a text.
   */
  public static NewPost media(String... mediaIds) {
    return new NewPost(null, null, List.of(), null, List.of(), null, null, null, null, null, null)
        .mediaIds(mediaIds);
  }

  /** This post with another text. */
  public NewPost withText(String text) {
    Objects.requireNonNull(text, "text");
    return new NewPost(
        text,
        inReplyToPostId,
        excludeReplyUserIds,
        quotePostId,
        mediaIds,
        replySettings,
        communityId,
        shareWithFollowers,
        paidPartnership,
        previousPostId,
        originalCreatedAt);
  }

  /** This post as a reply to the post {@code postId} ({@code reply.in_reply_to_post_id}). */
  public NewPost replyTo(String postId) {
    return new NewPost(
        text,
        id(postId, "postId"),
        excludeReplyUserIds,
        quotePostId,
        mediaIds,
        replySettings,
        communityId,
        shareWithFollowers,
        paidPartnership,
        previousPostId,
        originalCreatedAt);
  }

  /**
   * This reply without these users among the ones it addresses ({@code
   * reply.exclude_reply_user_ids}); only with {@link #replyTo(String)}.
   */
  public NewPost excludeReplyUserIds(String... userIds) {
    List<String> ids = new ArrayList<>();
    for (String userId : Objects.requireNonNull(userIds, "userIds")) {
      ids.add(id(userId, "userId"));
    }
    return new NewPost(
        text,
        inReplyToPostId,
        ids,
        quotePostId,
        mediaIds,
        replySettings,
        communityId,
        shareWithFollowers,
        paidPartnership,
        previousPostId,
        originalCreatedAt);
  }

  /** This post as a quote of the post {@code postId} ({@code quote_post_id}). */
  public NewPost quote(String postId) {
    return new NewPost(
        text,
        inReplyToPostId,
        excludeReplyUserIds,
        id(postId, "postId"),
        mediaIds,
        replySettings,
        communityId,
        shareWithFollowers,
        paidPartnership,
        previousPostId,
        originalCreatedAt);
  }

  /** This post with these uploaded media ({@code media.media_ids}). */
  public NewPost mediaIds(String... mediaIds) {
    List<String> ids = new ArrayList<>();
    for (String mediaId : Objects.requireNonNull(mediaIds, "mediaIds")) {
      ids.add(id(mediaId, "mediaId"));
    }
    if (ids.size() > 4) {
      throw new IllegalArgumentException(
          "a post carries at most 4 media (4 images, or 1 GIF, or 1 video), was " + ids.size());
    }
    return new NewPost(
        text,
        inReplyToPostId,
        excludeReplyUserIds,
        quotePostId,
        ids,
        replySettings,
        communityId,
        shareWithFollowers,
        paidPartnership,
        previousPostId,
        originalCreatedAt);
  }

  /** Who may reply to this post ({@code reply_settings}). */
  public NewPost replySettings(ReplySettings settings) {
    return new NewPost(
        text,
        inReplyToPostId,
        excludeReplyUserIds,
        quotePostId,
        mediaIds,
        Objects.requireNonNull(settings, "settings"),
        communityId,
        shareWithFollowers,
        paidPartnership,
        previousPostId,
        originalCreatedAt);
  }

  /**
   * This post in a community ({@code community_id}), shown to the author's followers too when
   * {@code shareWithFollowers} ({@code share_with_followers}).
   */
  public NewPost community(String communityId, boolean shareWithFollowers) {
    return new NewPost(
        text,
        inReplyToPostId,
        excludeReplyUserIds,
        quotePostId,
        mediaIds,
        replySettings,
        id(communityId, "communityId"),
        shareWithFollowers,
        paidPartnership,
        previousPostId,
        originalCreatedAt);
  }

  /** This post marked, or not, as a paid partnership ({@code paid_partnership}). */
  public NewPost paidPartnership(boolean paidPartnership) {
    return new NewPost(
        text,
        inReplyToPostId,
        excludeReplyUserIds,
        quotePostId,
        mediaIds,
        replySettings,
        communityId,
        shareWithFollowers,
        paidPartnership,
        previousPostId,
        originalCreatedAt);
  }

  /**
   * This post as a new version of the author's earlier post {@code previousPostId} ({@code
   * edit_options.previous_post_id}). The platform allows an edit within {@link #EDIT_WINDOW} of the
   * original's creation and refuses it later; use {@link #editOf(String, Instant)} when that time
   * is known, to be refused before any request.
   */
  public NewPost editOf(String previousPostId) {
    return editOf(previousPostId, null);
  }

  /**
   * This post as a new version of {@code previousPostId}, created at {@code originalCreatedAt}:
   * {@link Posts#create} refuses it before any request when, by the client's clock, more than
   * {@link #EDIT_WINDOW} has passed since.
   */
  public NewPost editOf(String previousPostId, Instant originalCreatedAt) {
    return new NewPost(
        text,
        inReplyToPostId,
        excludeReplyUserIds,
        quotePostId,
        mediaIds,
        replySettings,
        communityId,
        shareWithFollowers,
        paidPartnership,
        id(previousPostId, "previousPostId"),
        originalCreatedAt);
  }

  /** The text, or null for a post of media only. */
  public String text() {
    return text;
  }

  /** The post this one replies to, or null. */
  public String inReplyToPostId() {
    return inReplyToPostId;
  }

  /** The post this one quotes, or null. */
  public String quotePostId() {
    return quotePostId;
  }

  /** The post this one edits, or null. */
  public String previousPostId() {
    return previousPostId;
  }

  /** When the post this one edits was created, when known; else null. */
  public Instant originalCreatedAt() {
    return originalCreatedAt;
  }

  /** The request body of {@code POST /2/posts}. */
  com.fasterxml.jackson.databind.node.ObjectNode body() {
    if (text == null && mediaIds.isEmpty()) {
      throw new IllegalArgumentException("a post needs a text or media");
    }
    if (!excludeReplyUserIds.isEmpty() && inReplyToPostId == null) {
      throw new IllegalArgumentException("excludeReplyUserIds applies to a reply only");
    }
    var body = Responses.JSON.createObjectNode();
    if (text != null) {
      body.put("text", text);
    }
    if (inReplyToPostId != null) {
      var reply = body.putObject("reply");
      reply.put("in_reply_to_post_id", inReplyToPostId);
      if (!excludeReplyUserIds.isEmpty()) {
        var excluded = reply.putArray("exclude_reply_user_ids");
        excludeReplyUserIds.forEach(excluded::add);
      }
    }
    if (quotePostId != null) {
      body.put("quote_post_id", quotePostId);
    }
    if (!mediaIds.isEmpty()) {
      var ids = body.putObject("media").putArray("media_ids");
      mediaIds.forEach(ids::add);
    }
    if (replySettings != null) {
      body.put("reply_settings", replySettings.wireName());
    }
    if (communityId != null) {
      body.put("community_id", communityId);
      body.put("share_with_followers", Boolean.TRUE.equals(shareWithFollowers));
    }
    if (paidPartnership != null) {
      body.put("paid_partnership", paidPartnership);
    }
    if (previousPostId != null) {
      body.putObject("edit_options").put("previous_post_id", previousPostId);
    }
    return body;
  }

  private static String id(String id, String what) {
    if (id == null || id.isBlank()) {
      throw new IllegalArgumentException(what + " must not be empty");
    }
    return id;
  }

  /** What the post is, without its text (the user's words stay out of logs). */
  @Override
  public String toString() {
    return "NewPost[textLength="
        + (text == null ? 0 : text.length())
        + (inReplyToPostId == null ? "" : ", replyTo=" + inReplyToPostId)
        + (quotePostId == null ? "" : ", quote=" + quotePostId)
        + (mediaIds.isEmpty() ? "" : ", media=" + mediaIds.size())
        + (previousPostId == null ? "" : ", editOf=" + previousPostId)
        + "]";
  }
}
