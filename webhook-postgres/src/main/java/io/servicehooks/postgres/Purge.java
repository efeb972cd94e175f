package io.servicehooks.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The retention purge: deletes done rows older than the retention in batches, each its own
 * transaction, until a batch comes back short (caught up) or the run's time is up. The batch size
 * adapts to what the database does in {@link #TARGET_BATCH_NANOS}: doubled after a quick full
 * batch, halved after a slow one, between the configured size and {@link #MAX_BATCH}. Rows another
 * instance's purge holds are skipped ({@code SKIP LOCKED}), so instances share the backlog instead
 * of queueing on the same oldest rows.
 */
final class Purge {

  /** What one batch should take: long enough to amortise its round trip, short for the locks. */
  static final long TARGET_BATCH_NANOS = 250_000_000L;

  /** Rows per statement at most, whatever the pace. */
  static final int MAX_BATCH = 20_000;

  /** Orphan batch bodies swept per run at most. */
  static final int SWEEP_LIMIT = 1_000;

  private final Tables tables;
  private final int minBatch;
  private final int timeoutSeconds;
  private final LongSupplier ticker;
  private int batch;

  Purge(Tables tables, int batchSize, int timeoutSeconds, LongSupplier ticker) {
    this.tables = tables;
    this.minBatch = batchSize;
    this.timeoutSeconds = timeoutSeconds;
    this.ticker = ticker;
    this.batch = batchSize;
  }

  /** What one run did. */
  record Run(long rows, boolean caughtUp, int lastBatch) {}

  /**
   * Deletes until caught up or {@code budgetNanos} passed; then sweeps batch bodies left without a
   * row (two purges deleting a body's last rows at once each keep it).
   */
  Run run(Connection c, Duration olderThan, long budgetNanos) throws SQLException {
    if (!c.getAutoCommit()) {
      c.setAutoCommit(true);
    }
    long start = ticker.getAsLong();
    long total = 0;
    boolean caughtUp = false;
    try (PreparedStatement s = c.prepareStatement(tables.purge)) {
      s.setQueryTimeout(timeoutSeconds);
      s.setLong(1, olderThan.toMillis());
      while (true) {
        int size = batch;
        s.setInt(2, size);
        long t0 = ticker.getAsLong();
        int n;
        try (ResultSet r = s.executeQuery()) {
          r.next();
          n = r.getInt(1);
        }
        long took = ticker.getAsLong() - t0;
        total += n;
        if (n < size) {
          caughtUp = true;
          break;
        }
        adapt(took);
        if (ticker.getAsLong() - start >= budgetNanos) {
          break;
        }
      }
    }
    try (PreparedStatement s = c.prepareStatement(tables.sweepBodies)) {
      s.setQueryTimeout(timeoutSeconds);
      s.setLong(1, olderThan.toMillis());
      s.setInt(2, SWEEP_LIMIT);
      s.executeUpdate();
    }
    return new Run(total, caughtUp, batch);
  }

  private void adapt(long tookNanos) {
    if (tookNanos < TARGET_BATCH_NANOS / 2) {
      batch = (int) Math.min(MAX_BATCH, batch * 2L);
    } else if (tookNanos > TARGET_BATCH_NANOS * 2) {
      batch = Math.max(minBatch, batch / 2);
    }
  }
}
