package io.servicehooks.registration;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The platform's rules for consumer URLs and ids, checked before any call so a refusal costs no
 * request.
 */
final class WebhookUrls {

  static final int MAX_URL_LENGTH = 200;
  private static final Pattern WEBHOOK_ID = Pattern.compile("[0-9]{1,40}");
  private static final Pattern OTHER_ID = Pattern.compile("[A-Za-z0-9_-]{1,100}");

  private WebhookUrls() {}

  static URI check(String url, boolean allowInsecure) {
    if (url == null || url.isBlank()) {
      throw new IllegalArgumentException("webhook URL must not be empty");
    }
    if (url.length() > MAX_URL_LENGTH) {
      throw new IllegalArgumentException(
          "webhook URL must be at most "
              + MAX_URL_LENGTH
              + " characters, was "
              + url.length()
              + ": "
              + url.substring(0, 60)
              + "...");
    }
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          "webhook URL is malformed (" + e.getReason() + "): " + url, e);
    }
    String scheme = uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!uri.isAbsolute() || uri.isOpaque() || scheme == null) {
      throw new IllegalArgumentException("webhook URL is malformed (not an absolute URL): " + url);
    }
    if (!scheme.equals("https") && !scheme.equals("http")) {
      throw new IllegalArgumentException("webhook URL must use https, was " + scheme + ": " + url);
    }
    if (uri.getHost() == null || uri.getHost().isEmpty()) {
      throw new IllegalArgumentException("webhook URL is malformed (no host name): " + url);
    }
    if (uri.getRawUserInfo() != null) {
      throw new IllegalArgumentException(
          "webhook URL is malformed (must not contain user information)");
    }
    if (uri.getRawFragment() != null) {
      throw new IllegalArgumentException(
          "webhook URL is malformed (must not contain a #fragment): " + url);
    }
    if (!allowInsecure) {
      if (!scheme.equals("https")) {
        throw new IllegalArgumentException(
            "webhook URL must use https, was "
                + scheme
                + ": "
                + url
                + " (allowInsecureUrls(true) permits http for local rehearsal)");
      }
      if (uri.getPort() != -1 || hasEmptyPort(uri)) {
        throw new IllegalArgumentException(
            "webhook URL must not have a port, was "
                + (uri.getPort() != -1 ? String.valueOf(uri.getPort()) : "an empty port")
                + ": "
                + url
                + " (allowInsecureUrls(true) permits ports for local rehearsal)");
      }
    }
    return uri;
  }

  /**
   * {@code https://example.com:/hook}: {@link URI} reads no port ({@code -1}), but the platform
   * sees a port separator and refuses the URL. With a host parsed and no user information, a colon
   * left at the end of the authority can only be that separator.
   */
  private static boolean hasEmptyPort(URI uri) {
    String authority = uri.getRawAuthority();
    return authority != null && authority.endsWith(":");
  }

  static String checkWebhookId(String id) {
    if (id == null || !WEBHOOK_ID.matcher(id).matches()) {
      throw new IllegalArgumentException("webhook id must be a string of digits, was: " + id);
    }
    return id;
  }

  static String checkEndpointId(String id) {
    if (id == null || !OTHER_ID.matcher(id).matches() || id.equals("all")) {
      throw new IllegalArgumentException(
          "connection endpoint id must be letters, digits, '-' or '_' (at most 100), was: " + id);
    }
    return id;
  }

  static String checkSubscriptionId(String id) {
    if (id == null || !OTHER_ID.matcher(id).matches()) {
      throw new IllegalArgumentException(
          "subscription id must be letters, digits, '-' or '_' (at most 100), was: " + id);
    }
    return id;
  }
}
