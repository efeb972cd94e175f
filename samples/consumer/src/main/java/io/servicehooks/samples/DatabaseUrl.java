package io.servicehooks.samples;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * {@code DATABASE_URL} read into what the driver takes: a JDBC URL and the credentials, plus the
 * URL with its password hidden for logs and messages. Never prints the password.
 *
 * @param jdbcUrl the JDBC URL, without the credentials of a {@code postgres://} URL (a {@code
 *     jdbc:} URL is kept as given)
 * @param user the user, or {@code null} to leave it to the URL or the driver
 * @param password the password, or {@code null}
 * @param redactedUrl the URL as given with its password replaced by {@code ***}
 */
record DatabaseUrl(String jdbcUrl, String user, String password, String redactedUrl) {

  private static final Pattern PASSWORD_PARAMETER = Pattern.compile("(?i)([?&;]password=)[^&;]*");
  private static final Pattern USER_PARAMETER = Pattern.compile("(?i)[?&;]user=");

  /**
   * Reads a {@code jdbc:postgresql:...} URL (kept as given) or a {@code postgres://} / {@code
   * postgresql://user:password@host:port/database?parameters} URL (user and password
   * percent-decoded, the rest turned into a JDBC URL). {@code user} and {@code password} apply only
   * when the URL has none.
   *
   * @throws IllegalArgumentException naming what is missing or malformed, never the password
   */
  static DatabaseUrl parse(String url, String user, String password) {
    user = blankToNull(user);
    password = blankToNull(password);
    String lower = url.toLowerCase(Locale.ROOT);
    refuseSemicolons(url, lower);
    if (lower.startsWith("jdbc:postgresql:")) {
      String redacted = redact(url);
      if (!new org.postgresql.Driver().acceptsURL(url)) {
        throw new IllegalArgumentException(
            "DATABASE_URL is not a PostgreSQL JDBC URL the driver accepts: " + redacted);
      }
      return new DatabaseUrl(
          url,
          USER_PARAMETER.matcher(url).find() ? null : user,
          PASSWORD_PARAMETER.matcher(url).find() ? null : password,
          redacted);
    }
    if (!lower.startsWith("postgres://") && !lower.startsWith("postgresql://")) {
      throw new IllegalArgumentException(
          "DATABASE_URL must start with jdbc:postgresql:, postgres:// or postgresql://, was '"
              + scheme(url)
              + "...'");
    }
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          "DATABASE_URL is not a valid URL (percent-encode special characters in the user and"
              + " password, e.g. @ as %40): "
              + e.getReason());
    }
    String redacted = redact(url);
    if (uri.getHost() == null) {
      throw new IllegalArgumentException(
          "DATABASE_URL has no host (percent-encode special characters in the user and password,"
              + " e.g. @ as %40): "
              + redacted);
    }
    String path = uri.getRawPath();
    if (path == null || path.length() <= 1 || path.indexOf('/', 1) >= 0) {
      throw new IllegalArgumentException("DATABASE_URL has no database name: " + redacted);
    }
    String urlUser = null;
    String urlPassword = null;
    String userInfo = uri.getRawUserInfo();
    if (userInfo != null) {
      int colon = userInfo.indexOf(':');
      urlUser = blankToNull(percentDecode(colon < 0 ? userInfo : userInfo.substring(0, colon)));
      if (colon >= 0) {
        urlPassword = percentDecode(userInfo.substring(colon + 1));
      }
    }
    if (urlUser == null && user == null) {
      throw new IllegalArgumentException(
          "DATABASE_URL has no user and DATABASE_USER is not set: " + redacted);
    }
    StringBuilder jdbc = new StringBuilder("jdbc:postgresql://").append(uri.getHost());
    if (uri.getPort() >= 0) {
      jdbc.append(':').append(uri.getPort());
    }
    jdbc.append(path);
    if (uri.getRawQuery() != null) {
      jdbc.append('?').append(uri.getRawQuery());
    }
    return new DatabaseUrl(
        jdbc.toString(),
        urlUser != null ? urlUser : user,
        urlUser != null ? urlPassword : password,
        redacted);
  }

  /**
   * pgjdbc does not split parameters on {@code ;}: in {@code ?user=app;password=...} the whole tail
   * becomes the user name, and the server's "role does not exist" error would print the password. A
   * {@code postgres://} URL's user info may hold a {@code ;} (the URL parser takes it apart); what
   * follows its last {@code @} may not.
   */
  private static void refuseSemicolons(String url, String lower) {
    int from = lower.startsWith("jdbc:") ? 0 : Math.max(0, url.lastIndexOf('@'));
    if (url.indexOf(';', from) >= 0) {
      throw new IllegalArgumentException(
          "DATABASE_URL separates parameters with ';': use '&' (?user=app&password=...), and"
              + " percent-encode a ';' inside a value as %3B");
    }
  }

  /** {@code url} with the password of its user info and of a {@code password=} parameter hidden. */
  static String redact(String url) {
    String redacted = PASSWORD_PARAMETER.matcher(url).replaceAll("$1***");
    int scheme = redacted.indexOf("://");
    if (scheme < 0) {
      return redacted;
    }
    // The last '@' anywhere: a password with an unencoded '/', '?' or '#' must be hidden too, and
    // hiding too much (an '@' in the query) is harmless.
    int at = redacted.lastIndexOf('@');
    if (at < scheme) {
      return redacted;
    }
    int colon = redacted.indexOf(':', scheme + 3);
    if (colon < 0 || colon > at) {
      return redacted;
    }
    return redacted.substring(0, colon + 1) + "***" + redacted.substring(at);
  }

  /** Percent-decoding only ({@code +} stays a plus, unlike form decoding). */
  private static String percentDecode(String s) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%' && i + 2 < s.length() && isHex(s.charAt(i + 1)) && isHex(s.charAt(i + 2))) {
        bytes.write(Integer.parseInt(s.substring(i + 1, i + 3), 16));
        i += 2;
      } else if (c == '%') {
        throw new IllegalArgumentException(
            "DATABASE_URL has a '%' that is not a percent-encoding in its user or password");
      } else {
        bytes.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
      }
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }

  private static boolean isHex(char c) {
    return Character.digit(c, 16) >= 0;
  }

  private static String scheme(String url) {
    int colon = url.indexOf(':');
    return colon < 0 ? "" : url.substring(0, Math.min(colon, 20));
  }

  @Override
  public String toString() {
    return "DatabaseUrl[" + redactedUrl + ", user=" + user + "]";
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }
}
