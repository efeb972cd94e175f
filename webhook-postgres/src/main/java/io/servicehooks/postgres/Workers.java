package io.servicehooks.postgres;

import io.servicehooks.core.InboxProcessor;
import io.servicehooks.core.PayloadFamily;
import io.servicehooks.core.StoredEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The poller, the workers and the marker. Rows reach the workers two ways: leased at insert to this
 * instance when its workers have room (the hot path: {@link #reserve} before the insert, {@link
 * #handOff} after its commit, no claim statement), or taken by the poller, which takes as many due
 * rows as workers are free with one {@code FOR UPDATE SKIP LOCKED} statement that also leases them,
 * so instances never take the same row. Each worker runs one row's listeners outside any
 * transaction; a success is queued for the marker thread, which marks everything queued done with
 * one statement per batch, fenced by the attempt numbers; a failure is recorded by the worker with
 * one statement of its own.
 *
 * <p>The hot path's room is bounded so that a row leased at insert starts well within its lease: at
 * least twice the workers (what the poller keeps in memory too), and beyond that as many rows as
 * the workers get through in a quarter of the lease at the listeners' running average, at most
 * {@code writers * maxBatchRows} (what all writers insert at once). A row that still waited more
 * than half its lease in memory (a listener far slower than its average) is not run: it stays
 * leased and is due again when its lease ends.
 */
final class Workers {

  private static final Logger log = LoggerFactory.getLogger(PostgresInbox.class);

  /** Longest last error kept: class and message, enough to tell what failed. */
  static final int MAX_ERROR_LENGTH = 1000;

  /** How often a row skipped for having waited too long is logged at WARN (others at DEBUG). */
  private static final long LATE_WARNING_NANOS = TimeUnit.SECONDS.toNanos(10);

  /**
   * A leased row: taken by the poller, or leased at insert ({@code hot}) and handed over from
   * memory. {@code leasedAt} ({@link System#nanoTime}) is no later than the start of its lease.
   */
  record Claimed(long id, int attempts, StoredEvent event, boolean hot, long leasedAt) {}

  private final PostgresInbox.Settings s;
  private final DoneMarker marker;
  private final Semaphore free;
  private final AtomicInteger hot = new AtomicInteger();
  private final int maxHotRows;
  private final long halfLeaseNanos;
  private final long quarterLeaseNanos;
  private final AtomicLong listenerNanos = new AtomicLong();
  private final AtomicLong lastLateWarning = new AtomicLong();
  private final Semaphore wakeups = new Semaphore(0);
  private final Outage outage = new Outage("poll");
  // Shared with the marker: one outage of recording outcomes, whichever statement met it.
  private final Outage marking = new Outage("mark");
  private final InboxHealth health;
  private final BodyCache bodies;
  private volatile ExecutorService pool;
  private Thread poller;
  private InboxProcessor processor;
  private volatile boolean stopping;
  private volatile boolean crashed;

  Workers(PostgresInbox.Settings s, InboxHealth health) {
    this.s = s;
    this.health = health;
    this.bodies = new BodyCache(s.tables, s.timeoutSeconds());
    this.marker = new DoneMarker(s, marking, health);
    // Up to twice the workers' count taken at once: the next rows wait in the pool's queue while
    // the workers are busy, so a look takes several rows instead of one per finished listener.
    this.free = new Semaphore(s.workers * 2);
    this.maxHotRows =
        (int)
            Math.min(
                Integer.MAX_VALUE / 2, Math.max(2L * s.workers, (long) s.writers * s.maxBatchRows));
    long leaseNanos =
        s.lease.compareTo(Duration.ofDays(365)) > 0
            ? Duration.ofDays(365).toNanos()
            : s.lease.toNanos();
    this.halfLeaseNanos = leaseNanos / 2;
    this.quarterLeaseNanos = leaseNanos / 4;
    this.lastLateWarning.set(System.nanoTime() - 2 * LATE_WARNING_NANOS);
  }

  void start(InboxProcessor processor) {
    this.processor = processor;
    AtomicInteger n = new AtomicInteger();
    marker.start();
    this.poller = new Thread(this::poll, "servicehooks-inbox-poller");
    poller.setDaemon(true);
    health.watch(poller);
    // Last: a writer reserves room only once the pool is there.
    this.pool =
        Executors.newFixedThreadPool(
            s.workers,
            r -> {
              Thread t = new Thread(r, "servicehooks-inbox-worker-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    poller.start();
  }

  /**
   * Room for up to {@code rows} rows about to be inserted leased to this instance; never blocks.
   * Returns how many may be (0 when the workers are not started, closing, or have no room). Each
   * must come back: through {@link #handOff} once inserted, or {@link #release}.
   */
  int reserve(int rows) {
    if (rows <= 0 || stopping || pool == null) {
      return 0;
    }
    int limit = hotLimit();
    while (true) {
      int held = hot.get();
      int granted = Math.min(rows, limit - held);
      if (granted <= 0) {
        return 0;
      }
      if (hot.compareAndSet(held, held + granted)) {
        return granted;
      }
    }
  }

  /** Gives back room reserved for rows that were not inserted leased (duplicates, a failure). */
  void release(int rows) {
    if (rows > 0) {
      hot.addAndGet(-rows);
    }
  }

  /** Rows leased to this instance at insert, now committed: run by the workers from memory. */
  void handOff(List<Claimed> rows) {
    for (Claimed row : rows) {
      submit(row);
    }
  }

  /**
   * How many hot-path rows may be reserved or in memory: twice the workers, and beyond that what
   * they get through in a quarter of the lease at the listeners' running average, capped.
   */
  int hotLimit() {
    int floor = 2 * s.workers;
    long average = listenerNanos.get();
    if (average <= 0) {
      return floor;
    }
    long perWorker = quarterLeaseNanos / Math.max(average, 1_000L);
    long byTime = perWorker >= maxHotRows ? maxHotRows : perWorker * s.workers;
    return (int) Math.max(floor, Math.min(maxHotRows, byTime));
  }

  /** Rows were stored here: look now instead of at the end of the idle wait. */
  void wake() {
    if (wakeups.availablePermits() == 0) {
      wakeups.release();
    }
  }

  /** The poller thread: runs {@link #pollOnce} until closing; an unexpected failure restarts it. */
  private void poll() {
    long idle = s.pollInterval.toNanos();
    long[] delay = {idle};
    while (!stopping) {
      try {
        if (!pollOnce(delay)) {
          return;
        }
      } catch (Throwable unexpected) {
        health.failed("poller", unexpected);
        delay[0] = Math.max(idle, s.maxPollInterval.toNanos());
        if (!pause(delay[0])) {
          return;
        }
      }
    }
  }

  /** One look: waits for free workers, takes due rows, hands them over; {@code false}: stop. */
  private boolean pollOnce(long[] delay) {
    long idle = s.pollInterval.toNanos();
    long maxIdle = Math.max(idle, s.maxPollInterval.toNanos());
    int slots;
    try {
      // Bounded, so a closing inbox is noticed even while every worker is busy.
      if (!free.tryAcquire(maxIdle, TimeUnit.NANOSECONDS)) {
        return !stopping;
      }
      slots = 1 + free.drainPermits();
    } catch (InterruptedException e) {
      return false;
    }
    List<Claimed> rows;
    try {
      rows = claim(slots);
      outage.worked();
    } catch (SQLException | RuntimeException e) {
      free.release(slots);
      outage.failed(e);
      delay[0] = Math.min(maxIdle, Math.max(delay[0], idle) * 2);
      return pause(delay[0]);
    } catch (Throwable unexpected) {
      free.release(slots);
      throw unexpected;
    }
    free.release(slots - rows.size());
    if (rows.isEmpty()) {
      if (!pause(delay[0])) {
        return false;
      }
      delay[0] = Math.min(maxIdle, delay[0] * 2);
      return true;
    }
    delay[0] = idle;
    for (Claimed row : rows) {
      submit(row);
    }
    return true;
  }

  /** Queues the row for a worker; its room is given back when it is handled or refused. */
  private void submit(Claimed row) {
    try {
      pool.execute(
          () -> {
            try {
              handle(row);
            } finally {
              releaseRoom(row);
            }
          });
    } catch (RejectedExecutionException closing) {
      releaseRoom(row); // the row is due again when its lease ends
    }
  }

  private void releaseRoom(Claimed row) {
    if (row.hot()) {
      hot.decrementAndGet();
    } else {
      free.release();
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

  /**
   * Takes up to {@code limit} due rows. Each row is turned back into an event on its own: one that
   * cannot be (a family this version does not know, its batch body gone) becomes a dead letter with
   * the reason, and the rows taken with it run.
   */
  List<Claimed> claim(int limit) throws SQLException {
    List<Claimed> rows = new ArrayList<>(limit);
    List<Unreadable> unreadable = new ArrayList<>();
    long leasedAt = System.nanoTime();
    try (Connection c = s.dataSource.getConnection()) {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      List<Taken> taken = new ArrayList<>(limit);
      try (PreparedStatement st = c.prepareStatement(s.tables.claim)) {
        st.setQueryTimeout(s.timeoutSeconds());
        st.setInt(1, limit);
        st.setString(2, s.instance);
        st.setLong(3, s.lease.toMillis());
        try (ResultSet r = st.executeQuery()) {
          while (r.next()) {
            String[] text = new String[10];
            for (int i = 0; i < text.length; i++) {
              text[i] = r.getString(3 + i);
            }
            long bodyId = r.getLong(13);
            taken.add(new Taken(r.getLong(1), r.getInt(2), text, r.wasNull() ? null : bodyId));
          }
        }
      }
      Map<Long, String> bodies = this.bodies.resolve(c, taken);
      for (Taken t : taken) {
        try {
          rows.add(new Claimed(t.id(), t.attempts(), t.decode(bodies), false, leasedAt));
        } catch (RuntimeException e) {
          unreadable.add(new Unreadable(t.id(), t.attempts(), describe(e)));
        }
      }
      for (Unreadable u : unreadable) {
        deadLetter(c, u);
      }
    }
    return rows;
  }

  /** A taken row as read: its ten event columns and the batch body it points at, if any. */
  record Taken(long id, int attempts, String[] text, Long bodyId) {

    /** The event, or an exception saying why the row cannot be one. */
    StoredEvent decode(Map<Long, String> bodies) {
      String delivery = text[9];
      if (delivery == null && bodyId != null) {
        delivery = bodies.get(bodyId);
        if (delivery == null) {
          throw new IllegalStateException("its delivery body (id " + bodyId + ") is missing");
        }
      }
      PayloadFamily family;
      try {
        family = PayloadFamily.valueOf(String.valueOf(text[4]));
      } catch (IllegalArgumentException unknown) {
        throw new IllegalArgumentException(
            "family '" + text[4] + "' is not one this version knows");
      }
      return new StoredEvent(
          text[1], text[0], text[2], text[3], family, text[5], text[6], text[7], text[8], delivery);
    }
  }

  private record Unreadable(long id, int attempts, String reason) {}

  private void deadLetter(Connection c, Unreadable u) {
    String error = "the row cannot be read as an event: " + u.reason();
    if (error.length() > MAX_ERROR_LENGTH) {
      error = error.substring(0, MAX_ERROR_LENGTH - 3) + "...";
    }
    try (PreparedStatement st = c.prepareStatement(s.tables.markUnreadable)) {
      st.setQueryTimeout(s.timeoutSeconds());
      st.setString(1, error);
      st.setLong(2, u.id());
      st.setInt(3, u.attempts());
      st.executeUpdate();
      s.meters.processed("dead", 0);
      log.error("Inbox row {} is a dead letter: {}", u.id(), error);
    } catch (SQLException | RuntimeException e) {
      // Still leased: due again when the lease ends, and tried again then.
      marking.failed(e);
    }
  }

  private void handle(Claimed row) {
    if (crashed) {
      return;
    }
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
    long waited = System.nanoTime() - row.leasedAt();
    if (waited > halfLeaseNanos) {
      late(row, waited);
      return; // still leased: due again when the lease ends, then taken by any instance
    }
    long start = System.nanoTime();
    Throwable failure = null;
    try {
      processor.process(row.event());
    } catch (Throwable t) {
      failure = t;
    }
    long nanos = System.nanoTime() - start;
    listenerNanos.accumulateAndGet(
        nanos, (average, x) -> average <= 0 ? Math.max(x, 1) : average + (x - average) / 8);
    if (crashed) {
      return;
    }
    if (failure == null) {
      marker.succeeded(row.id(), row.attempts(), nanos, row.leasedAt());
    } else {
      record(row, describe(failure), nanos);
    }
    if (failure instanceof VirtualMachineError vmError) {
      throw vmError;
    }
  }

  private void late(Claimed row, long waitedNanos) {
    long now = System.nanoTime();
    long last = lastLateWarning.get();
    String message =
        "Inbox row {} waited {} ms for a worker, more than half its lease ({}): not run now, it is"
            + " due again when the lease ends (listeners much slower than usual?)";
    long millis = TimeUnit.NANOSECONDS.toMillis(waitedNanos);
    if (now - last > LATE_WARNING_NANOS && lastLateWarning.compareAndSet(last, now)) {
      log.warn(message, row.id(), millis, s.lease);
    } else {
      log.debug(message, row.id(), millis, s.lease);
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
    // The marker last: what the workers finished is marked before close returns.
    marker.close(deadline);
  }

  /** Tests: the marker. */
  DoneMarker marker() {
    return marker;
  }

  /** Tests: as a killed process, stops everything and records no outcome. */
  void crash() {
    crashed = true;
    stopping = true;
    if (poller != null) {
      poller.interrupt();
      pool.shutdownNow();
      marker.crash();
    }
  }
}
