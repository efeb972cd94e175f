package io.servicehooks.testkit;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The simulator's own OAuth 1.0a HMAC-SHA1 code (RFC 5849), written apart from the client's signer
 * so that the simulator checks it independently: it reads the {@code Authorization: OAuth} header,
 * rebuilds the signature base string from what arrived and compares in constant time.
 */
final class OAuthSignature {

  private OAuthSignature() {}

  /**
   * The parameters of an {@code Authorization: OAuth k="v", ...} header, decoded, without {@code
   * realm}; {@code null} when the header is absent, of another scheme or malformed.
   */
  static Map<String, String> header(String value) {
    if (value == null || !value.regionMatches(true, 0, "OAuth ", 0, 6)) {
      return null;
    }
    Map<String, String> params = new LinkedHashMap<>();
    for (String part : value.substring(6).split(",")) {
      String item = part.trim();
      if (item.isEmpty()) {
        continue;
      }
      int eq = item.indexOf('=');
      if (eq <= 0 || item.length() < eq + 3 || item.charAt(eq + 1) != '"' || !item.endsWith("\"")) {
        return null;
      }
      String name = decode(item.substring(0, eq));
      String text = decode(item.substring(eq + 2, item.length() - 1));
      if (name == null || text == null || params.containsKey(name)) {
        return null;
      }
      if (!name.equals("realm")) {
        params.put(name, text);
      }
    }
    return params;
  }

  /**
   * The base64 HMAC-SHA1 over the base string of this request.
   *
   * @param baseUrl scheme, host, port when not the default, and path
   * @param params every signed parameter, decoded, as {name, value} pairs: query, form body and the
   *     header's {@code oauth_*} parameters other than {@code oauth_signature}
   */
  static String compute(
      String method,
      String baseUrl,
      List<String[]> params,
      String consumerSecret,
      String tokenSecret) {
    List<String> encoded = new ArrayList<>();
    for (String[] p : params) {
      encoded.add(encode(p[0]) + "=" + encode(p[1]));
    }
    // Sorting "name=value" strings would put "a=" after "a2=": sort on the pair instead.
    encoded.sort(
        (x, y) -> {
          String[] a = x.split("=", 2);
          String[] b = y.split("=", 2);
          int byName = a[0].compareTo(b[0]);
          return byName != 0 ? byName : a[1].compareTo(b[1]);
        });
    String base =
        method.toUpperCase(java.util.Locale.ROOT)
            + "&"
            + encode(baseUrl)
            + "&"
            + encode(String.join("&", encoded));
    String key = encode(consumerSecret) + "&" + encode(tokenSecret == null ? "" : tokenSecret);
    try {
      Mac mac = Mac.getInstance("HmacSHA1");
      mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
      return Base64.getEncoder().encodeToString(mac.doFinal(base.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA1 is not available", e);
    }
  }

  static boolean matches(String expected, String given) {
    return given != null
        && MessageDigest.isEqual(
            expected.getBytes(StandardCharsets.UTF_8), given.getBytes(StandardCharsets.UTF_8));
  }

  /** RFC 3986 section 2.3: only ALPHA, DIGIT, {@code - . _ ~} stay; every other byte is %XX. */
  static String encode(String text) {
    StringBuilder out = new StringBuilder();
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      boolean unreserved =
          Character.isLetterOrDigit(c) && c < 128 || c == '-' || c == '.' || c == '_' || c == '~';
      if (unreserved) {
        out.append(c);
      } else {
        out.append(String.format("%%%02X", b & 0xff));
      }
    }
    return out.toString();
  }

  /**
   * Percent-decoding; with {@code plusIsSpace} a {@code +} is a space, as in forms and queries.
   * {@code null} for a malformed escape.
   */
  static String decode(String text, boolean plusIsSpace) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '%') {
        if (i + 2 >= text.length()) {
          return null;
        }
        int hi = Character.digit(text.charAt(i + 1), 16);
        int lo = Character.digit(text.charAt(i + 2), 16);
        if (hi < 0 || lo < 0) {
          return null;
        }
        bytes.write(hi * 16 + lo);
        i += 2;
      } else if (c == '+' && plusIsSpace) {
        bytes.write(' ');
      } else {
        int codePoint = text.codePointAt(i);
        byte[] raw = new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8);
        bytes.write(raw, 0, raw.length);
        i += Character.charCount(codePoint) - 1;
      }
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }

  private static String decode(String text) {
    return decode(text, false);
  }

  /** The pairs of a query or form body, decoded; {@code null} for a malformed escape. */
  static List<String[]> pairs(String encoded) {
    List<String[]> pairs = new ArrayList<>();
    if (encoded == null || encoded.isEmpty()) {
      return pairs;
    }
    for (String pair : encoded.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = decode(eq < 0 ? pair : pair.substring(0, eq), true);
      String value = eq < 0 ? "" : decode(pair.substring(eq + 1), true);
      if (name == null || value == null) {
        return null;
      }
      pairs.add(new String[] {name, value});
    }
    return pairs;
  }
}
