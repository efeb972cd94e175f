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
 * instance's lease. A row it cannot mark (the database failed, or close ran out of time) is due
 * again when its lease ends and runs again.
 */
final class DoneMarker {

  private static final Logger log = LoggerFactory.getLogger(PostgresInbox.class);

  /** Most rows marked done by one statement. */
  static final int MAX_MARK_BATCH = 500;

  /** Successes waiting for the marker at most; beyond, a worker waits for room in the queue. */
  static final int MARK_QUEUE = 4 * MAX_MARK_BATCH;

  /** A row whose listeners succeeded, waiting to be marked done. */
  private record Done(long id, int attempts, long nanos) {}

  private final PostgresInbox.Settings s;
  private final BlockingQueue<Done> succeeded = new ArrayBlockingQueue<>(MARK_QUEUE);
  private final Outage marking;
  private final Thread thread = new Thread(this::run, "servicehooks-inbox-marker");
  private volatile boolean stopping;
  private volatile boolean crashed;

  DoneMarker(PostgresInbox.Settings s, Outage marking) {
    this.s = s;
    this.marking = marking;
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /**
   * Queues a row whose listeners succeeded after {@code nanos}; waits for room when the queue is
   * full. Interrupted (closing), the row is not marked and runs again after its lease.
   */
  void succeeded(long id, int attempts, long nanos) {
    try {
      succeeded.put(new Done(id, attempts, nanos));
    } catch (InterruptedException closing) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The marker thread: takes every success queued (up to {@link #MAX_MARK_BATCH}), marks them with
   * one statement, and repeats; no wait beyond that for more. Stops when closing and the queue is
   * empty.
   */
  private void run() {
    List<Done> batch = new ArrayList<>();
    while (!crashed) {
      Done first;
      try {
        first = succeeded.poll(100, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        return;
      }
      if (first == null) {
        if (stopping) {
          return;
        }
        continue;
      }
      batch.add(first);
      succeeded.drainTo(batch, MAX_MARK_BATCH - 1);
      if (crashed) {
        return;
      }
      markDone(batch);
      batch.clear();
    }
  }

  private void markDone(List<Done> batch) {
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
      // Not lost: each row is due again when its lease ends, and runs again.
      marking.failed(e);
      return;
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
      int unmarked = succeeded.size();
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
}
