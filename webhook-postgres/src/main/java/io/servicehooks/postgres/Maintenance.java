package io.servicehooks.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One thread for the periodic work: the retention purge and the gauges' count query. */
final class Maintenance {

  private static final Logger log = LoggerFactory.getLogger(PostgresInbox.class);

  /** Batches per purge run: a backlog is worked off over several runs, never in one long one. */
  static final int MAX_BATCHES_PER_RUN = 100;

  private final PostgresInbox.Settings s;
  private final Outage outage =
      new Outage("maintenance", "done rows are not purged and the gauges keep their last values");
  private final ScheduledExecutorService timer;

  /** Starts the gauges' refresh at once: they describe the table, workers or not. */
  Maintenance(PostgresInbox.Settings s) {
    this.s = s;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "servicehooks-inbox-maintenance");
              t.setDaemon(true);
              return t;
            });
    if (s.meters.wantsGauges()) {
      timer.scheduleWithFixedDelay(
          this::refreshGauges, 0, s.gaugeInterval.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /** Starts the periodic purge. */
  void start() {
    long purgeMillis = s.purgeInterval.toMillis();
    // Instances started together purge at different moments.
    long firstPurge = ThreadLocalRandom.current().nextLong(purgeMillis / 2, purgeMillis + 1);
    timer.scheduleWithFixedDelay(this::purge, firstPurge, purgeMillis, TimeUnit.MILLISECONDS);
  }

  void purge() {
    try (Connection c = s.dataSource.getConnection()) {
      int n =
          InboxAdmin.purge(
              c, s.tables, s.retention, s.purgeBatchSize, s.timeoutSeconds(), MAX_BATCHES_PER_RUN);
      if (n > 0) {
        log.debug("Purged {} done inbox rows older than {}", n, s.retention);
      }
      outage.worked();
    } catch (SQLException | RuntimeException e) {
      outage.failed(e);
    }
  }

  void refreshGauges() {
    try (Connection c = s.dataSource.getConnection()) {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      try (PreparedStatement st = c.prepareStatement(s.tables.gauges)) {
        st.setQueryTimeout(s.timeoutSeconds());
        try (ResultSet r = st.executeQuery()) {
          r.next();
          s.meters.gauges(r.getLong(1), r.getLong(2), r.getDouble(3));
        }
      }
      outage.worked();
    } catch (SQLException | RuntimeException e) {
      outage.failed(e);
    }
  }

  void close() {
    timer.shutdownNow();
  }
}
