package io.servicehooks.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.servicehooks.testkit.OAuthVerifier.TokenKind;
import io.servicehooks.testkit.OAuthVerifier.Verified;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The simulated platform's OAuth 1.0a side (docs/acting-for-a-user.md#how-it-works): the three legs
 * ({@code POST /oauth/request_token}, the authorize page, {@code POST /oauth/access_token}), {@code
 * POST /1.1/oauth/invalidate_token}, and the check of user-context calls to {@code /2/...}. Every
 * signed request is verified with the testkit's own {@link OAuthSignature}; a timestamp more than 5
 * minutes from the simulator's clock and a nonce seen before are refused.
 *
 * <p>This class keeps the token state (request tokens, verifiers, access tokens, users) and the
 * legs that change it; {@link OAuthVerifier} checks signatures, {@link AuthorizePage} is the page.
 * The legs stay together: they are the transitions of one state under one lock (issued, approved,
 * exchanged, invalidated), and each reads what the previous one wrote.
 */
final class OAuthEndpoints {

  static final Duration TIMESTAMP_TOLERANCE = Duration.ofMinutes(5);
  static final Duration REQUEST_TOKEN_LIFETIME = Duration.ofMinutes(15);
  static final String DEMO_USER_ID = "2244994945";
  static final String DEMO_SCREEN_NAME = "hooks_demo";

  static final int CODE_COULD_NOT_AUTHENTICATE = 32;
  static final int CODE_INVALID_TOKEN = 89;
  static final int CODE_TIMESTAMP_OUT_OF_BOUNDS = 135;
  static final int CODE_CALLBACK_NOT_APPROVED = 415;
  static final String INVALID_VERIFIER =
      "Error processing your OAuth request: Invalid oauth_verifier parameter";

  private static final Logger log = LoggerFactory.getLogger(OAuthEndpoints.class);
  private static final char[] ALPHANUMERIC =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".toCharArray();

  private static final class RequestTokenState {
    final String secret;
    final String callback;
    final Instant expires;
    String userId;
    String screenName;
    String verifier;
    boolean exchanged;

    RequestTokenState(String secret, String callback, Instant expires) {
      this.secret = secret;
      this.callback = callback;
      this.expires = expires;
    }
  }

  private record AccessTokenState(String secret, String userId, String screenName) {}

  private final String apiKey;
  private final String apiSecret;
  private final SimClock clock;
  private final boolean localMode;
  private final SecureRandom random = new SecureRandom();
  private final AuthorizePage authorizePage = new AuthorizePage(this);
  private final OAuthVerifier verifier;
  private final UserDirectory users;

  private final Object lock = new Object();
  // Guarded by lock.
  private final Set<String> approvedCallbacks = new HashSet<>();
  private final Map<String, RequestTokenState> requestTokens = new LinkedHashMap<>();
  private final Map<String, AccessTokenState> accessTokens = new HashMap<>();
  private final Map<String, String> userIds = new HashMap<>();
  private long nextUserId = 1_300_000_001L;

  OAuthEndpoints(
      String apiKey, String apiSecret, SimClock clock, boolean localMode, UserDirectory users) {
    this.users = users;
    this.apiKey = apiKey;
    this.apiSecret = apiSecret;
    this.clock = clock;
    this.localMode = localMode;
    this.verifier = new OAuthVerifier(apiKey, apiSecret, clock, new TokenState());
    userIds.put(DEMO_SCREEN_NAME.toLowerCase(Locale.ROOT), DEMO_USER_ID);
  }

  // ---------------------------------------------------------------- operations for tests

  void approveCallback(String url) {
    synchronized (lock) {
      approvedCallbacks.add(withoutQuery(url));
    }
  }

  /**
   * The user approves the request token on the authorize page.
   *
   * @return the verifier: the PIN the page shows for {@code oob}, else the callback's value
   */
  String approve(String requestToken, String userId, String screenName) {
    synchronized (lock) {
      RequestTokenState state = requestTokens.get(requestToken);
      if (state == null || state.exchanged || clock.now().isAfter(state.expires)) {
        throw new IllegalArgumentException("no request token " + requestToken + " is pending");
      }
      state.userId = userId;
      state.screenName = screenName;
      state.verifier = state.callback.equals("oob") ? pin() : randomText(32);
      userIds.putIfAbsent(screenName.toLowerCase(Locale.ROOT), userId);
      users.putIfAbsent(userId, screenName, clock.now());
      log.info("request token {} approved by user {} ({})", requestToken, screenName, userId);
      return state.verifier;
    }
  }

  /**
   * Issues an access token for a known user as if the user had signed in.
   *
   * @return the token and its secret
   */
  String[] issueAccessToken(String userId, String screenName) {
    synchronized (lock) {
      String accessToken = userId + "-" + randomText(40);
      String accessSecret = randomText(45);
      accessTokens.put(accessToken, new AccessTokenState(accessSecret, userId, screenName));
      userIds.putIfAbsent(screenName.toLowerCase(Locale.ROOT), userId);
      log.info("access token issued to user {} ({}) by the simulator", screenName, userId);
      return new String[] {accessToken, accessSecret};
    }
  }

  /** Request tokens issued and neither exchanged nor expired, oldest first. */
  List<String> pendingRequestTokens() {
    synchronized (lock) {
      Instant now = clock.now();
      List<String> pending = new ArrayList<>();
      requestTokens.forEach(
          (token, state) -> {
            if (!now.isAfter(state.expires) && !state.exchanged) {
              pending.add(token);
            }
          });
      return pending;
    }
  }

  /** How many access tokens are valid now (issued and not invalidated). */
  int activeAccessTokens() {
    synchronized (lock) {
      return accessTokens.size();
    }
  }

  // ---------------------------------------------------------------- HTTP

  static boolean handles(String path) {
    return path.startsWith("/oauth/") || path.equals("/1.1/oauth/invalidate_token");
  }

  SimResponse handle(ApiRequest request) {
    String method = request.method();
    return switch (request.path()) {
      case "/oauth/request_token" -> method.equals("POST") ? requestToken(request) : notAllowed();
      case "/oauth/access_token" -> method.equals("POST") ? accessToken(request) : notAllowed();
      case "/oauth/authorize", "/oauth/authenticate" ->
          switch (method) {
            case "GET" -> authorizePage.page(request);
            case "POST" -> authorizePage.decision(request);
            default -> notAllowed();
          };
      case "/1.1/oauth/invalidate_token" ->
          method.equals("POST") ? invalidate(request) : notAllowed();
      default ->
          SimResponse.problem(404, "Not Found Error", "No such endpoint", "resource-not-found");
    };
  }

  static boolean isUserContext(ApiRequest request) {
    String header = request.header("Authorization");
    return header != null && header.regionMatches(true, 0, "OAuth ", 0, 6);
  }

  /**
   * Checks a user-context call to {@code /2/...}.
   *
   * @return the refusal, or {@code null} with the user id put in {@code userId[0]}
   */
  SimResponse verifyUserContext(ApiRequest request, String[] userId) {
    Verified verified = verify(request, TokenKind.ACCESS);
    if (verified.refusal() != null) {
      return verified.refusal();
    }
    userId[0] = ((AccessTokenState) verified.state()).userId();
    return null;
  }

  /**
   * Refuses a subscription to private events ({@code dm.*}) made with the app-only token (no user),
   * or made for another user than the one whose context signs it; {@code null} when allowed.
   */
  static SimResponse refusePrivateSubscription(ApiRequest request, String userId) {
    if (!request.method().equals("POST") || !request.path().equals("/2/activity/subscriptions")) {
      return null;
    }
    JsonNode body = Json.parseOrNull(request.body());
    String eventType = body == null ? null : Json.text(body, "event_type");
    if (eventType == null || !eventType.startsWith("dm.")) {
      return null;
    }
    if (userId == null) {
      return SimResponse.problem(
          403,
          "Unsupported Authentication",
          "Subscriptions to private events ("
              + eventType
              + ") need user context: sign the call with the user's OAuth 1.0a access token (OAuth"
              + " 1.0a User Context). Authenticating with OAuth 2.0 Application-Only is forbidden"
              + " for them.",
          "unsupported-authentication");
    }
    JsonNode filter = body.get("filter");
    String filterUser = filter == null ? null : Json.text(filter, "user_id");
    if (!userId.equals(filterUser)) {
      return SimResponse.problem(
          403,
          "Forbidden",
          "In the context of user "
              + userId
              + " only that user's private events can be subscribed to (filter.user_id "
              + filterUser
              + ")",
          "not-authorized-for-resource");
    }
    return null;
  }

  private SimResponse requestToken(ApiRequest request) {
    Verified verified = verify(request, TokenKind.NONE);
    if (verified.refusal() != null) {
      return verified.refusal();
    }
    String callback = verified.params().get("oauth_callback");
    if (callback == null || callback.isBlank()) {
      return SimResponse.problem(
          400, "Invalid Request", "oauth_callback is required (a URL or oob)", "invalid-request");
    }
    if (!callbackApproved(callback)) {
      return SimResponse.codedError(
          403,
          CODE_CALLBACK_NOT_APPROVED,
          null,
          "Callback URL not approved for this client application. Approved callback URLs can be"
              + " adjusted in your application settings");
    }
    String accessType = verified.params().get("x_auth_access_type");
    if (accessType != null && !accessType.equals("read") && !accessType.equals("write")) {
      return SimResponse.problem(
          400,
          "Invalid Request",
          "x_auth_access_type must be read or write, was " + accessType,
          "invalid-request");
    }
    String token = randomText(27);
    String secret = randomText(32);
    verifier.pruneNonces();
    synchronized (lock) {
      pruneRequestTokens();
      requestTokens.put(
          token, new RequestTokenState(secret, callback, clock.now().plus(REQUEST_TOKEN_LIFETIME)));
    }
    log.info("request token {} issued (callback {})", token, callback);
    return form(
        Map.of(
            "oauth_token", token,
            "oauth_token_secret", secret,
            "oauth_callback_confirmed", "true"));
  }

  /** Whether {@code token} is a request token waiting for the user's decision. */
  boolean awaitsDecision(String token) {
    synchronized (lock) {
      RequestTokenState state = token == null ? null : requestTokens.get(token);
      return state != null && !clock.now().isAfter(state.expires) && state.verifier == null;
    }
  }

  /** The user's decision on the authorize page: the callback, and the verifier unless cancelled. */
  record Decision(String callback, String verifier) {}

  /**
   * Records the user's decision on a request token: cancelled, it is forgotten; approved, it gets a
   * verifier for the user with this screen name (a new user id for a new name).
   *
   * @return null when the token no longer awaits a decision
   */
  Decision decide(String token, String screenName, boolean cancel) {
    synchronized (lock) {
      RequestTokenState state = token == null ? null : requestTokens.get(token);
      if (state == null || clock.now().isAfter(state.expires) || state.verifier != null) {
        return null;
      }
      if (cancel) {
        requestTokens.remove(token);
        return new Decision(state.callback, null);
      }
      String userId =
          userIds.computeIfAbsent(
              screenName.toLowerCase(Locale.ROOT), name -> Long.toString(nextUserId++));
      return new Decision(state.callback, approve(token, userId, screenName));
    }
  }

  private SimResponse accessToken(ApiRequest request) {
    Verified verified = verify(request, TokenKind.REQUEST);
    if (verified.refusal() != null) {
      return verified.refusal();
    }
    String verifier = verified.params().get("oauth_verifier");
    String token = verified.token();
    String accessToken;
    String accessSecret;
    RequestTokenState state;
    synchronized (lock) {
      state = requestTokens.get(token);
      if (state == null
          || state.verifier == null
          || state.exchanged
          || clock.now().isAfter(state.expires)
          || verifier == null
          || !OAuthSignature.matches(state.verifier, verifier)) {
        log.info("access token refused for request token {}: bad or expired verifier", token);
        return text(401, INVALID_VERIFIER);
      }
      // Kept (until pruned) so that a second use is told apart from a forged token.
      state.exchanged = true;
      accessToken = state.userId + "-" + randomText(40);
      accessSecret = randomText(45);
      accessTokens.put(
          accessToken, new AccessTokenState(accessSecret, state.userId, state.screenName));
    }
    log.info("access token issued to user {} ({})", state.screenName, state.userId);
    Map<String, String> answer = new LinkedHashMap<>();
    answer.put("oauth_token", accessToken);
    answer.put("oauth_token_secret", accessSecret);
    answer.put("user_id", state.userId);
    answer.put("screen_name", state.screenName);
    return form(answer);
  }

  private SimResponse invalidate(ApiRequest request) {
    Verified verified = verify(request, TokenKind.ACCESS);
    if (verified.refusal() != null) {
      return verified.refusal();
    }
    synchronized (lock) {
      accessTokens.remove(verified.token());
    }
    log.info("access token of user {} invalidated", ((AccessTokenState) verified.state()).userId());
    ObjectNode body = Json.object();
    body.put("access_token", verified.token());
    return SimResponse.ok(body);
  }

  // ---------------------------------------------------------------- verification

  private Verified verify(ApiRequest request, TokenKind kind) {
    return verifier.verify(request, kind);
  }

  /** The token state as the verifier reads it. */
  private final class TokenState implements OAuthVerifier.Tokens {
    @Override
    public OAuthVerifier.Found find(TokenKind kind, String token) {
      synchronized (lock) {
        if (kind == TokenKind.REQUEST && requestTokens.containsKey(token)) {
          return new OAuthVerifier.Found(requestTokens.get(token).secret, requestTokens.get(token));
        }
        if (kind == TokenKind.ACCESS && accessTokens.containsKey(token)) {
          return new OAuthVerifier.Found(accessTokens.get(token).secret(), accessTokens.get(token));
        }
        return null;
      }
    }

    @Override
    public void prune() {
      synchronized (lock) {
        pruneRequestTokens();
      }
    }
  }

  // Caller holds lock. Forgets request tokens long expired.
  private void pruneRequestTokens() {
    Instant now = clock.now();
    requestTokens.values().removeIf(state -> state.expires.plus(Duration.ofHours(1)).isBefore(now));
  }

  private boolean callbackApproved(String callback) {
    if (callback.equals("oob")) {
      return true;
    }
    URI uri;
    try {
      uri = URI.create(callback);
    } catch (IllegalArgumentException e) {
      return false;
    }
    if (uri.getScheme() == null || uri.getHost() == null) {
      return false;
    }
    synchronized (lock) {
      if (approvedCallbacks.contains(withoutQuery(callback))) {
        return true;
      }
    }
    String host = uri.getHost().toLowerCase(Locale.ROOT);
    return localMode
        && (host.equals("127.0.0.1") || host.equals("localhost"))
        && (uri.getScheme().equals("http") || uri.getScheme().equals("https"));
  }

  private static String withoutQuery(String url) {
    int question = url.indexOf('?');
    return question < 0 ? url : url.substring(0, question);
  }

  // ---------------------------------------------------------------- helpers

  private String pin() {
    return String.format("%07d", random.nextInt(10_000_000));
  }

  private String randomText(int length) {
    char[] text = new char[length];
    for (int i = 0; i < length; i++) {
      text[i] = ALPHANUMERIC[random.nextInt(ALPHANUMERIC.length)];
    }
    return new String(text);
  }

  static Map<String, String> firstValues(List<String[]> pairs) {
    Map<String, String> values = new HashMap<>();
    if (pairs != null) {
      for (String[] p : pairs) {
        values.putIfAbsent(p[0], p[1]);
      }
    }
    return values;
  }

  private static SimResponse form(Map<String, String> values) {
    List<String> pairs = new ArrayList<>();
    values.forEach((k, v) -> pairs.add(OAuthSignature.encode(k) + "=" + OAuthSignature.encode(v)));
    return new SimResponse(
        200,
        Map.of("content-type", "application/x-www-form-urlencoded"),
        String.join("&", pairs).getBytes(StandardCharsets.UTF_8));
  }

  private static SimResponse text(int status, String message) {
    return new SimResponse(
        status,
        Map.of("content-type", "text/plain;charset=utf-8"),
        message.getBytes(StandardCharsets.UTF_8));
  }

  private static SimResponse notAllowed() {
    return SimResponse.problem(
        405, "Method Not Allowed", "Method not allowed for this endpoint", "about:blank");
  }

  @Override
  public String toString() {
    return "OAuthEndpoints[" + activeAccessTokens() + " access tokens]";
  }
}
