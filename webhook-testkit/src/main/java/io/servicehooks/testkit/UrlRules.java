package io.servicehooks.testkit;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Set;

/**
 * The platform's rules for webhook URLs (docs/protocol.md#registration-api-shapes), plus the
 * loopback exception of local mode.
 */
final class UrlRules {

  static final int MAX_LENGTH = 200;
  private static final Set<String> LOOPBACK_HOSTS = Set.of("127.0.0.1", "localhost");

  private UrlRules() {}

  /** Returns why {@code url} is refused, or {@code null} when it is acceptable. */
  static String violation(String url, boolean localMode) {
    if (url == null) {
      return "url is required";
    }
    if (url.length() > MAX_LENGTH) {
      return "url is longer than " + MAX_LENGTH + " characters";
    }
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      return "url is malformed";
    }
    if (!uri.isAbsolute() || uri.isOpaque() || uri.getHost() == null || uri.getScheme() == null) {
      return "url is malformed";
    }
    if (uri.getRawUserInfo() != null || uri.getRawFragment() != null) {
      return "url must not carry user info or a fragment";
    }
    String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
    String host = uri.getHost().toLowerCase(Locale.ROOT);
    if (localMode
        && LOOPBACK_HOSTS.contains(host)
        && (scheme.equals("http") || scheme.equals("https"))) {
      return null;
    }
    if (!scheme.equals("https")) {
      return "url must use https";
    }
    if (uri.getPort() != -1) {
      return "url must not carry a port";
    }
    return null;
  }
}
