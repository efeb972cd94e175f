package io.servicehooks.registration;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs requests per RFC 5849 with HMAC-SHA1 (docs/acting-for-a-user.md#how-it-works): the
 * signature base string from the method, the base URL and the sorted, percent-encoded parameters of
 * the query, a form body and the {@code oauth_*} set; the key from the consumer secret and the
 * token secret. A JSON body is not a parameter source.
 */
final class OAuthSigner {

  /** One request parameter, decoded. */
  record Param(String name, String value) {
    Param {
      name = name == null ? "" : name;
      value = value == null ? "" : value;
    }
  }

  private static final Comparator<Param> BY_ENCODED_NAME_THEN_VALUE =
      Comparator.comparing((Param p) -> percentEncode(p.name()))
          .thenComparing(p -> percentEncode(p.value()));
  private static final char[] NONCE_ALPHABET =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".toCharArray();
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private final String consumerKey;
  private final String consumerSecret;
  private final Clock clock;
  private final Supplier<String> nonces;

  /**
   * @param nonces a fresh nonce per request: {@link #secureNonces} outside tests
   */
  OAuthSigner(String consumerKey, String consumerSecret, Clock clock, Supplier<String> nonces) {
    this.consumerKey = consumerKey;
    this.consumerSecret = consumerSecret;
    this.clock = clock;
    this.nonces = nonces;
  }

  /** 32 ASCII letters and digits per nonce, from {@code random}. */
  static Supplier<String> secureNonces(SecureRandom random) {
    return () -> {
      char[] nonce = new char[32];
      for (int i = 0; i < nonce.length; i++) {
        nonce[i] = NONCE_ALPHABET[random.nextInt(NONCE_ALPHABET.length)];
      }
      return new String(nonce);
    };
  }

  /**
   * The {@code Authorization} header value for one request, with a fresh nonce and the clock's
   * timestamp.
   *
   * @param form the decoded parameters of a form body; empty for no body or a JSON body
   * @param token the token ({@code oauth_token}), or null before one exists
   * @param tokenSecret its secret, or null
   * @param extra further {@code oauth_*} protocol parameters such as {@code oauth_callback} or
   *     {@code oauth_verifier}
   */
  String authorization(
      String method,
      URI uri,
      List<Param> form,
      String token,
      String tokenSecret,
      List<Param> extra) {
    List<Param> oauth = new ArrayList<>();
    oauth.add(new Param("oauth_consumer_key", consumerKey));
    oauth.add(new Param("oauth_nonce", nonces.get()));
    oauth.add(new Param("oauth_signature_method", "HMAC-SHA1"));
    oauth.add(new Param("oauth_timestamp", Long.toString(clock.instant().getEpochSecond())));
    if (token != null) {
      oauth.add(new Param("oauth_token", token));
    }
    oauth.add(new Param("oauth_version", "1.0"));
    oauth.addAll(extra);
    List<Param> all = new ArrayList<>(queryParams(uri));
    all.addAll(form);
    all.addAll(oauth);
    String signature = sign(baseString(method, uri, all), consumerSecret, tokenSecret);
    oauth.add(new Param("oauth_signature", signature));
    oauth.sort(BY_ENCODED_NAME_THEN_VALUE);
    StringBuilder header = new StringBuilder("OAuth ");
    for (int i = 0; i < oauth.size(); i++) {
      if (i > 0) {
        header.append(", ");
      }
      Param p = oauth.get(i);
      header.append(percentEncode(p.name())).append("=\"").append(percentEncode(p.value()));
      header.append('"');
    }
    return header.toString();
  }

  /**
   * RFC 5849 3.4.1: {@code METHOD&percent(base URL)&percent(normalized parameters)}.
   *
   * @param params every parameter, decoded: query, form body and the {@code oauth_*} set without
   *     {@code oauth_signature}
   */
  static String baseString(String method, URI uri, List<Param> params) {
    return method.toUpperCase(Locale.ROOT)
        + '&'
        + percentEncode(baseUrl(uri))
        + '&'
        + percentEncode(normalizedParameters(params));
  }

  /** Parameters encoded, sorted by name then value, joined as {@code k=v&k=v}. */
  static String normalizedParameters(List<Param> params) {
    List<String> pairs = new ArrayList<>(params.size());
    params.stream()
        .sorted(BY_ENCODED_NAME_THEN_VALUE)
        .forEach(p -> pairs.add(percentEncode(p.name()) + '=' + percentEncode(p.value())));
    return String.join("&", pairs);
  }

  /**
   * RFC 5849 3.4.1.2: scheme and host in lower case, the port only when not the scheme's default,
   * the path, no query or fragment.
   */
  static String baseUrl(URI uri) {
    String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
    String host = uri.getHost().toLowerCase(Locale.ROOT);
    int port = uri.getPort();
    boolean defaultPort =
        port == -1
            || (scheme.equals("http") && port == 80)
            || (scheme.equals("https") && port == 443);
    String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
    return scheme + "://" + host + (defaultPort ? "" : ":" + port) + path;
  }

  /** HMAC-SHA1 keyed with {@code percent(consumer secret)&percent(token secret)}, in base64. */
  static String sign(String baseString, String consumerSecret, String tokenSecret) {
    String key =
        percentEncode(consumerSecret)
            + '&'
            + (tokenSecret == null ? "" : percentEncode(tokenSecret));
    try {
      Mac mac = Mac.getInstance("HmacSHA1");
      mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
      return Base64.getEncoder()
          .encodeToString(mac.doFinal(baseString.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA1 is not available", e);
    }
  }

  /**
   * RFC 3986 percent-encoding of the UTF-8 bytes: everything but {@code A-Z a-z 0-9 - . _ ~}, hex
   * digits in upper case (unlike {@code URLEncoder}, a space is {@code %20} and {@code ~} stays).
   */
  static String percentEncode(String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    StringBuilder out = new StringBuilder(bytes.length + 8);
    for (byte b : bytes) {
      int c = b & 0xff;
      if ((c >= 'A' && c <= 'Z')
          || (c >= 'a' && c <= 'z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '.'
          || c == '_'
          || c == '~') {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
      }
    }
    return out.toString();
  }

  /** The decoded parameters of the URI's query ({@code +} is a space, as in a form). */
  static List<Param> queryParams(URI uri) {
    return formParams(uri.getRawQuery());
  }

  /** Decodes {@code application/x-www-form-urlencoded} text; a name without {@code =} is empty. */
  static List<Param> formParams(String encoded) {
    List<Param> params = new ArrayList<>();
    if (encoded == null || encoded.isEmpty()) {
      return params;
    }
    for (String pair : encoded.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      params.add(
          new Param(
              URLDecoder.decode(name, StandardCharsets.UTF_8),
              URLDecoder.decode(value, StandardCharsets.UTF_8)));
    }
    return params;
  }

  @Override
  public String toString() {
    // The consumer key identifies the app to anyone who reads it: a credential like the rest.
    return "OAuthSigner[HMAC-SHA1]";
  }
}
