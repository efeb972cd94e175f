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

/**
 * The periodic work, on two threads: the retention purge, and the gauges' count query. The gauges
 * have a thread of their own so that a purge run (up to {@link #RUN_BUDGET_NANOS}) never holds them
 * back: they follow the table within {@code gaugeInterval}, scrape after scrape.
 */
final class Maintenance {

  private static final Logger log = LoggerFactory.getLogger(PostgresInbox.class);

  /**
   * How long one purge run deletes at most; a backlog left then is taken up again after {@link
   * #BREATH_MILLIS}.
   */
  static final long RUN_BUDGET_NANOS = TimeUnit.SECONDS.toNanos(20);

  static final long BREATH_MILLIS = 100;

  private final PostgresInbox.Settings s;
  private final Outage outage =
      new Outage("maintenance", "done rows are not purged and the gauges keep their last values");
  private final ScheduledExecutorService timer;
  private final ScheduledExecutorService gauges;
  private final InboxHealth health;
  private final Purge purge;

  /** Starts the gauges' refresh at once: they describe the table, workers or not. */
  Maintenance(PostgresInbox.Settings s, InboxHealth health) {
    this.s = s;
    this.health = health;
    this.purge = new Purge(s.tables, s.purgeBatchSize, s.timeoutSeconds(), System::nanoTime);
    this.timer = thread("servicehooks-inbox-maintenance", health);
    if (s.meters.wantsGauges()) {
      this.gauges = thread("servicehooks-inbox-gauges", health);
      gauges.scheduleWithFixedDelay(
          this::refreshGauges, 0, s.gaugeInterval.toMillis(), TimeUnit.MILLISECONDS);
    } else {
      this.gauges = null;
    }
  }

  private static ScheduledExecutorService thread(String name, InboxHealth health) {
    return Executors.newSingleThreadScheduledExecutor(
        r -> {
          Thread t = new Thread(r, name);
          t.setDaemon(true);
          health.watch(t);
          return t;
        });
  }

  /** Starts the periodic purge. */
  void start() {
    long purgeMillis = s.purgeInterval.toMillis();
    // Instances started together purge at different moments.
    long firstPurge = ThreadLocalRandom.current().nextLong(purgeMillis / 2, purgeMillis + 1);
    schedulePurge(firstPurge);
  }

  private void schedulePurge(long delayMillis) {
    try {
      timer.schedule(this::purgeAndReschedule, delayMillis, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException closing) {
      // closed
    }
  }

  /**
   * One run, then the next: after the interval when it caught up, at once (after a breath) when the
   * backlog is still there, so the purge keeps pace with the inserts instead of deleting a fixed
   * number per interval.
   */
  private void purgeAndReschedule() {
    boolean caughtUp = true;
    try {
      caughtUp = purge();
    } finally {
      schedulePurge(caughtUp ? s.purgeInterval.toMillis() : BREATH_MILLIS);
    }
  }

  /** One purge run; {@code true} when it caught up (or failed: tried again after the interval). */
  boolean purge() {
    try (Connection c = s.dataSource.getConnection()) {
      Purge.Run run = purge.run(c, s.retention, RUN_BUDGET_NANOS);
      if (run.rows() > 0) {
        log.debug(
            "Purged {} done inbox rows older than {} (batch {}, caught up: {})",
            run.rows(),
            s.retention,
            run.lastBatch(),
            run.caughtUp());
      }
      outage.worked();
      return run.caughtUp();
    } catch (SQLException | RuntimeException e) {
      outage.failed(e);
    } catch (Throwable unexpected) {
      // A task that throws is never run again by the timer: caught here, it runs next time.
      health.failed("maintenance", unexpected);
    }
    return true;
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
          s.meters.gauges(r.getLong(1), r.getLong(2), r.getLong(3), r.getDouble(4));
        }
      }
      outage.worked();
    } catch (SQLException | RuntimeException e) {
      outage.failed(e);
    } catch (Throwable unexpected) {
      // A task that throws is never run again by the timer: caught here, it runs next time.
      health.failed("maintenance", unexpected);
    }
  }

  void close() {
    timer.shutdownNow();
    if (gauges != null) {
      gauges.shutdownNow();
    }
  }
}
