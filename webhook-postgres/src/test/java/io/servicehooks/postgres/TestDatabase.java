package io.servicehooks.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The real PostgreSQL the tests use: {@code SERVICEHOOKS_TEST_POSTGRES_URL} (default the machine's
 * {@code jdbc:postgresql://127.0.0.1:5432/test?user=postgres}), or, when nothing answers there, an
 * embedded one started once for the JVM (it cannot run as root). Each test takes a {@link Schema}
 * of its own, dropped after it.
 */
final class TestDatabase {

  static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

  private static String url;

  private TestDatabase() {}

  /** The JDBC URL of the database every test uses. */
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

  /** Every wait bounded: connecting, logging in, and each read from the server. */
  private static Properties timeouts() {
    Properties p = new Properties();
    p.setProperty("connectTimeout", "3");
    p.setProperty("loginTimeout", "3");
    p.setProperty("socketTimeout", "8");
    return p;
  }

  /** A connection of its own to the test database, every wait bounded. */
  static Connection connect() throws SQLException {
    return DriverManager.getConnection(url(), timeouts());
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

  /** Host and port of the test database, for a proxy in front of it. */
  static URI hostAndPort() {
    return URI.create(url().substring("jdbc:".length()));
  }

  /** A small pool on {@code jdbcUrl} with every wait bounded. */
  static HikariDataSource pool(String jdbcUrl, int size) {
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

  static HikariDataSource pool(int size) {
    return pool(url(), size);
  }

  /** A schema of the test's own, with a random name; dropped with everything in it on close. */
  static final class Schema implements AutoCloseable {
    final String name = "t_" + HexFormat.of().formatHex(randomBytes());

    private static byte[] randomBytes() {
      byte[] b = new byte[6];
      ThreadLocalRandom.current().nextBytes(b);
      return b;
    }

    Schema() throws SQLException {
      exec("CREATE SCHEMA " + name);
    }

    /** Runs one statement on a connection of its own. */
    void exec(String sql) throws SQLException {
      try (Connection c = connect();
          Statement s = c.createStatement()) {
        s.setQueryTimeout(5);
        s.execute(sql);
      }
    }

    /** The single number {@code sql} answers. */
    long number(String sql) throws SQLException {
      try (Connection c = connect();
          Statement s = c.createStatement()) {
        s.setQueryTimeout(5);
        java.sql.ResultSet r = s.executeQuery(sql);
        r.next();
        return r.getLong(1);
      }
    }

    String table() {
      return name + "." + PostgresInbox.DEFAULT_TABLE;
    }

    @Override
    public void close() throws SQLException {
      exec("DROP SCHEMA IF EXISTS " + name + " CASCADE");
    }
  }
}
