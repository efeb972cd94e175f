package io.servicehooks.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * What an operator does with an inbox: counts, lists, retries dead letters, purges old done rows.
 * Works on the tables alone, so the CLI or an actuator endpoint can use it without a running {@link
 * PostgresInbox}. Each method is one statement (one transaction), except {@link #purge()}, which
 * deletes in batches.
 *
 * <pre>{@code
 * InboxAdmin admin = InboxAdmin.builder().dataSource(dataSource).build();
 * admin.list(InboxStatus.DEAD, 20).forEach(System.out::println);
 * admin.retryAllDead();
 * }</pre>
 */
public final class InboxAdmin {

  private final DataSource dataSource;
  private final Tables tables;
  private final Duration retention;
  private final int purgeBatchSize;
  private final int timeoutSeconds;

  private InboxAdmin(Builder b) {
    this.dataSource = b.dataSource;
    this.tables = new Tables(b.schema, b.table);
    this.retention = b.retention;
    this.purgeBatchSize = b.purgeBatchSize;
    this.timeoutSeconds = PostgresInbox.seconds(b.statementTimeout);
  }

  /** A builder; {@link Builder#dataSource} is the one required setting. */
  public static Builder builder() {
    return new Builder();
  }

  /** Row counts by status and the age of the oldest due row; counts every row once. */
  public InboxStats stats() throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement(tables.stats)) {
      s.setQueryTimeout(timeoutSeconds);
      try (ResultSet r = s.executeQuery()) {
        r.next();
        return new InboxStats(
            r.getLong(1),
            r.getLong(2),
            r.getLong(3),
            r.getLong(4),
            Duration.ofMillis(Math.round(r.getDouble(5) * 1000)));
      }
    }
  }

  /** Up to {@code limit} rows in {@code status}, oldest first. */
  public List<InboxEntry> list(InboxStatus status, int limit) throws SQLException {
    Objects.requireNonNull(status, "status");
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive, was " + limit);
    }
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement(tables.list)) {
      s.setQueryTimeout(timeoutSeconds);
      s.setString(1, status.sqlName());
      s.setInt(2, limit);
      List<InboxEntry> out = new ArrayList<>();
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          Timestamp doneAt = r.getTimestamp(8);
          out.add(
              new InboxEntry(
                  r.getLong(1),
                  r.getString(2),
                  r.getString(3),
                  InboxStatus.ofSql(r.getString(4)),
                  r.getInt(5),
                  r.getTimestamp(6).toInstant(),
                  r.getTimestamp(7).toInstant(),
                  Optional.ofNullable(doneAt).map(Timestamp::toInstant),
                  Optional.ofNullable(r.getString(9))));
        }
      }
      return out;
    }
  }

  /**
   * Makes a dead (or pending) row due now with a fresh set of attempts; its last error stays until
   * it fails again.
   *
   * @return {@code false} if no dead or pending row has that id (done, running or absent)
   */
  public boolean retry(long id) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement(tables.retry)) {
      s.setQueryTimeout(timeoutSeconds);
      s.setLong(1, id);
      return s.executeUpdate() == 1;
    }
  }

  /**
   * Makes every dead letter due now with a fresh set of attempts.
   *
   * @return how many rows
   */
  public int retryAllDead() throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement(tables.retryAllDead)) {
      s.setQueryTimeout(timeoutSeconds);
      return s.executeUpdate();
    }
  }

  /**
   * Deletes done rows older than the retention, in batches of the purge batch size, each its own
   * transaction. Dead letters and rows not yet done are never deleted.
   *
   * @return how many rows
   */
  public int purge() throws SQLException {
    return purge(retention);
  }

  /** As {@link #purge()}, for done rows older than {@code olderThan}. */
  public int purge(Duration olderThan) throws SQLException {
    Objects.requireNonNull(olderThan, "olderThan");
    if (olderThan.isNegative()) {
      throw new IllegalArgumentException("olderThan must not be negative, was " + olderThan);
    }
    try (Connection c = dataSource.getConnection()) {
      return purge(c, tables, olderThan, purgeBatchSize, timeoutSeconds, Integer.MAX_VALUE);
    }
  }

  /** Deletes batch after batch until one is short or {@code maxBatches} ran. */
  static int purge(
      Connection c,
      Tables tables,
      Duration olderThan,
      int batchSize,
      int timeoutSeconds,
      int maxBatches)
      throws SQLException {
    if (!c.getAutoCommit()) {
      c.setAutoCommit(true);
    }
    int total = 0;
    try (PreparedStatement s = c.prepareStatement(tables.purge)) {
      s.setQueryTimeout(timeoutSeconds);
      s.setLong(1, olderThan.toMillis());
      s.setInt(2, batchSize);
      for (int i = 0; i < maxBatches; i++) {
        int n;
        try (ResultSet r = s.executeQuery()) {
          r.next();
          n = r.getInt(1);
        }
        total += n;
        if (n < batchSize) {
          break;
        }
      }
    }
    return total;
  }

  /**
   * Creates the schema and tables if missing (idempotent), as {@link
   * PostgresInbox.Builder#createSchema} does at start-up.
   */
  public void createSchema() throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      Migrations.apply(c, tables, timeoutSeconds);
    }
  }

  @Override
  public String toString() {
    return "InboxAdmin[" + tables + "]";
  }

  /** Configures an {@link InboxAdmin}; the names must match the {@link PostgresInbox}'s. */
  public static final class Builder {
    private DataSource dataSource;
    private String schema = PostgresInbox.DEFAULT_SCHEMA;
    private String table = PostgresInbox.DEFAULT_TABLE;
    private Duration retention = PostgresInbox.DEFAULT_RETENTION;
    private int purgeBatchSize = PostgresInbox.DEFAULT_PURGE_BATCH_SIZE;
    private Duration statementTimeout = PostgresInbox.DEFAULT_STATEMENT_TIMEOUT;

    private Builder() {}

    /** Where the inbox lives; the DataSource's own time-outs bound getting a connection. */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
      return this;
    }

    /** The schema (default {@value PostgresInbox#DEFAULT_SCHEMA}). */
    public Builder schema(String schema) {
      this.schema = Tables.checkName("schema", schema);
      return this;
    }

    /** The inbox table (default {@value PostgresInbox#DEFAULT_TABLE}). */
    public Builder table(String table) {
      this.table = Tables.checkName("table", table);
      return this;
    }

    /** How old a done row must be for {@link #purge()} (default 24 h, the dedup window). */
    public Builder retention(Duration retention) {
      this.retention = PostgresInbox.positive("retention", retention);
      return this;
    }

    /** Rows per purge statement (default {@value PostgresInbox#DEFAULT_PURGE_BATCH_SIZE}). */
    public Builder purgeBatchSize(int rows) {
      this.purgeBatchSize = PostgresInbox.atLeastOne("purgeBatchSize", rows);
      return this;
    }

    /** Time-out of each statement (default 5 s; whole seconds, at least one). */
    public Builder statementTimeout(Duration timeout) {
      this.statementTimeout = PostgresInbox.positive("statementTimeout", timeout);
      return this;
    }

    /**
     * Builds the admin.
     *
     * @throws IllegalStateException if no DataSource was given
     */
    public InboxAdmin build() {
      if (dataSource == null) {
        throw new IllegalStateException("dataSource(...) is required");
      }
      return new InboxAdmin(this);
    }
  }
}
