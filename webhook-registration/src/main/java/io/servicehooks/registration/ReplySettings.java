package io.servicehooks.registration;

/** Who may reply to a new post ({@code reply_settings}); without it, everyone may. */
public enum ReplySettings {
  /** Only the users the author follows. */
  FOLLOWING("following"),
  /** Only the users the post mentions. */
  MENTIONED_USERS("mentionedUsers");

  private final String wireName;

  ReplySettings(String wireName) {
    this.wireName = wireName;
  }

  /** The value the platform knows, such as {@code mentionedUsers}. */
  public String wireName() {
    return wireName;
  }
}
