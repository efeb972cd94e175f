package io.servicehooks.stream;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The real PostgreSQL of the durable stream test, as in webhook-postgres's tests: {@code
 * SERVICEHOOKS_TEST_POSTGRES_URL} (default {@code
 * jdbc:postgresql://127.0.0.1:5432/test?user=postgres}), or, when nothing answers there, an
 * embedded one started once for the JVM (it cannot run as root). Each test takes a {@link Schema}
 * of its own, dropped after it.
 */
final class TestDatabase {

  static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

  private static String url;

  private TestDatabase() {}

  /** The JDBC URL of the database every test uses (it may carry the user and password). */
  static synchronized String url() {
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

  /** A DataSource on the test database without a pool, for {@code InboxAdmin}. */
  static PGSimpleDataSource dataSource() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(url());
    ds.setConnectTimeout(3);
    ds.setLoginTimeout(3);
    ds.setSocketTimeout(8);
    return ds;
  }

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
      throw new IllegalStateException(
          "no PostgreSQL answers at the test URL and an embedded one could not start (it refuses"
              + " to run as root): set SERVICEHOOKS_TEST_POSTGRES_URL",
          e);
    }
  }

  /** A schema name of the test's own; the consumer creates it, {@link #close()} drops it. */
  static final class Schema implements AutoCloseable {
    final String name = "stream_" + HexFormat.of().formatHex(randomBytes());

    private static byte[] randomBytes() {
      byte[] b = new byte[6];
      ThreadLocalRandom.current().nextBytes(b);
      return b;
    }

    /** The single number {@code sql} answers. */
    long number(String sql) throws SQLException {
      try (Connection c = DriverManager.getConnection(url(), timeouts());
          Statement s = c.createStatement()) {
        s.setQueryTimeout(5);
        java.sql.ResultSet r = s.executeQuery(sql);
        r.next();
        return r.getLong(1);
      }
    }

    String table() {
      return name + ".webhook_inbox";
    }

    @Override
    public void close() throws SQLException {
      try (Connection c = DriverManager.getConnection(url(), timeouts());
          Statement s = c.createStatement()) {
        s.setQueryTimeout(5);
        s.execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
      }
    }
  }
}
