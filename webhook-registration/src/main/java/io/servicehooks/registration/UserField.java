package io.servicehooks.registration;

/**
 * The fields of a user a lookup may ask for ({@code user.fields}) for the users it expands (such as
 * the author, {@link Expansion#AUTHOR_ID}), as docs/protocol.md lists them; a name the platform
 * added later goes through {@link PostQuery#rawUserFields(String...)}.
 */
public enum UserField {
  /** The user's id (always sent). */
  ID("id"),

  /** The display name (always sent). */
  NAME("name"),

  /** The handle, without {@code @} (always sent). */
  USERNAME("username"),

  /** When the account was created. */
  CREATED_AT("created_at"),

  /** The profile's description. */
  DESCRIPTION("description"),

  /** The location the profile gives. */
  LOCATION("location"),

  /** The profile's URL. */
  URL("url"),

  /** Whether the user's posts are protected. */
  PROTECTED("protected"),

  /** Whether the account is verified. */
  VERIFIED("verified"),

  /** The profile image's URL. */
  PROFILE_IMAGE_URL("profile_image_url"),

  /** The id of the pinned post. */
  PINNED_POST_ID("pinned_post_id"),

  /** The urls and mentions of the profile's description and URL. */
  ENTITIES("entities"),

  /** Followers, following, posts and lists counts. */
  PUBLIC_METRICS("public_metrics"),

  /** The affiliation badge ({@code user_id} is an array of ids). */
  AFFILIATION("affiliation"),

  /** How the user relates to the caller (user context). */
  CONNECTION_STATUS("connection_status");

  private final String wireName;

  UserField(String wireName) {
    this.wireName = wireName;
  }

  /** The name the platform knows, such as {@code username}. */
  public String wireName() {
    return wireName;
  }
}
