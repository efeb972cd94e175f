package io.servicehooks.registration;

/**
 * The first leg's answer ({@code POST /oauth/request_token}): a temporary token the user approves
 * on the platform's authorize page. Keep it (with its secret) until the callback or the PIN
 * arrives: the third leg, {@link UserSignIn#accessToken}, is signed with it. {@link #toString()}
 * never prints the secret.
 *
 * @param token the request token ({@code oauth_token}), also the key the callback names it by
 * @param tokenSecret its secret ({@code oauth_token_secret})
 * @param callbackConfirmed whether the platform confirmed the callback ({@code
 *     oauth_callback_confirmed=true})
 */
public record RequestToken(String token, String tokenSecret, boolean callbackConfirmed) {

  /** Checks that the token and its secret are present. */
  public RequestToken {
    if (token == null || token.isBlank()) {
      throw new IllegalArgumentException("the request token must not be empty");
    }
    if (tokenSecret == null) {
      throw new IllegalArgumentException("the request token secret must not be null");
    }
  }

  @Override
  public String toString() {
    return "RequestToken[token="
        + token
        + ", callbackConfirmed="
        + callbackConfirmed
        + ", tokenSecret=(hidden)]";
  }
}
