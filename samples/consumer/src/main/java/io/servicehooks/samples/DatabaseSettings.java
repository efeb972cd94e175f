package io.servicehooks.samples;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.servicehooks.postgres.PostgresInbox;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The standalone consumer's durable mode, read from {@code DATABASE_URL} and its companions: where
 * the inbox lives and how it retries. The password is never printed: {@link #toString()} and {@link
 * #redactedUrl()} leave it out.
 *
 * @param jdbcUrl the JDBC URL given to the driver, without the credentials of a {@code postgres://}
 *     URL (a {@code jdbc:} URL is kept as given)
 * @param user the user, or {@code null} to leave it to the URL or the driver
 * @param password the password, or {@code null}
 * @param redactedUrl {@code DATABASE_URL} with its password replaced by {@code ***}, for logs
 * @param schema the inbox's schema
 * @param createSchema create the inbox's tables at start-up when missing
 * @param maxAttempts attempts before a dead letter, 0 for the inbox's default
 * @param retryBase the first back-off after a failure, {@code null} for the inbox's default
 * @param lease how long a taken row belongs to its instance, {@code null} for the inbox's default
 */
public record DatabaseSettings(
    String jdbcUrl,
    String user,
    String password,
    String redactedUrl,
    String schema,
    boolean createSchema,
    int maxAttempts,
    Duration retryBase,
    Duration lease) {

  private static final Pattern PASSWORD_PARAMETER = Pattern.compile("(?i)([?&;]password=)[^&;]*");
  private static final Pattern USER_PARAMETER = Pattern.compile("(?i)[?&;]user=");
  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  /**
   * The durable settings from the environment, or {@code null} when {@code DATABASE_URL} is unset
   * (the consumer then acknowledges synchronously, as before).
   *
   * @throws IllegalArgumentException naming the setting that is wrong, never the password
   */
  public static DatabaseSettings fromEnvironment(Map<String, String> env) {
    String url = env.get("DATABASE_URL");
    if (url == null || url.isBlank()) {
      return null;
    }
    DatabaseSettings parsed =
        parse(url.strip(), env.get("DATABASE_USER"), env.get("DATABASE_PASSWORD"));
    String schema =
        env.getOrDefault("DATABASE_SCHEMA", PostgresInbox.DEFAULT_SCHEMA)
            .strip()
            .toLowerCase(Locale.ROOT);
    if (!IDENTIFIER.matcher(schema).matches()) {
      throw new IllegalArgumentException(
          "DATABASE_SCHEMA must be a plain identifier (letters, digits, '_'), was '"
              + schema
              + "'");
    }
    String create =
        env.getOrDefault("DATABASE_CREATE_SCHEMA", "true").strip().toLowerCase(Locale.ROOT);
    if (!create.equals("true") && !create.equals("false")) {
      throw new IllegalArgumentException(
          "DATABASE_CREATE_SCHEMA must be 'true' or 'false', was '" + create + "'");
    }
    int maxAttempts = (int) number(env, "INBOX_MAX_ATTEMPTS", 1, 1000);
    long retryBaseMs = number(env, "INBOX_RETRY_BASE_MS", 1, 3_600_000);
    long leaseMs = number(env, "INBOX_LEASE_MS", 1000, 3_600_000);
    return new DatabaseSettings(
        parsed.jdbcUrl,
        parsed.user,
        parsed.password,
        parsed.redactedUrl,
        schema,
        create.equals("true"),
        maxAttempts,
        retryBaseMs == 0 ? null : Duration.ofMillis(retryBaseMs),
        leaseMs == 0 ? null : Duration.ofMillis(leaseMs));
  }

  /**
   * Reads a {@code jdbc:postgresql:...} URL (kept as given) or a {@code postgres://} / {@code
   * postgresql://user:password@host:port/database?parameters} URL (user and password
   * percent-decoded, the rest turned into a JDBC URL). {@code user} and {@code password} apply only
   * when the URL has none.
   *
   * @throws IllegalArgumentException naming what is missing or malformed, never the password
   */
  static DatabaseSettings parse(String url, String user, String password) {
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
      return new DatabaseSettings(
          url,
          USER_PARAMETER.matcher(url).find() ? null : user,
          PASSWORD_PARAMETER.matcher(url).find() ? null : password,
          redacted,
          PostgresInbox.DEFAULT_SCHEMA,
          true,
          0,
          null,
          null);
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
    return new DatabaseSettings(
        jdbc.toString(),
        urlUser != null ? urlUser : user,
        urlUser != null ? urlPassword : password,
        redacted,
        PostgresInbox.DEFAULT_SCHEMA,
        true,
        0,
        null,
        null);
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

  /**
   * A HikariCP pool for the inbox: {@code size} connections, every wait below the platform's 10 s
   * (3 s to connect or get a connection, 2 s to validate one, 8 s for any read, above the inbox's 5
   * s statement time-out). It takes one connection at once, so an unreachable database fails here
   * (with the driver's reason, and without HikariCP's start-up stack trace on the console).
   */
  HikariDataSource pool(int size) throws java.sql.SQLException {
    HikariConfig config = new HikariConfig();
    config.setPoolName("servicehooks-inbox");
    config.setJdbcUrl(jdbcUrl);
    if (user != null) {
      config.setUsername(user);
    }
    if (password != null) {
      config.setPassword(password);
    }
    config.setMaximumPoolSize(size);
    config.setConnectionTimeout(3_000);
    config.setValidationTimeout(2_000);
    config.setInitializationFailTimeout(-1);
    config.addDataSourceProperty("connectTimeout", "3");
    config.addDataSourceProperty("loginTimeout", "3");
    config.addDataSourceProperty("socketTimeout", "8");
    HikariDataSource pool = new HikariDataSource(config);
    try (java.sql.Connection first = pool.getConnection()) {
      return pool;
    } catch (java.sql.SQLException | RuntimeException e) {
      pool.close();
      throw e;
    }
  }

  @Override
  public String toString() {
    return "DatabaseSettings[url="
        + redactedUrl
        + ", user="
        + user
        + ", password="
        + (password == null ? "none" : "***")
        + ", schema="
        + schema
        + ", createSchema="
        + createSchema
        + ", maxAttempts="
        + maxAttempts
        + ", retryBase="
        + retryBase
        + ", lease="
        + lease
        + "]";
  }

  private static long number(Map<String, String> env, String name, long min, long max) {
    String value = env.get(name);
    if (value == null || value.isBlank()) {
      return 0;
    }
    try {
      long n = Long.parseLong(value.strip());
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // fall through to the message
    }
    throw new IllegalArgumentException(
        name + " must be a number from " + min + " to " + max + ", was '" + value + "'");
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

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }
}
