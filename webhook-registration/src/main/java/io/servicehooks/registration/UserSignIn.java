package io.servicehooks.registration;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The three legs of OAuth 1.0a sign-in (docs/acting-for-a-user.md#how-it-works), by which a user
 * lets the application act for them: a {@linkplain #requestToken request token}, the user's
 * approval on the platform's {@linkplain #authorizeUrl authorize page}, and the {@linkplain
 * #accessToken access token} that the approval's verifier buys. Obtained from {@link
 * WebhookClient#userSignIn()}.
 *
 * <p>A web application passes its callback URL (approved in the application's settings) and finds
 * the verifier in the callback's query; a command line passes {@link #OUT_OF_BAND} and asks the
 * user for the PIN the platform shows. The platform's refusals are {@link WebhookApiException}s
 * with reasons {@link WebhookApiException.Reason#CALLBACK_NOT_APPROVED}, {@link
 * WebhookApiException.Reason#INVALID_VERIFIER}, {@link
 * WebhookApiException.Reason#INVALID_SIGNATURE} and {@link WebhookApiException.Reason#CLOCK_SKEW},
 * carrying the platform's message.
 */
public final class UserSignIn {

  /** The callback value that asks the platform to show the user a PIN instead of redirecting. */
  public static final String OUT_OF_BAND = "oob";

  private static final Logger LOG = LoggerFactory.getLogger(WebhookClient.class);

  private final ApiCaller api;
  private final OAuthSigner signer;

  UserSignIn(ApiCaller api, OAuthSigner signer) {
    this.api = api;
    this.signer = signer;
  }

  /** {@link #requestToken(String, AccessType)} with the access the application's settings name. */
  public RequestToken requestToken(String callback) throws IOException {
    return requestToken(callback, null);
  }

  /**
   * First leg: {@code POST /oauth/request_token}.
   *
   * @param callback where the platform sends the user after approval (an https URL approved in the
   *     application's settings), or {@link #OUT_OF_BAND} for a PIN
   * @param accessType the access to ask for, or {@code null} for the application's setting
   * @throws WebhookApiException {@link WebhookApiException.Reason#CALLBACK_NOT_APPROVED} when the
   *     callback is not approved
   */
  public RequestToken requestToken(String callback, AccessType accessType) throws IOException {
    if (callback == null || callback.isBlank()) {
      throw new IllegalArgumentException("callback must be a URL or \"oob\", was empty");
    }
    if (!callback.equals(OUT_OF_BAND)) {
      URI uri;
      try {
        uri = URI.create(callback);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("callback must be a URL or \"oob\", was: " + callback);
      }
      if (uri.getScheme() == null || uri.getHost() == null) {
        throw new IllegalArgumentException(
            "callback must be an absolute URL or \"oob\", was: " + callback);
      }
    }
    String path =
        "/oauth/request_token"
            + (accessType == null ? "" : "?x_auth_access_type=" + accessType.parameterValue());
    List<OAuthSigner.Param> extra = List.of(new OAuthSigner.Param("oauth_callback", callback));
    ApiResponse response =
        api.signedBy(
                (method, uri) -> signer.authorization(method, uri, List.of(), null, null, extra))
            .call("POST", path, null, ApiCaller.Repeat.UNSAFE);
    Map<String, String> form = form(response);
    String token = form.get("oauth_token");
    String secret = form.get("oauth_token_secret");
    if (token == null || token.isEmpty() || secret == null) {
      throw ApiErrors.unexpected(response, "no oauth_token and oauth_token_secret in the answer");
    }
    boolean confirmed = "true".equals(form.get("oauth_callback_confirmed"));
    if (!confirmed) {
      // RFC 5849 2.1: without the confirmation the token may come from an older protocol version
      throw ApiErrors.unexpected(response, "the platform did not confirm the callback");
    }
    LOG.debug("request token obtained");
    return new RequestToken(token, secret, true);
  }

  /** The page where the user approves the request token: {@code /oauth/authorize}. */
  public URI authorizeUrl(RequestToken requestToken) {
    return pageUrl("/oauth/authorize", requestToken, false, null);
  }

  /**
   * {@link #authorizeUrl(RequestToken)} with the page's options.
   *
   * @param forceLogin make the user sign in again even when signed in already
   * @param screenName prefill the sign-in form with this screen name, or {@code null}
   */
  public URI authorizeUrl(RequestToken requestToken, boolean forceLogin, String screenName) {
    return pageUrl("/oauth/authorize", requestToken, forceLogin, screenName);
  }

  /**
   * "Sign in with" ({@code /oauth/authenticate}): like {@link #authorizeUrl} but a user who
   * approved the application before is sent straight back to the callback.
   */
  public URI authenticateUrl(RequestToken requestToken, boolean forceLogin, String screenName) {
    return pageUrl("/oauth/authenticate", requestToken, forceLogin, screenName);
  }

  /**
   * Third leg: {@code POST /oauth/access_token}, signed with the request token, exchanges the
   * verifier for the user's credentials.
   *
   * @param verifier the callback's {@code oauth_verifier}, or the PIN the user typed
   * @throws WebhookApiException {@link WebhookApiException.Reason#INVALID_VERIFIER} when the
   *     verifier is wrong or the request token expired or was used
   */
  public UserCredentials accessToken(RequestToken requestToken, String verifier)
      throws IOException {
    Objects.requireNonNull(requestToken, "requestToken");
    if (verifier == null || verifier.isBlank()) {
      throw new IllegalArgumentException("verifier must not be empty");
    }
    List<OAuthSigner.Param> extra =
        List.of(new OAuthSigner.Param("oauth_verifier", verifier.strip()));
    ApiResponse response =
        api.signedBy(
                (method, uri) ->
                    signer.authorization(
                        method,
                        uri,
                        List.of(),
                        requestToken.token(),
                        requestToken.tokenSecret(),
                        extra))
            .call("POST", "/oauth/access_token", null, ApiCaller.Repeat.UNSAFE);
    Map<String, String> form = form(response);
    String token = form.get("oauth_token");
    String secret = form.get("oauth_token_secret");
    if (token == null || token.isEmpty() || secret == null || secret.isEmpty()) {
      throw ApiErrors.unexpected(response, "no oauth_token and oauth_token_secret in the answer");
    }
    LOG.info("signed in user {} ({})", form.get("screen_name"), form.get("user_id"));
    return new UserCredentials(token, secret, form.get("user_id"), form.get("screen_name"));
  }

  private URI pageUrl(String path, RequestToken requestToken, boolean forceLogin, String name) {
    Objects.requireNonNull(requestToken, "requestToken");
    StringBuilder url =
        new StringBuilder(api.baseUri().toString())
            .append(path)
            .append("?oauth_token=")
            .append(OAuthSigner.percentEncode(requestToken.token()));
    if (forceLogin) {
      url.append("&force_login=true");
    }
    if (name != null && !name.isBlank()) {
      url.append("&screen_name=").append(OAuthSigner.percentEncode(name.strip()));
    }
    return URI.create(url.toString());
  }

  /** The answer's form fields; never printed, since they hold token secrets. */
  private static Map<String, String> form(ApiResponse response) {
    Map<String, String> values = new HashMap<>();
    String body = new String(response.body(), StandardCharsets.UTF_8).strip();
    try {
      for (OAuthSigner.Param p : OAuthSigner.formParams(body)) {
        values.putIfAbsent(p.name(), p.value());
      }
    } catch (IllegalArgumentException malformed) {
      values.clear();
    }
    return values;
  }

  @Override
  public String toString() {
    return "UserSignIn[" + api.baseUri() + "]";
  }
}
