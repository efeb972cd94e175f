package io.servicehooks.registration;

import java.util.Objects;

/**
 * What a user's consent yields (OAuth 1.0a access token): the token and its secret, which together
 * let the application act for the user, and who the user is. Store the secret like a password: the
 * platform shows it only once. {@link #toString()} prints neither the token nor its secret.
 *
 * @param token the access token ({@code oauth_token})
 * @param tokenSecret its secret ({@code oauth_token_secret})
 * @param userId the user's id, or {@code null} when not known (credentials given from outside)
 * @param screenName the user's screen name, or {@code null} when not known
 */
public record UserCredentials(String token, String tokenSecret, String userId, String screenName) {

  /** Checks that the token and its secret are present. */
  public UserCredentials {
    if (token == null || token.isBlank()) {
      throw new IllegalArgumentException("the user's access token must not be empty");
    }
    if (tokenSecret == null || tokenSecret.isBlank()) {
      throw new IllegalArgumentException("the user's access token secret must not be empty");
    }
  }

  /** Credentials known only by their token and secret (from the environment, say). */
  public static UserCredentials of(String token, String tokenSecret) {
    return new UserCredentials(token, tokenSecret, null, null);
  }

  @Override
  public String toString() {
    return "UserCredentials[userId="
        + userId
        + ", screenName="
        + screenName
        + ", token=(hidden), tokenSecret=(hidden)]";
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof UserCredentials that
        && token.equals(that.token)
        && tokenSecret.equals(that.tokenSecret)
        && Objects.equals(userId, that.userId)
        && Objects.equals(screenName, that.screenName);
  }

  @Override
  public int hashCode() {
    return Objects.hash(token, userId, screenName);
  }
}
