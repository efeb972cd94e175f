package io.servicehooks.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The marker: workers queue the rows whose listeners succeeded, and one thread marks everything
 * queued done with one statement ({@link Tables#markDone}), fenced by the attempt number and this
 * instance's lease. A mark that fails (the database went away) is kept and tried again with the
 * next batch, until the row's lease ends; only a row still not marked then (or when close runs out
 * of time) is due again and runs again.
 */
final class DoneMarker {

  private static final Logger log = LoggerFactory.getLogger(PostgresInbox.class);

  /** Most rows marked done by one statement. */
  static final int MAX_MARK_BATCH = 500;

  /** Successes waiting for the marker at most; beyond, a worker waits for room in the queue. */
  static final int MARK_QUEUE = 4 * MAX_MARK_BATCH;

  /**
   * A row whose listeners succeeded, waiting to be marked done; {@code leaseEnds} ({@link
   * System#nanoTime}) is no earlier than the end of its lease: a mark that failed is tried again
   * until then.
   */
  private record Done(long id, int attempts, long nanos, long leaseEnds) {}

  private final PostgresInbox.Settings s;
  private final BlockingQueue<Done> succeeded = new ArrayBlockingQueue<>(MARK_QUEUE);
  // Marks that failed (the database went away), tried again with the next batch once it is back.
  private final List<Done> unmarked = new ArrayList<>();
  private final Outage marking;
  private final InboxHealth health;
  private final Thread thread = new Thread(this::run, "servicehooks-inbox-marker");
  private volatile boolean stopping;
  private volatile boolean crashed;

  DoneMarker(PostgresInbox.Settings s, Outage marking, InboxHealth health) {
    this.s = s;
    this.marking = marking;
    this.health = health;
    thread.setDaemon(true);
    health.watch(thread);
  }

  void start() {
    thread.start();
  }

  /**
   * Queues a row whose listeners succeeded after {@code nanos}; {@code leasedAt} ({@link
   * System#nanoTime}) is no later than the start of its lease. Waits for room while the queue is
   * full, but not past a quarter of the lease: a row not queued by then is not marked and runs
   * again after its lease (logged), and the worker goes on.
   */
  void succeeded(long id, int attempts, long nanos, long leasedAt) {
    long leaseEnds = leasedAt + s.lease.toNanos();
    try {
      if (!succeeded.offer(
          new Done(id, attempts, nanos, leaseEnds), s.lease.toNanos() / 4, TimeUnit.NANOSECONDS)) {
        log.warn(
            "Inbox row {} finished but the marker is stuck (database too slow?): not marked, it"
                + " runs again after its lease",
            id);
      }
    } catch (InterruptedException closing) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The marker thread: takes every success queued (up to {@link #MAX_MARK_BATCH}) with the marks
   * that failed before, marks them with one statement, and repeats. Stops when closing and nothing
   * is left; an unexpected failure starts the loop over.
   */
  private void run() {
    long retryNanos = s.pollInterval.toNanos();
    long delay = retryNanos;
    while (!crashed) {
      List<Done> batch = new ArrayList<>();
      try {
        long wait = unmarked.isEmpty() ? TimeUnit.MILLISECONDS.toNanos(100) : delay;
        Done first = succeeded.poll(wait, TimeUnit.NANOSECONDS);
        if (first != null) {
          batch.add(first);
        }
        dropExpired();
        int room = MAX_MARK_BATCH - batch.size();
        int retried = Math.min(room, unmarked.size());
        batch.addAll(unmarked.subList(0, retried));
        unmarked.subList(0, retried).clear();
        succeeded.drainTo(batch, MAX_MARK_BATCH - batch.size());
        if (batch.isEmpty()) {
          if (stopping) {
            return;
          }
          continue;
        }
        if (crashed) {
          return;
        }
        if (markDone(batch)) {
          delay = retryNanos;
        } else {
          // Kept, oldest first, and tried again with the next batch: soon, then less often.
          unmarked.addAll(0, batch);
          delay = Math.min(s.maxPollInterval.toNanos(), delay * 2);
          if (stopping) {
            return;
          }
        }
      } catch (InterruptedException e) {
        return;
      } catch (Throwable unexpected) {
        health.failed("marker", unexpected);
        // What it held is tried again, not dropped to run again after the lease.
        batch.removeAll(unmarked);
        unmarked.addAll(0, batch);
      }
    }
  }

  /** Marks whose lease ended are given up: the row is due again and runs again anyway. */
  private void dropExpired() {
    if (unmarked.isEmpty()) {
      return;
    }
    long now = System.nanoTime();
    int before = unmarked.size();
    unmarked.removeIf(d -> now - d.leaseEnds() > 0);
    int dropped = before - unmarked.size();
    if (dropped > 0) {
      log.warn(
          "Inbox: {} finished rows could not be marked done before their lease ended (database"
              + " unreachable); they run again",
          dropped);
    }
  }

  /** {@code true} when the statement ran (whatever it marked), {@code false} when it failed. */
  private boolean markDone(List<Done> batch) {
    // One lock order for every batch.
    batch.sort(Comparator.comparingLong(Done::id));
    Long[] ids = new Long[batch.size()];
    Integer[] attempts = new Integer[batch.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = batch.get(i).id();
      attempts[i] = batch.get(i).attempts();
    }
    Map<Long, Integer> marked = new HashMap<>();
    try (Connection c = s.dataSource.getConnection()) {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      try (PreparedStatement st = c.prepareStatement(s.tables.markDone)) {
        st.setQueryTimeout(s.timeoutSeconds());
        st.setArray(1, c.createArrayOf("bigint", ids));
        st.setArray(2, c.createArrayOf("integer", attempts));
        st.setString(3, s.instance);
        try (ResultSet r = st.executeQuery()) {
          while (r.next()) {
            marked.put(r.getLong(1), r.getInt(2));
          }
        }
      }
      marking.worked();
    } catch (SQLException | RuntimeException e) {
      // Kept and tried again until the lease ends (a statement that committed after all is
      // harmless to repeat: the row is done, the fence returns nothing, and a WARN says so).
      marking.failed(e);
      return false;
    }
    for (Done done : batch) {
      Integer attempt = marked.get(done.id());
      if (attempt == null || attempt != done.attempts()) {
        log.warn(
            "Inbox row {} ran longer than its lease and was taken again; it may run twice",
            done.id());
      }
      s.meters.processed("done", done.nanos());
    }
    return true;
  }

  /** Marks what is queued, until {@code deadline} at most; then stops the thread. */
  void close(long deadline) {
    stopping = true;
    long left = deadline - System.nanoTime();
    try {
      if (left > 0) {
        TimeUnit.NANOSECONDS.timedJoin(thread, left);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      thread.interrupt();
      int unmarked = succeeded.size() + this.unmarked.size();
      if (unmarked > 0) {
        log.warn(
            "Inbox close: {} handled rows not marked done in time; they run again after the lease",
            unmarked);
      }
    }
  }

  /** Tests: as a killed process, marks nothing more. */
  void crash() {
    crashed = true;
    thread.interrupt();
    succeeded.clear();
  }

  /** Tests: the marker thread, to see it is gone. */
  Thread thread() {
    return thread;
  }
}
