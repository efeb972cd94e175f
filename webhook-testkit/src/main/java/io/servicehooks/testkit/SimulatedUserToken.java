package io.servicehooks.testkit;

import java.util.Objects;

/**
 * A user's OAuth 1.0a access token issued by {@link PlatformSimulator#signIn}, as if the user had
 * signed in through the three legs: what a bot under test needs as its {@code
 * SERVICE_USER_TOKEN}/{@code SERVICE_USER_TOKEN_SECRET}. {@link #toString()} leaves the secret out.
 *
 * @param userId the user the token acts for
 * @param username the user's handle, without {@code @}
 * @param token the access token ({@code oauth_token})
 * @param tokenSecret the access token secret ({@code oauth_token_secret})
 */
public record SimulatedUserToken(String userId, String username, String token, String tokenSecret) {

  /** Checks that no component is null. */
  public SimulatedUserToken {
    Objects.requireNonNull(userId, "userId");
    Objects.requireNonNull(username, "username");
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(tokenSecret, "tokenSecret");
  }

  @Override
  public String toString() {
    return "SimulatedUserToken[userId=" + userId + ", username=" + username + "]";
  }
}
