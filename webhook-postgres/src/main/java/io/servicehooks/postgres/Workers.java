package io.servicehooks.postgres;

import io.servicehooks.core.InboxProcessor;
import io.servicehooks.core.PayloadFamily;
import io.servicehooks.core.StoredEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The poller and the workers. The poller takes as many due rows as workers are free, with one
 * {@code FOR UPDATE SKIP LOCKED} statement that also leases them, so instances never take the same
 * row; each worker runs one row's listeners outside any transaction and records the outcome with
 * one statement, fenced by the attempt number.
 */
final class Workers {

  private static final Logger log = LoggerFactory.getLogger(PostgresInbox.class);

  /** Longest last error kept: class and message, enough to tell what failed. */
  static final int MAX_ERROR_LENGTH = 1000;

  /** A leased row. */
  record Claimed(long id, int attempts, StoredEvent event) {}

  private final PostgresInbox.Settings s;
  private final Semaphore free;
  private final Semaphore wakeups = new Semaphore(0);
  private final Outage outage = new Outage("poll");
  private final Outage marking = new Outage("mark");
  private ExecutorService pool;
  private Thread poller;
  private InboxProcessor processor;
  private volatile boolean stopping;
  private volatile boolean crashed;

  Workers(PostgresInbox.Settings s) {
    this.s = s;
    // Up to twice the workers' count taken at once: the next rows wait in the pool's queue while
    // the workers are busy, so a look takes several rows instead of one per finished listener.
    this.free = new Semaphore(s.workers * 2);
  }

  void start(InboxProcessor processor) {
    this.processor = processor;
    AtomicInteger n = new AtomicInteger();
    this.pool =
        Executors.newFixedThreadPool(
            s.workers,
            r -> {
              Thread t = new Thread(r, "servicehooks-inbox-worker-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    this.poller = new Thread(this::poll, "servicehooks-inbox-poller");
    poller.setDaemon(true);
    poller.start();
  }

  /** Rows were stored here: look now instead of at the end of the idle wait. */
  void wake() {
    if (wakeups.availablePermits() == 0) {
      wakeups.release();
    }
  }

  private void poll() {
    long idle = s.pollInterval.toNanos();
    long maxIdle = Math.max(idle, s.maxPollInterval.toNanos());
    long delay = idle;
    while (!stopping) {
      int slots;
      try {
        free.acquire();
        slots = 1 + free.drainPermits();
      } catch (InterruptedException e) {
        return;
      }
      List<Claimed> rows;
      try {
        rows = claim(slots);
        outage.worked();
      } catch (SQLException | RuntimeException e) {
        free.release(slots);
        outage.failed(e);
        delay = Math.min(maxIdle, Math.max(delay, idle) * 2);
        if (!pause(delay)) {
          return;
        }
        continue;
      }
      free.release(slots - rows.size());
      if (rows.isEmpty()) {
        if (!pause(delay)) {
          return;
        }
        delay = Math.min(maxIdle, delay * 2);
        continue;
      }
      delay = idle;
      for (Claimed row : rows) {
        try {
          pool.execute(
              () -> {
                try {
                  handle(row);
                } finally {
                  free.release();
                }
              });
        } catch (java.util.concurrent.RejectedExecutionException closing) {
          free.release(); // the row is due again when its lease ends
        }
      }
    }
  }

  /** Waits for {@code nanos} or a wake-up; {@code false} when stopping. */
  private boolean pause(long nanos) {
    try {
      wakeups.tryAcquire(nanos, TimeUnit.NANOSECONDS);
      wakeups.drainPermits();
      return !stopping;
    } catch (InterruptedException e) {
      return false;
    }
  }

  List<Claimed> claim(int limit) throws SQLException {
    List<Claimed> rows = new ArrayList<>(limit);
    try (Connection c = s.dataSource.getConnection()) {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      try (PreparedStatement st = c.prepareStatement(s.tables.claim)) {
        st.setQueryTimeout(s.timeoutSeconds());
        st.setInt(1, limit);
        st.setString(2, s.instance);
        st.setLong(3, s.lease.toMillis());
        try (ResultSet r = st.executeQuery()) {
          while (r.next()) {
            rows.add(
                new Claimed(
                    r.getLong(1),
                    r.getInt(2),
                    new StoredEvent(
                        r.getString(4),
                        r.getString(3),
                        r.getString(5),
                        r.getString(6),
                        PayloadFamily.valueOf(r.getString(7)),
                        r.getString(8),
                        r.getString(9),
                        r.getString(10),
                        r.getString(11),
                        r.getString(12))));
          }
        }
      }
    }
    return rows;
  }

  private void handle(Claimed row) {
    if (row.attempts() > s.maxAttempts) {
      // Its last attempt never reported: the worker died or outlived the lease. No more tries,
      // or one listener that kills its process would do so forever.
      record(
          row,
          "lease ended during the last attempt: the worker stopped or the listener ran longer"
              + " than the lease",
          0);
      return;
    }
    long start = System.nanoTime();
    Throwable failure = null;
    try {
      processor.process(row.event());
    } catch (Throwable t) {
      failure = t;
    }
    long nanos = System.nanoTime() - start;
    if (crashed) {
      return;
    }
    if (failure == null) {
      markDone(row, nanos);
    } else {
      record(row, describe(failure), nanos);
    }
    if (failure instanceof VirtualMachineError vmError) {
      throw vmError;
    }
  }

  private void markDone(Claimed row, long nanos) {
    try (Connection c = s.dataSource.getConnection()) {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      try (PreparedStatement st = c.prepareStatement(s.tables.markDone)) {
        st.setQueryTimeout(s.timeoutSeconds());
        st.setLong(1, row.id());
        st.setInt(2, row.attempts());
        if (st.executeUpdate() == 0) {
          log.warn(
              "Inbox row {} ran longer than its lease and was taken again; it may run twice",
              row.id());
        }
      }
      s.meters.processed("done", nanos);
      marking.worked();
    } catch (SQLException | RuntimeException e) {
      // Not lost: the row is due again when its lease ends, and runs again.
      marking.failed(e);
    }
  }

  private void record(Claimed row, String error, long nanos) {
    long delay = s.backoffMillis(row.attempts(), ThreadLocalRandom.current().nextDouble());
    try (Connection c = s.dataSource.getConnection()) {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      try (PreparedStatement st = c.prepareStatement(s.tables.markFailed)) {
        st.setQueryTimeout(s.timeoutSeconds());
        st.setInt(1, s.maxAttempts);
        st.setLong(2, delay);
        st.setString(3, error);
        st.setLong(4, row.id());
        st.setInt(5, row.attempts());
        try (ResultSet r = st.executeQuery()) {
          if (!r.next()) {
            log.warn("Inbox row {} was taken again after its lease ended", row.id());
            return;
          }
          if ("dead".equals(r.getString(1))) {
            s.meters.processed("dead", nanos);
            log.warn(
                "Inbox row {} ({} event {}) is a dead letter after {} attempts: {}",
                row.id(),
                row.event().type(),
                row.event().id(),
                row.attempts(),
                error);
          } else {
            s.meters.processed("retry", nanos);
            log.debug(
                "Inbox row {} failed attempt {}, retried in {} ms",
                row.id(),
                row.attempts(),
                delay);
          }
        }
      }
      marking.worked();
    } catch (SQLException | RuntimeException e) {
      marking.failed(e);
    }
  }

  /** The failure's class and message, unwrapped, one line, bounded. */
  static String describe(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof InboxProcessor.ListenerError)
        && t.getCause() != null) {
      t = t.getCause();
    }
    String message = t.getMessage();
    String text = t.getClass().getName() + (message == null ? "" : ": " + message);
    text = text.replaceAll("[\\p{Cntrl}]+", " ");
    return text.length() <= MAX_ERROR_LENGTH
        ? text
        : text.substring(0, MAX_ERROR_LENGTH - 3) + "...";
  }

  void close(long deadline) {
    stopping = true;
    wake();
    if (poller == null) {
      return;
    }
    poller.interrupt();
    try {
      // The poller first: rows of a look still under way are handed to the workers, not dropped
      // to wait out their lease.
      long left = deadline - System.nanoTime();
      poller.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(Math.max(left, 0))));
      pool.shutdown();
      left = deadline - System.nanoTime();
      if (!pool.awaitTermination(Math.max(left, 0), TimeUnit.NANOSECONDS)) {
        log.warn("Inbox listeners still running at close; their rows run again after the lease");
        pool.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      pool.shutdownNow();
    }
  }

  /** Tests: as a killed process, stops everything and records no outcome. */
  void crash() {
    crashed = true;
    stopping = true;
    if (poller != null) {
      poller.interrupt();
      pool.shutdownNow();
    }
  }
}
