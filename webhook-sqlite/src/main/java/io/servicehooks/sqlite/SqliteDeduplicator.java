package io.servicehooks.sqlite;

import io.servicehooks.core.Deduplicator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConfig;

/**
 * A {@link Deduplicator} in one SQLite file: the memory of handled events survives a restart of a
 * one-process bot, with no server to run. A restarted stream consumer asks the last minutes again
 * (backfill), and a webhook's retries and replays come back too; with this store an event marked
 * done before the restart is a duplicate after it, so its listeners (an answer to a mention, say)
 * never run twice.
 *
 * <pre>{@code
 * SqliteDeduplicator store = SqliteDeduplicator.open(Path.of("servicehooks-dedup.db"));
 * WebhookConsumer consumer =
 *     WebhookConsumer.builder()
 *         .consumerSecrets(System.getenv("SERVICE_CONSUMER_SECRET"))
 *         .deduplicator(store)
 *         .on("post.mention.create", event -> answer(event))
 *         .build();
 * // at shutdown, after the consumer: store.close();
 * }</pre>
 *
 * <p><b>Why SQLite.</b> A done mark must not be lost when the process dies mid-write. SQLite's
 * journal makes each transaction all-or-nothing across a crash, and with {@code synchronous=FULL} a
 * committed mark is on disk before the store answers; the engine is tested far beyond anything a
 * hand-written file format would be, and xerial's driver ships it inside the jar (no native
 * install, no server). The file is in WAL mode, so a reader never waits for the writer.
 *
 * <p><b>Rows.</b> One table {@code servicehooks_dedup (dedup_key, token, done, expires_at)}: a
 * claim is a row with its owner token and the lease's end; done is the same row with {@code done=1}
 * and the window's end. Each operation is one transaction begun with {@code BEGIN IMMEDIATE} (it
 * takes the file's write lock first), so a claim's read and write are atomic even against another
 * process on the same file; a row whose time has passed counts as absent and is purged now and
 * then. A claim left by a crashed process is claimable again once its lease ends.
 *
 * <p><b>Threads.</b> One connection, used under a lock: SQLite writes one transaction at a time
 * anyway, and a bot's rate of events is far below what one connection commits. Every call blocks
 * ({@link #mayBlock()} is {@code true}): the consumer asks the store from a worker thread. A file
 * locked by another process is waited on for at most the busy timeout (default 2 s), then the call
 * fails and the consumer answers 503 {@code dedup_unavailable}, never hangs.
 */
public final class SqliteDeduplicator implements Deduplicator, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SqliteDeduplicator.class);

  /** Default busy timeout: how long a call waits for a file another process holds locked. */
  public static final Duration DEFAULT_BUSY_TIMEOUT = Duration.ofSeconds(2);

  /** Expired rows are purged at most this often. */
  private static final Duration PURGE_INTERVAL = Duration.ofMinutes(1);

  private static final String TABLE = "servicehooks_dedup";

  private final Path file;
  private final Duration window;
  private final Clock clock;
  private final ReentrantLock lock = new ReentrantLock();
  private final Connection connection;
  private long nextPurge;
  private boolean closed;

  private SqliteDeduplicator(Builder b) throws SQLException {
    this.file = b.file;
    this.window = b.window;
    this.clock = b.clock;
    SQLiteConfig config = new SQLiteConfig();
    config.setJournalMode(SQLiteConfig.JournalMode.WAL);
    config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
    config.setBusyTimeout((int) b.busyTimeout.toMillis());
    this.connection =
        DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath(), config.toProperties());
    try (Statement s = connection.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS "
              + TABLE
              + " (dedup_key TEXT PRIMARY KEY, token TEXT, done INTEGER NOT NULL,"
              + " expires_at INTEGER NOT NULL) WITHOUT ROWID");
    } catch (SQLException e) {
      connection.close();
      throw e;
    }
  }

  /**
   * Opens (or creates) the store in {@code file}, remembering done events for {@link
   * Deduplicator#DEFAULT_WINDOW}.
   *
   * @throws IllegalStateException if the file cannot be opened as a SQLite database (the message
   *     names it)
   */
  public static SqliteDeduplicator open(Path file) {
    return builder(file).build();
  }

  /** A builder for the store in {@code file}; its parent directory must exist. */
  public static Builder builder(Path file) {
    return new Builder(file);
  }

  /** The file this store keeps its rows in. */
  public Path file() {
    return file;
  }

  @Override
  public CompletionStage<Claim> claim(String key, Duration lease) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    return call(() -> claimNow(key, lease, false));
  }

  /** Claims and marks done in one transaction. */
  @Override
  public CompletionStage<Claim> claimDone(String key, Duration lease) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    return call(() -> claimNow(key, lease, true));
  }

  @Override
  public CompletionStage<Boolean> markDone(String key, String token) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(token, "token");
    return call(
        () -> {
          long now = clock.millis();
          return update(
                  "UPDATE "
                      + TABLE
                      + " SET done = 1, token = NULL, expires_at = ?"
                      + " WHERE dedup_key = ? AND token = ? AND done = 0 AND expires_at > ?",
                  now + window.toMillis(),
                  key,
                  token,
                  now)
              == 1;
        });
  }

  @Override
  public CompletionStage<Boolean> release(String key, String token) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(token, "token");
    return call(
        () ->
            update(
                    "DELETE FROM "
                        + TABLE
                        + " WHERE dedup_key = ? AND token = ? AND done = 0 AND expires_at > ?",
                    null,
                    key,
                    token,
                    clock.millis())
                == 1);
  }

  @Override
  public CompletionStage<Boolean> renew(String key, String token, Duration lease) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(lease, "lease");
    return call(
        () -> {
          long now = clock.millis();
          return update(
                  "UPDATE "
                      + TABLE
                      + " SET expires_at = ?"
                      + " WHERE dedup_key = ? AND token = ? AND done = 0 AND expires_at > ?",
                  now + lease.toMillis(),
                  key,
                  token,
                  now)
              == 1;
        });
  }

  /** Every call does disk I/O and may wait for the file's lock. */
  @Override
  public boolean mayBlock() {
    return true;
  }

  /** Closes the connection; later calls fail. Call it after the consumer is closed. */
  @Override
  public void close() {
    lock.lock();
    try {
      if (!closed) {
        closed = true;
        connection.close();
      }
    } catch (SQLException e) {
      log.warn("Closing the dedup file {} failed: {}", file, e.getMessage());
    } finally {
      lock.unlock();
    }
  }

  @Override
  public String toString() {
    return "SqliteDeduplicator[file=" + file + ", window=" + window + "]";
  }

  private interface Work<T> {
    T run() throws SQLException;
  }

  /** Runs one operation under the lock, as a completed stage or a failed one. */
  private <T> CompletionStage<T> call(Work<T> work) {
    lock.lock();
    try {
      if (closed) {
        throw new IllegalStateException("the dedup store " + file + " is closed");
      }
      return CompletableFuture.completedFuture(work.run());
    } catch (SQLException | RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    } finally {
      lock.unlock();
    }
  }

  /**
   * One claim as one {@code BEGIN IMMEDIATE} transaction: the write lock is taken first, so reading
   * the row and writing it cannot interleave with another connection's claim.
   */
  private Claim claimNow(String key, Duration lease, boolean done) throws SQLException {
    long now = clock.millis();
    purgeNowAndThen(now);
    try (Statement s = connection.createStatement()) {
      s.execute("BEGIN IMMEDIATE");
    }
    boolean committed = false;
    try {
      Claim answer;
      try (PreparedStatement read =
          connection.prepareStatement(
              "SELECT done, expires_at FROM " + TABLE + " WHERE dedup_key = ?")) {
        read.setString(1, key);
        try (ResultSet row = read.executeQuery()) {
          if (row.next() && row.getLong(2) > now) {
            answer =
                row.getInt(1) == 1
                    ? Claim.done()
                    : Claim.runningElsewhere(Duration.ofMillis(row.getLong(2) - now));
          } else {
            answer = null;
          }
        }
      }
      if (answer == null) {
        String token = UUID.randomUUID().toString();
        try (PreparedStatement write =
            connection.prepareStatement(
                "INSERT OR REPLACE INTO "
                    + TABLE
                    + " (dedup_key, token, done, expires_at) VALUES (?, ?, ?, ?)")) {
          write.setString(1, key);
          write.setString(2, done ? null : token);
          write.setInt(3, done ? 1 : 0);
          write.setLong(4, now + (done ? window : lease).toMillis());
          write.executeUpdate();
        }
        answer = Claim.claimed(token);
      }
      try (Statement s = connection.createStatement()) {
        s.execute("COMMIT");
      }
      committed = true;
      return answer;
    } finally {
      if (!committed) {
        rollback();
      }
    }
  }

  private void rollback() {
    try (Statement s = connection.createStatement()) {
      s.execute("ROLLBACK");
    } catch (SQLException e) {
      // No transaction left to roll back (SQLite ended it itself on the error): nothing to do.
    }
  }

  private int update(String sql, Long first, String key, String token, long now)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      int i = 1;
      if (first != null) {
        statement.setLong(i++, first);
      }
      statement.setString(i++, key);
      statement.setString(i++, token);
      statement.setLong(i, now);
      return statement.executeUpdate();
    }
  }

  /** Deletes rows whose lease or window has passed, at most once per {@link #PURGE_INTERVAL}. */
  private void purgeNowAndThen(long now) throws SQLException {
    if (now < nextPurge) {
      return;
    }
    nextPurge = now + PURGE_INTERVAL.toMillis();
    try (PreparedStatement purge =
        connection.prepareStatement("DELETE FROM " + TABLE + " WHERE expires_at <= ?")) {
      purge.setLong(1, now);
      purge.executeUpdate();
    }
  }

  /** Settings of a {@link SqliteDeduplicator}, validated as they are given. */
  public static final class Builder {
    private final Path file;
    private Duration window = Deduplicator.DEFAULT_WINDOW;
    private Duration busyTimeout = DEFAULT_BUSY_TIMEOUT;
    private Clock clock = Clock.systemUTC();

    private Builder(Path file) {
      this.file = Objects.requireNonNull(file, "file");
    }

    /** How long a handled event is remembered (default 24 h: the platform replays 24 h back). */
    public Builder window(Duration window) {
      Objects.requireNonNull(window, "window");
      if (window.isNegative() || window.isZero()) {
        throw new IllegalArgumentException("window must be positive, was " + window);
      }
      this.window = window;
      return this;
    }

    /**
     * How long a call waits for the file when another process holds its lock (default 2 s); then
     * the call fails and the delivery is answered 503. At most 10 s, the platform's answer budget.
     */
    public Builder busyTimeout(Duration busyTimeout) {
      Objects.requireNonNull(busyTimeout, "busyTimeout");
      if (busyTimeout.isNegative() || busyTimeout.compareTo(Duration.ofSeconds(10)) > 0) {
        throw new IllegalArgumentException("busyTimeout must be from 0 to 10s, was " + busyTimeout);
      }
      this.busyTimeout = busyTimeout;
      return this;
    }

    /** Tests only: the clock leases and the window are read on. */
    Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Opens (or creates) the file and its table.
     *
     * @throws IllegalStateException if the file cannot be opened as a SQLite database, or its
     *     directory does not exist (the message names the file)
     */
    public SqliteDeduplicator build() {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null && !Files.isDirectory(parent)) {
        throw new IllegalStateException(
            "the dedup file's directory " + parent + " does not exist (" + file + ")");
      }
      try {
        return new SqliteDeduplicator(this);
      } catch (SQLException e) {
        throw new IllegalStateException(
            "cannot open the dedup file " + file + " as a SQLite database: " + e.getMessage(), e);
      }
    }

    @Override
    public String toString() {
      return "SqliteDeduplicator.Builder[file=" + file + ", window=" + window + "]";
    }
  }
}
