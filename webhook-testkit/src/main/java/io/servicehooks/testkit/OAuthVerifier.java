package io.servicehooks.testkit;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Verifies one OAuth 1.0a signed request with the testkit's own {@link OAuthSignature}: the
 * header's form, the consumer key, the timestamp within {@link OAuthEndpoints#TIMESTAMP_TOLERANCE},
 * the token (looked up in {@link OAuthEndpoints}' state), the signature, and a nonce not seen
 * before.
 */
final class OAuthVerifier {

  // Logs under OAuthEndpoints' name: one logger for all of the simulator's OAuth endpoints, so a
  // test's log configuration silences or shows them together.
  private static final Logger log = LoggerFactory.getLogger(OAuthEndpoints.class);
  private static final Pattern DIGITS = Pattern.compile("[0-9]{1,12}");

  /** Which token the request must be signed with. */
  enum TokenKind {
    NONE,
    REQUEST,
    ACCESS
  }

  /** A token known to the platform: its secret and its state. */
  record Found(String secret, Object state) {}

  /** The token state the verifier reads, kept by {@link OAuthEndpoints}. */
  interface Tokens {
    /** The token of this kind, or null when unknown. */
    Found find(TokenKind kind, String token);

    /** Forgets the request tokens long expired. */
    void prune();
  }

  /** A verified request: its decoded parameters and the token's state. */
  record Verified(SimResponse refusal, Map<String, String> params, String token, Object state) {
    static Verified refused(SimResponse refusal) {
      return new Verified(refusal, Map.of(), null, null);
    }
  }

  private final String apiKey;
  private final String apiSecret;
  private final SimClock clock;
  private final Tokens tokens;
  private final Map<String, Instant> seenNonces = new HashMap<>(); // guarded by itself

  OAuthVerifier(String apiKey, String apiSecret, SimClock clock, Tokens tokens) {
    this.apiKey = apiKey;
    this.apiSecret = apiSecret;
    this.clock = clock;
    this.tokens = tokens;
  }

  Verified verify(ApiRequest request, TokenKind kind) {
    Map<String, String> oauth = OAuthSignature.header(request.header("Authorization"));
    if (oauth == null) {
      return Verified.refused(couldNotAuthenticate("Could not authenticate you."));
    }
    String signature = oauth.get("oauth_signature");
    String timestamp = oauth.get("oauth_timestamp");
    String nonce = oauth.get("oauth_nonce");
    if (signature == null
        || nonce == null
        || nonce.isEmpty()
        || !nonce.chars().allMatch(c -> c > 0x20 && c < 0x7f)
        || timestamp == null
        || !DIGITS.matcher(timestamp).matches()
        || !"HMAC-SHA1".equals(oauth.get("oauth_signature_method"))
        || (oauth.containsKey("oauth_version") && !"1.0".equals(oauth.get("oauth_version")))
        || !apiKey.equals(oauth.get("oauth_consumer_key"))) {
      return Verified.refused(couldNotAuthenticate("Could not authenticate you."));
    }
    Instant now = clock.now();
    Instant signedAt = Instant.ofEpochSecond(Long.parseLong(timestamp));
    if (Duration.between(signedAt, now).abs().compareTo(OAuthEndpoints.TIMESTAMP_TOLERANCE) > 0) {
      log.info("OAuth request refused: timestamp {} is too far from {}", signedAt, now);
      return Verified.refused(
          SimResponse.codedError(
              401, OAuthEndpoints.CODE_TIMESTAMP_OUT_OF_BOUNDS, null, "Timestamp out of bounds."));
    }
    String token = oauth.get("oauth_token");
    String tokenSecret = null;
    Object state = null;
    if (kind != TokenKind.NONE) {
      Found found = token == null ? null : tokens.find(kind, token);
      if (found == null) {
        return Verified.refused(
            SimResponse.codedError(
                401, OAuthEndpoints.CODE_INVALID_TOKEN, null, "Invalid or expired token."));
      }
      tokenSecret = found.secret();
      state = found.state();
    }
    List<String[]> params = new ArrayList<>();
    List<String[]> query = OAuthSignature.pairs(request.query());
    List<String[]> form = isForm(request) ? OAuthSignature.pairs(bodyText(request)) : List.of();
    if (query == null || form == null) {
      return Verified.refused(
          SimResponse.problem(
              400, "Invalid Request", "Malformed percent-encoding", "invalid-request"));
    }
    params.addAll(query);
    params.addAll(form);
    oauth.forEach(
        (name, value) -> {
          if (!name.equals("oauth_signature")) {
            params.add(new String[] {name, value});
          }
        });
    String expected =
        OAuthSignature.compute(request.method(), baseUrl(request), params, apiSecret, tokenSecret);
    if (!OAuthSignature.matches(expected, signature)) {
      log.info("OAuth request refused: the signature does not verify");
      return Verified.refused(couldNotAuthenticate("Could not authenticate you."));
    }
    tokens.prune();
    synchronized (seenNonces) {
      pruneNonces();
      String key = apiKey + "&" + (token == null ? "" : token) + "&" + nonce;
      if (seenNonces.putIfAbsent(key, signedAt.plus(OAuthEndpoints.TIMESTAMP_TOLERANCE)) != null) {
        log.info("OAuth request refused: nonce used already");
        return Verified.refused(
            couldNotAuthenticate("Could not authenticate you: the nonce was used already."));
      }
    }
    Map<String, String> all = new HashMap<>();
    for (String[] p : params) {
      all.putIfAbsent(p[0], p[1]);
    }
    return new Verified(null, all, token, state);
  }

  /** Forgets nonces whose timestamp can no longer pass. */
  void pruneNonces() {
    Instant now = clock.now();
    synchronized (seenNonces) {
      seenNonces
          .values()
          .removeIf(until -> until.plus(OAuthEndpoints.TIMESTAMP_TOLERANCE).isBefore(now));
    }
  }

  /**
   * The base URL the client signed: the simulator serves plain http, so the scheme is http and the
   * host (with its port) is the one the client addressed.
   */
  private static String baseUrl(ApiRequest request) {
    String host = request.header("Host");
    host = host == null ? "127.0.0.1" : host.toLowerCase(Locale.ROOT);
    if (host.endsWith(":80")) {
      host = host.substring(0, host.length() - 3);
    }
    return "http://" + host + request.path();
  }

  private static boolean isForm(ApiRequest request) {
    String type = request.header("Content-Type");
    return type != null
        && type.toLowerCase(Locale.ROOT).startsWith("application/x-www-form-urlencoded");
  }

  private static String bodyText(ApiRequest request) {
    return new String(request.body(), StandardCharsets.UTF_8);
  }

  static SimResponse couldNotAuthenticate(String message) {
    return SimResponse.codedError(401, OAuthEndpoints.CODE_COULD_NOT_AUTHENTICATE, null, message);
  }
}
