package io.servicehooks.catchup;

import io.servicehooks.testsupport.TestDatabase;
import io.servicehooks.testsupport.TestRedis;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.function.Supplier;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One place for the heartbeat store on each real engine, removed by {@link #close()}: a temporary
 * directory, a Redis key prefix ({@link TestRedis}), a PostgreSQL schema ({@link TestDatabase}).
 * Finding or starting the servers is test-support's; this class only maps a {@link Kind} to {@link
 * HeartbeatStore}'s factories.
 */
final class HeartbeatPlace implements AutoCloseable {

  enum Kind {
    FILE,
    REDIS,
    POSTGRES
  }

  private final Kind kind;
  private final Path dir;
  private final TestRedis redis;
  private final TestDatabase.Schema schema;
  private final PGSimpleDataSource dataSource;

  private HeartbeatPlace(Kind kind) throws IOException {
    this.kind = kind;
    this.dir = kind == Kind.FILE ? Files.createTempDirectory("catchup-") : null;
    this.redis = kind == Kind.REDIS ? TestRedis.shared() : null;
    this.dataSource = kind == Kind.POSTGRES ? TestDatabase.dataSource() : null;
    try {
      this.schema = kind == Kind.POSTGRES ? TestDatabase.schema() : null;
    } catch (SQLException e) {
      throw new IOException(e);
    }
  }

  static HeartbeatPlace of(Kind kind) throws IOException {
    return new HeartbeatPlace(kind);
  }

  /** A new store object on the shared place, as another process would open it. */
  HeartbeatStore open() {
    return switch (kind) {
      case FILE -> HeartbeatStore.file(dir.resolve("heartbeat"));
      case REDIS -> HeartbeatStore.redis(redis.url, redis.prefix + ":");
      case POSTGRES ->
          HeartbeatStore.postgres(
              dataSource, schema.table("servicehooks_catchup"), "default", true);
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
          for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
            Files.deleteIfExists(p);
          }
        }
      }
      case REDIS -> redis.close();
      case POSTGRES -> {
        try {
          schema.close();
        } catch (SQLException e) {
          throw new IOException(e);
        }
      }
    }
  }
}
