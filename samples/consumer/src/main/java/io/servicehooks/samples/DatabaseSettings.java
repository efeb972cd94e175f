package io.servicehooks.samples;

import static io.servicehooks.samples.ConsumerVariables.*;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.servicehooks.postgres.PostgresInbox;
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
 * @param instanceName a label for this instance's lease owner ({@code INBOX_INSTANCE_NAME}), shown
 *     in {@code leased_by} and in the log; {@code null} for {@code pid@host}. Crash recovery does
 *     not need it
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
    Duration lease,
    String instanceName) {

  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  /**
   * The durable settings from the environment, or {@code null} when {@code DATABASE_URL} is unset
   * (the consumer then acknowledges synchronously, as before).
   *
   * @throws IllegalArgumentException naming the setting that is wrong, never the password
   */
  public static DatabaseSettings fromEnvironment(Map<String, String> env) {
    String url = DATABASE_URL.raw(env);
    if (url == null || url.isBlank()) {
      return null;
    }
    DatabaseSettings parsed =
        parse(url.strip(), DATABASE_USER.raw(env), DATABASE_PASSWORD.raw(env));
    String schema =
        DATABASE_SCHEMA.rawOr(env, PostgresInbox.DEFAULT_SCHEMA).strip().toLowerCase(Locale.ROOT);
    if (!IDENTIFIER.matcher(schema).matches()) {
      throw new IllegalArgumentException(
          "DATABASE_SCHEMA must be a plain identifier (letters, digits, '_'), was '"
              + schema
              + "'");
    }
    String create = DATABASE_CREATE_SCHEMA.rawOr(env, "true").strip().toLowerCase(Locale.ROOT);
    if (!create.equals("true") && !create.equals("false")) {
      throw new IllegalArgumentException(
          "DATABASE_CREATE_SCHEMA must be 'true' or 'false', was '" + create + "'");
    }
    int maxAttempts = (int) number(env, INBOX_MAX_ATTEMPTS, 1, 1000);
    long retryBaseMs = number(env, INBOX_RETRY_BASE_MS, 1, 3_600_000);
    long leaseMs = number(env, INBOX_LEASE_MS, 1000, 3_600_000);
    return new DatabaseSettings(
        parsed.jdbcUrl,
        parsed.user,
        parsed.password,
        parsed.redactedUrl,
        schema,
        create.equals("true"),
        maxAttempts,
        retryBaseMs == 0 ? null : Duration.ofMillis(retryBaseMs),
        leaseMs == 0 ? null : Duration.ofMillis(leaseMs),
        blankToNull(
            INBOX_INSTANCE_NAME.raw(env) == null ? null : INBOX_INSTANCE_NAME.raw(env).strip()));
  }

  /**
   * Reads a {@code jdbc:postgresql:...} URL (kept as given) or a {@code postgres://} / {@code
   * postgresql://user:password@host:port/database?parameters} URL (see {@link DatabaseUrl}), with
   * the inbox's defaults. {@code user} and {@code password} apply only when the URL has none.
   *
   * @throws IllegalArgumentException naming what is missing or malformed, never the password
   */
  static DatabaseSettings parse(String url, String user, String password) {
    DatabaseUrl parsed = DatabaseUrl.parse(url, user, password);
    return new DatabaseSettings(
        parsed.jdbcUrl(),
        parsed.user(),
        parsed.password(),
        parsed.redactedUrl(),
        PostgresInbox.DEFAULT_SCHEMA,
        true,
        0,
        null,
        null,
        null);
  }

  /** {@code url} with the password of its user info and of a {@code password=} parameter hidden. */
  static String redact(String url) {
    return DatabaseUrl.redact(url);
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

  private static long number(
      Map<String, String> env, ConsumerVariables.Variable name, long min, long max) {
    String value = name.raw(env);
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

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }
}
