package io.servicehooks.registration;

import java.util.Objects;
import java.util.Optional;

/**
 * Finds the credentials to act for the user an event is for ({@code for_user_id}), so a listener
 * can answer as that user ({@link Answering}). Most bots act for one user, their own account:
 * {@link #single(UserCredentials)} or {@link #fromEnvironment()}. An application that serves many
 * users looks them up by id, from its own store:
 *
 * <pre>{@code
 * UserCredentialsSource source = userId -> tokens.findByUserId(userId);
 * }</pre>
 */
@FunctionalInterface
public interface UserCredentialsSource {

  /** The environment variable holding the user's access token. */
  String TOKEN_VARIABLE = "SERVICE_USER_TOKEN";

  /** The environment variable holding the user's access token secret. */
  String TOKEN_SECRET_VARIABLE = "SERVICE_USER_TOKEN_SECRET";

  /** Where {@code servicehooks auth login} keeps the credentials, under the user's home. */
  String CREDENTIALS_FILE = ".config/servicehooks/credentials.json";

  /**
   * The credentials to act for the user {@code userId}, or empty when this source has none for
   * them.
   */
  Optional<UserCredentials> forUser(String userId);

  /**
   * One user's credentials: given for that user ({@link UserCredentials#userId()}), or for any user
   * when they name none (a token from the environment, say).
   */
  static UserCredentialsSource single(UserCredentials credentials) {
    Objects.requireNonNull(credentials, "credentials");
    return new UserCredentialsSources.Single(credentials, "the credentials given");
  }

  /**
   * The bot user's credentials from the environment: {@code SERVICE_USER_TOKEN} and {@code
   * SERVICE_USER_TOKEN_SECRET} (for any user: they name none), else the credentials file {@code
   * servicehooks auth login} writes ({@code ~/.config/servicehooks/credentials.json}, for the user
   * it names). With neither, a source that has none (the answer then fails, saying where it
   * looked).
   *
   * @throws IllegalStateException when only one of the two variables is set, or the file may be
   *     read by group or others or is not a credentials file
   */
  static UserCredentialsSource fromEnvironment() {
    return UserCredentialsSources.fromEnvironment(System.getenv(), System.getProperty("user.home"));
  }
}
