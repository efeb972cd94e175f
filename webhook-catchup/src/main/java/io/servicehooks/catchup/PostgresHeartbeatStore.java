package io.servicehooks.catchup;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The heartbeat in PostgreSQL: one row of the table in {@code catchup-postgres.sql}. Each change is
 * one statement (an upsert, or an update whose {@code WHERE} is the compare-and-set); leadership is
 * {@code pg_try_advisory_lock} on a connection held for as long as it lasts, so it ends with the
 * session if the process dies.
 */
final class PostgresHeartbeatStore implements HeartbeatStore {

  static final int QUERY_TIMEOUT_SECONDS = 5;
  private static final Pattern TABLE =
      Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");
  private static final String COLUMNS =
      "heartbeat_at, job_key, job_id, job_from, job_until, job_attempt, job_asked_at, job_retry_at";

  private final DataSource dataSource;
  private final String table;
  private final String name;
  private final long lockKey;

  private PostgresHeartbeatStore(DataSource dataSource, String table, String name) {
    this.dataSource = dataSource;
    this.table = table;
    this.name = name;
    // One advisory lock per table and row; a collision only makes two consumers take turns.
    this.lockKey =
        ((long) "servicehooks.catchup".hashCode() << 32)
            | ((table + "/" + name).hashCode() & 0xffffffffL);
  }

  static PostgresHeartbeatStore open(
      DataSource dataSource, String table, String name, boolean createTable) {
    Objects.requireNonNull(dataSource, "dataSource");
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(name, "name");
    if (!TABLE.matcher(table).matches()) {
      throw new IllegalArgumentException(
          "table must be an SQL name, optionally schema-qualified, was '" + table + "'");
    }
    if (name.isBlank()) {
      throw new IllegalArgumentException("name must not be blank");
    }
    PostgresHeartbeatStore store = new PostgresHeartbeatStore(dataSource, table, name);
    if (createTable) {
      try {
        store.createTable();
      } catch (IOException e) {
        throw new IllegalStateException("cannot create the catch-up table " + table, e);
      }
    }
    return store;
  }

  private void createTable() throws IOException {
    String ddl;
    try (InputStream in =
        PostgresHeartbeatStore.class.getResourceAsStream("catchup-postgres.sql")) {
      ddl =
          new String(
              Objects.requireNonNull(in, "DDL resource").readAllBytes(), StandardCharsets.UTF_8);
    }
    String sql = ddl.replace("servicehooks_catchup", table);
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
      s.execute(sql);
    } catch (SQLException e) {
      throw failure(e);
    }
  }

  @Override
  public Snapshot read() throws IOException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement("SELECT " + COLUMNS + " FROM " + table + " WHERE name = ?")) {
      s.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
      s.setString(1, name);
      try (ResultSet r = s.executeQuery()) {
        if (!r.next()) {
          return new Snapshot(null, null);
        }
        Instant heartbeat = instant(r, 1);
        String key = r.getString(2);
        if (key == null) {
          return new Snapshot(heartbeat, null);
        }
        return new Snapshot(
            heartbeat,
            new CatchUpJob(
                key,
                r.getString(3),
                instant(r, 4),
                instant(r, 5),
                r.getInt(6),
                instant(r, 7),
                instant(r, 8)));
      }
    } catch (SQLException e) {
      throw failure(e);
    }
  }

  @Override
  public boolean beat(Instant at) throws IOException {
    String sql =
        "INSERT INTO "
            + table
            + " AS t (name, heartbeat_at) VALUES (?, ?) ON CONFLICT (name) DO UPDATE"
            + " SET heartbeat_at = EXCLUDED.heartbeat_at WHERE t.job_key IS NULL"
            + " AND (t.heartbeat_at IS NULL OR t.heartbeat_at < EXCLUDED.heartbeat_at)";
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement(sql)) {
      s.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
      s.setString(1, name);
      timestamp(s, 2, at);
      return s.executeUpdate() == 1;
    } catch (SQLException e) {
      throw failure(e);
    }
  }

  @Override
  public Optional<Leadership> tryLead(Duration lease) throws IOException {
    Connection c = null;
    try {
      c = dataSource.getConnection();
      c.setAutoCommit(true);
      boolean locked;
      try (PreparedStatement s = c.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
        s.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
        s.setLong(1, lockKey);
        try (ResultSet r = s.executeQuery()) {
          locked = r.next() && r.getBoolean(1);
        }
      }
      if (!locked) {
        c.close();
        return Optional.empty();
      }
      Connection held = c;
      return Optional.of(
          () -> {
            try (held;
                PreparedStatement s = held.prepareStatement("SELECT pg_advisory_unlock(?)")) {
              s.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
              s.setLong(1, lockKey);
              s.execute();
            } catch (SQLException e) {
              // closing the session ends the lock (a pool should not reuse a broken connection)
            }
          });
    } catch (SQLException e) {
      if (c != null) {
        try {
          c.close();
        } catch (SQLException ignored) {
          // already failing
        }
      }
      throw failure(e);
    }
  }

  @Override
  public void putJob(CatchUpJob job) throws IOException {
    Objects.requireNonNull(job, "job");
    String sql =
        "INSERT INTO "
            + table
            + " (name, job_key, job_id, job_from, job_until, job_attempt, job_asked_at, job_retry_at)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET"
            + " job_key = EXCLUDED.job_key, job_id = EXCLUDED.job_id,"
            + " job_from = EXCLUDED.job_from, job_until = EXCLUDED.job_until,"
            + " job_attempt = EXCLUDED.job_attempt, job_asked_at = EXCLUDED.job_asked_at,"
            + " job_retry_at = EXCLUDED.job_retry_at";
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement(sql)) {
      s.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
      s.setString(1, name);
      jobColumns(s, 2, job);
      s.executeUpdate();
    } catch (SQLException e) {
      throw failure(e);
    }
  }

  @Override
  public boolean finishJob(String key, CatchUpJob next, Instant heartbeat) throws IOException {
    String sql =
        "UPDATE "
            + table
            + " SET job_key = ?, job_id = ?, job_from = ?, job_until = ?, job_attempt = ?,"
            + " job_asked_at = ?, job_retry_at = ?,"
            + " heartbeat_at = GREATEST(heartbeat_at, ?)"
            + " WHERE name = ? AND job_key = ?";
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement(sql)) {
      s.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
      jobColumns(s, 1, next);
      timestamp(s, 8, heartbeat);
      s.setString(9, name);
      s.setString(10, key);
      return s.executeUpdate() == 1;
    } catch (SQLException e) {
      throw failure(e);
    }
  }

  @Override
  public void close() {}

  @Override
  public String toString() {
    return "PostgresHeartbeatStore[table=" + table + ", name=" + name + "]";
  }

  private static void jobColumns(PreparedStatement s, int first, CatchUpJob job)
      throws SQLException {
    s.setString(first, job == null ? null : job.key());
    s.setString(first + 1, job == null ? null : job.jobId());
    timestamp(s, first + 2, job == null ? null : job.from());
    timestamp(s, first + 3, job == null ? null : job.until());
    if (job == null) {
      s.setNull(first + 4, Types.INTEGER);
    } else {
      s.setInt(first + 4, job.attempt());
    }
    timestamp(s, first + 5, job == null ? null : job.askedAt());
    timestamp(s, first + 6, job == null ? null : job.retryAt());
  }

  private static void timestamp(PreparedStatement s, int index, Instant t) throws SQLException {
    if (t == null) {
      s.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
    } else {
      s.setObject(index, t.atOffset(java.time.ZoneOffset.UTC), Types.TIMESTAMP_WITH_TIMEZONE);
    }
  }

  private static Instant instant(ResultSet r, int column) throws SQLException {
    java.time.OffsetDateTime t = r.getObject(column, java.time.OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }

  /** SQL messages name tables and values, never credentials; keep the SQL state for operators. */
  private static IOException failure(SQLException e) {
    return new IOException(
        "PostgreSQL: " + e.getSQLState() + " " + e.getClass().getSimpleName(), e);
  }
}
