package io.servicehooks.registration;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;

/**
 * A user a lookup's answer included ({@code includes.users}): the author of a post ({@link
 * Post#author()}), a mentioned user, the author of a referenced post. Fields the query did not ask
 * for ({@link UserField}), or the platform did not send, are {@code null} (lists are empty); the
 * profile's {@code entities} and fields the record does not know are kept in {@link #raw()}.
 *
 * @param id the user's id
 * @param name the display name
 * @param username the handle, without {@code @}
 * @param createdAt when the account was created
 * @param description the profile's description
 * @param location the location the profile gives
 * @param url the profile's URL
 * @param isProtected whether the user's posts are protected ({@code protected})
 * @param verified whether the account is verified
 * @param profileImageUrl the profile image's URL
 * @param pinnedPostId the id of the pinned post
 * @param publicMetrics followers, following, posts and lists counts
 * @param affiliation the affiliation badge
 * @param connectionStatus how the user relates to the caller; empty when not sent
 * @param json the user's JSON as received
 */
public record User(
    String id,
    String name,
    String username,
    Instant createdAt,
    String description,
    String location,
    String url,
    Boolean isProtected,
    Boolean verified,
    String profileImageUrl,
    String pinnedPostId,
    Metrics publicMetrics,
    Affiliation affiliation,
    List<String> connectionStatus,
    RawJson json) {

  /** Lists copied, null taken as empty. */
  public User {
    connectionStatus = connectionStatus == null ? List.of() : List.copyOf(connectionStatus);
  }

  /** The user's JSON as received, as a Jackson tree. */
  public JsonNode raw() {
    return json.tree();
  }

  /**
   * A user's public counts; each null when not sent.
   *
   * @param followersCount followers
   * @param followingCount users followed
   * @param postCount posts ({@code post_count}, or the older {@code tweet_count})
   * @param listedCount lists the user is on
   * @param likeCount likes given
   */
  public record Metrics(
      Long followersCount, Long followingCount, Long postCount, Long listedCount, Long likeCount) {}

  /**
   * An affiliation badge.
   *
   * @param userIds the affiliated organisations' user ids ({@code user_id}, an array since 18
   *     February 2025; a single id of the older shape becomes a list of one)
   * @param description the affiliation's description
   * @param url its URL
   * @param badgeUrl the badge image's URL
   */
  public record Affiliation(List<String> userIds, String description, String url, String badgeUrl) {
    /** Lists copied, null taken as empty. */
    public Affiliation {
      userIds = userIds == null ? List.of() : List.copyOf(userIds);
    }
  }
}
