package io.servicehooks.registration;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;

/**
 * One post of a lookup's answer ({@link Posts#lookup}), with the related objects the answer
 * included already resolved: {@link #author()}, {@link #media()} and the posts of {@link
 * #referencedPosts()}. Fields the query did not ask for, or the platform did not send, are {@code
 * null} (lists are empty); fields the record does not know are ignored here and kept in {@link
 * #raw()}.
 *
 * @param id the post's id
 * @param text its text
 * @param authorId the author's user id ({@link PostField#AUTHOR_ID})
 * @param createdAt when it was posted
 * @param conversationId the id of the thread's first post
 * @param lang its language
 * @param source the application it was posted with
 * @param possiblySensitive whether it may hold sensitive content
 * @param inReplyToUserId the author of the post it answers
 * @param referencedPosts the posts it answers, quotes or reposts ({@code referenced_posts}), each
 *     with the post itself when the answer included it ({@link Expansion#REFERENCED_POSTS_ID})
 * @param attachments what it carries ({@code media_keys}, {@code poll_ids})
 * @param publicMetrics its public counts
 * @param entities the urls, mentions, hashtags, cashtags and annotations of its text
 * @param contextAnnotations the platform's context annotations
 * @param paidPartnership whether it is marked as a paid partnership
 * @param communityId the community it was posted in
 * @param editHistoryPostIds the ids of its versions, the original first
 * @param author its author, when the answer included it ({@link Expansion#AUTHOR_ID})
 * @param media its media in the order of {@code attachments.media_keys}, those the answer included
 *     ({@link Expansion#ATTACHMENTS_MEDIA_KEYS})
 * @param json the post's JSON as received
 */
public record Post(
    String id,
    String text,
    String authorId,
    Instant createdAt,
    String conversationId,
    String lang,
    String source,
    Boolean possiblySensitive,
    String inReplyToUserId,
    List<ReferencedPost> referencedPosts,
    Attachments attachments,
    Metrics publicMetrics,
    Entities entities,
    List<ContextAnnotation> contextAnnotations,
    Boolean paidPartnership,
    String communityId,
    List<String> editHistoryPostIds,
    User author,
    List<Media> media,
    RawJson json) {

  /** Lists copied, null taken as empty. */
  public Post {
    referencedPosts = referencedPosts == null ? List.of() : List.copyOf(referencedPosts);
    contextAnnotations = contextAnnotations == null ? List.of() : List.copyOf(contextAnnotations);
    editHistoryPostIds = editHistoryPostIds == null ? List.of() : List.copyOf(editHistoryPostIds);
    media = media == null ? List.of() : List.copyOf(media);
  }

  /** The post's JSON as received, as a Jackson tree. */
  public JsonNode raw() {
    return json.tree();
  }

  /** The id of the post this one answers ({@code replied_to}), or null. */
  public String inReplyToPostId() {
    for (ReferencedPost ref : referencedPosts) {
      if ("replied_to".equals(ref.type())) {
        return ref.id();
      }
    }
    return null;
  }

  /** Its user mentions ({@code entities.mentions}); empty when none or not asked for. */
  public List<Mention> mentions() {
    return entities == null ? List.of() : entities.mentions();
  }

  /**
   * A post this one answers ({@code replied_to}), quotes ({@code quoted}) or reposts ({@code
   * reposted}).
   *
   * @param type {@code replied_to}, {@code quoted} or {@code reposted}
   * @param id that post's id
   * @param post that post, when the answer included it; its own author and media are resolved, its
   *     referenced posts carry their ids only
   */
  public record ReferencedPost(String type, String id, Post post) {}

  /**
   * What a post carries.
   *
   * @param mediaKeys the keys of its media; empty when none
   * @param pollIds the ids of its polls; empty when none
   */
  public record Attachments(List<String> mediaKeys, List<String> pollIds) {
    /** Lists copied, null taken as empty. */
    public Attachments {
      mediaKeys = mediaKeys == null ? List.of() : List.copyOf(mediaKeys);
      pollIds = pollIds == null ? List.of() : List.copyOf(pollIds);
    }
  }

  /**
   * A post's public counts; each null when not sent.
   *
   * @param repostCount reposts ({@code repost_count}, or the older {@code retweet_count})
   * @param replyCount replies
   * @param likeCount likes
   * @param quoteCount quotes
   * @param bookmarkCount bookmarks
   * @param impressionCount impressions
   */
  public record Metrics(
      Long repostCount,
      Long replyCount,
      Long likeCount,
      Long quoteCount,
      Long bookmarkCount,
      Long impressionCount) {}

  /**
   * The entities of a post's text; each list empty when none.
   *
   * @param mentions the users mentioned
   * @param urls the links
   * @param hashtags the hashtags
   * @param cashtags the cashtags
   * @param annotations the named things the platform recognized
   */
  public record Entities(
      List<Mention> mentions,
      List<Url> urls,
      List<Tag> hashtags,
      List<Tag> cashtags,
      List<Annotation> annotations) {
    /** Lists copied, null taken as empty. */
    public Entities {
      mentions = mentions == null ? List.of() : List.copyOf(mentions);
      urls = urls == null ? List.of() : List.copyOf(urls);
      hashtags = hashtags == null ? List.of() : List.copyOf(hashtags);
      cashtags = cashtags == null ? List.of() : List.copyOf(cashtags);
      annotations = annotations == null ? List.of() : List.copyOf(annotations);
    }
  }

  /**
   * A user mentioned in a post's text.
   *
   * @param start where the mention starts in the text
   * @param end where it ends
   * @param username the handle, without {@code @}
   * @param id the user's id, when sent
   */
  public record Mention(Integer start, Integer end, String username, String id) {}

  /**
   * A link in a post's text.
   *
   * @param start where it starts in the text
   * @param end where it ends
   * @param url the shortened link as it stands in the text
   * @param expandedUrl where it leads
   * @param displayUrl how it is shown
   * @param mediaKey the media it stands for, when it is a media link
   */
  public record Url(
      Integer start,
      Integer end,
      String url,
      String expandedUrl,
      String displayUrl,
      String mediaKey) {}

  /**
   * A hashtag or cashtag.
   *
   * @param start where it starts in the text
   * @param end where it ends
   * @param tag the tag, without {@code #} or {@code $}
   */
  public record Tag(Integer start, Integer end, String tag) {}

  /**
   * A named thing the platform recognized in the text.
   *
   * @param start where it starts in the text
   * @param end where it ends
   * @param probability how sure the platform is
   * @param type such as {@code Person} or {@code Place}
   * @param normalizedText the thing's name
   */
  public record Annotation(
      Integer start, Integer end, Double probability, String type, String normalizedText) {}

  /**
   * One context annotation of a post.
   *
   * @param domain the domain (such as "Brand")
   * @param entity the entity within it
   */
  public record ContextAnnotation(Named domain, Named entity) {}

  /**
   * A domain or entity of a context annotation.
   *
   * @param id its id
   * @param name its name
   * @param description its description, when sent
   */
  public record Named(String id, String name, String description) {}
}
