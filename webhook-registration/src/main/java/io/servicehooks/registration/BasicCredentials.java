package io.servicehooks.registration;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** The {@code Authorization: Basic} value the token endpoint expects from an API key and secret. */
final class BasicCredentials {

  private BasicCredentials() {}

  /**
   * {@code base64(urlencode(key) ":" urlencode(secret))}, each part encoded first as the platform
   * asks.
   */
  static String encode(String apiKey, String apiSecret) {
    String joined =
        URLEncoder.encode(apiKey, StandardCharsets.UTF_8)
            + ":"
            + URLEncoder.encode(apiSecret, StandardCharsets.UTF_8);
    return Base64.getEncoder().encodeToString(joined.getBytes(StandardCharsets.UTF_8));
  }
}
