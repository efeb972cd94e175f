package io.servicehooks.testkit;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The app-only bearer token: {@code POST /oauth2/token} (client credentials) hands out the current
 * one, {@code POST /oauth2/invalidate_token} retires it, and every {@code /2/} call is checked
 * against it. A retired token is refused with code 89, any other with a plain 401.
 */
final class AppTokens {

  private static final String TOKEN_PREFIX = "AAAAAAAAAAAAAAAAAAAAA";
  private static final String EXPIRED_TOKEN = "Invalid or expired token.";

  private final byte[] apiKey;
  private final byte[] apiSecret;
  private final SecureRandom random;

  private final Object lock = new Object();
  // Guarded by lock.
  private String currentToken;
  private final Set<String> retiredTokens = new HashSet<>();

  AppTokens(String apiKey, String apiSecret, SecureRandom random) {
    this.apiKey = apiKey.getBytes(StandardCharsets.UTF_8);
    this.apiSecret = apiSecret.getBytes(StandardCharsets.UTF_8);
    this.random = random;
  }

  /** Retires the current token, as the platform does when it revokes one. */
  void revoke() {
    synchronized (lock) {
      if (currentToken != null) {
        retiredTokens.add(currentToken);
        currentToken = null;
      }
    }
  }

  /** {@code POST /oauth2/token}. */
  SimResponse token(ApiRequest request) {
    if (!basicCredentialsValid(request)) {
      return authenticityError("Unable to verify your credentials");
    }
    if (!isForm(request)) {
      return authenticityError("Content-Type must be application/x-www-form-urlencoded");
    }
    if (!"client_credentials".equals(form(request).get("grant_type"))) {
      return authenticityError("grant_type must be client_credentials");
    }
    String token;
    synchronized (lock) {
      if (currentToken == null) {
        currentToken = newToken();
      }
      token = currentToken;
    }
    ObjectNode body = Json.object();
    body.put("token_type", "bearer");
    body.put("access_token", token);
    return SimResponse.ok(body);
  }

  /** {@code POST /oauth2/invalidate_token}. */
  SimResponse invalidate(ApiRequest request) {
    if (!basicCredentialsValid(request)) {
      return authenticityError("Unable to verify your credentials");
    }
    if (!isForm(request)) {
      return authenticityError("Content-Type must be application/x-www-form-urlencoded");
    }
    String given = form(request).get("access_token");
    String raw = rawFormValue(request, "access_token");
    String invalidated = null;
    synchronized (lock) {
      // Accept the token whether or not the client form-encoded it: tokens contain "%2F"-style
      // escapes.
      if (currentToken != null
          && (sameSecret(currentToken, given) || sameSecret(currentToken, raw))) {
        invalidated = currentToken;
        retiredTokens.add(currentToken);
        currentToken = null;
      }
    }
    if (invalidated == null) {
      return SimResponse.codedError(401, 89, null, EXPIRED_TOKEN);
    }
    ObjectNode body = Json.object();
    body.put("access_token", invalidated);
    return SimResponse.ok(body);
  }

  /** Null when the call carries the current bearer token, else the 401 answer. */
  SimResponse check(ApiRequest request) {
    String header = request.header("Authorization");
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return unauthorized();
    }
    String token = header.substring(7).trim();
    synchronized (lock) {
      if (currentToken != null && sameSecret(currentToken, token)) {
        return null;
      }
      if (retiredTokens.contains(token)) {
        return SimResponse.codedError(401, 89, null, EXPIRED_TOKEN);
      }
    }
    return unauthorized();
  }

  private boolean basicCredentialsValid(ApiRequest request) {
    String header = request.header("Authorization");
    if (header == null || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
      return false;
    }
    String decoded;
    try {
      decoded =
          new String(
              Base64.getDecoder().decode(header.substring(6).trim()), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return false;
    }
    int colon = decoded.indexOf(':');
    if (colon < 0) {
      return false;
    }
    try {
      byte[] key =
          URLDecoder.decode(decoded.substring(0, colon), StandardCharsets.UTF_8)
              .getBytes(StandardCharsets.UTF_8);
      byte[] secret =
          URLDecoder.decode(decoded.substring(colon + 1), StandardCharsets.UTF_8)
              .getBytes(StandardCharsets.UTF_8);
      // Both comparisons always run, so timing does not tell which half was wrong.
      return MessageDigest.isEqual(key, apiKey) & MessageDigest.isEqual(secret, apiSecret);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private String newToken() {
    // Shaped like the real tokens: escapes included, so clients must send it exactly as given.
    return TOKEN_PREFIX + randomUrlSafe(18) + "%2F" + randomUrlSafe(30) + "%3D";
  }

  private String randomUrlSafe(int bytes) {
    byte[] b = new byte[bytes];
    random.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  private static boolean isForm(ApiRequest request) {
    String type = request.header("Content-Type");
    return type != null
        && type.toLowerCase(Locale.ROOT).startsWith("application/x-www-form-urlencoded");
  }

  private static Map<String, String> form(ApiRequest request) {
    Map<String, String> values = new HashMap<>();
    for (String pair : new String(request.body(), StandardCharsets.UTF_8).split("&")) {
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        continue;
      }
      try {
        values.putIfAbsent(
            URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        // A malformed escape makes the pair unusable; the caller then sees the value as missing.
      }
    }
    return values;
  }

  private static String rawFormValue(ApiRequest request, String name) {
    for (String pair : new String(request.body(), StandardCharsets.UTF_8).split("&")) {
      if (pair.startsWith(name + "=")) {
        return pair.substring(name.length() + 1);
      }
    }
    return null;
  }

  private static boolean sameSecret(String expected, String given) {
    return given != null
        && MessageDigest.isEqual(
            expected.getBytes(StandardCharsets.UTF_8), given.getBytes(StandardCharsets.UTF_8));
  }

  private static SimResponse authenticityError(String message) {
    return SimResponse.codedError(403, 99, "authenticity_token_error", message);
  }

  private static SimResponse unauthorized() {
    return SimResponse.problem(401, "Unauthorized", "Unauthorized", "about:blank");
  }
}
