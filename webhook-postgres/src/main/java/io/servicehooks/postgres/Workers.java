package io.servicehooks.postgres;

import io.servicehooks.core.InboxProcessor;
import io.servicehooks.core.StoredEvent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance's worker pool and the rows it holds in memory. Rows reach the workers two ways:
 * leased at insert to this instance when its workers have room (the hot path: {@link #reserve}
 * before the insert, {@link #handOff} after its commit, no claim statement), or taken by the {@link
 * Poller}, which takes as many due rows as workers are free with one {@code FOR UPDATE SKIP LOCKED}
 * statement ({@link DueRows}) that also leases them, so instances never take the same row. Each
 * worker runs one row ({@link RowProcessing}, the process step); a success is queued for the {@link
 * DoneMarker}, which marks everything queued done with one statement per batch, fenced by the
 * attempt numbers.
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

  /**
   * A leased row: taken by the poller, or leased at insert ({@code hot}) and handed over from
   * memory. {@code leasedAt} ({@link System#nanoTime}) is no later than the start of its lease.
   */
  record Claimed(long id, int attempts, StoredEvent event, boolean hot, long leasedAt) {}

  private final PostgresInbox.Settings s;
  private final DoneMarker marker;
  private final Poller poller;
  private final RowProcessing processing;
  private final AtomicInteger hot = new AtomicInteger();
  private final int maxHotRows;
  private final long quarterLeaseNanos;
  private final InboxHealth health;
  private final OwnerLock owner;
  private volatile ExecutorService pool;
  private boolean started;
  private volatile boolean stopping;

  Workers(PostgresInbox.Settings s, InboxHealth health, OwnerLock owner) {
    this.s = s;
    this.health = health;
    this.owner = owner;
    // Shared by the marker, the poller's dead letters and the workers' failures: one outage of
    // recording outcomes, whichever statement met it.
    Outage marking =
        new Outage(
            "mark",
            "failed done marks are retried until their lease ends; a row whose lease ends first may"
                + " run again");
    this.marker = new DoneMarker(s, marking, health);
    this.poller = new Poller(s, new DueRows(s, marking), this::submit, health, owner);
    this.maxHotRows =
        (int)
            Math.min(
                Integer.MAX_VALUE / 2, Math.max(2L * s.workers, (long) s.writers * s.maxBatchRows));
    long leaseNanos =
        s.lease.compareTo(Duration.ofDays(365)) > 0
            ? Duration.ofDays(365).toNanos()
            : s.lease.toNanos();
    this.quarterLeaseNanos = leaseNanos / 4;
    this.processing = new RowProcessing(s, marker, marking, leaseNanos);
  }

  void start(InboxProcessor processor) {
    processing.start(processor);
    AtomicInteger n = new AtomicInteger();
    marker.start();
    poller.create();
    started = true;
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
   * Returns how many may be (0 when the workers are not started, closing, have no room, or this
   * instance does not hold its owner lock). Each must come back: through {@link #handOff} once
   * inserted, or {@link #release}.
   */
  int reserve(int rows) {
    if (rows <= 0 || stopping || pool == null || !owner.mayLease()) {
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
    long average = processing.averageListenerNanos();
    if (average <= 0) {
      return floor;
    }
    long perWorker = quarterLeaseNanos / Math.max(average, 1_000L);
    long byTime = perWorker >= maxHotRows ? maxHotRows : perWorker * s.workers;
    return (int) Math.max(floor, Math.min(maxHotRows, byTime));
  }

  /** Rows were stored here: the poller looks now instead of at the end of its idle wait. */
  void wake() {
    poller.wake();
  }

  /** Queues the row for a worker; its room is given back when it is handled or refused. */
  private void submit(Claimed row) {
    try {
      pool.execute(
          () -> {
            try {
              processing.handle(row);
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
      poller.slotFreed();
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
    poller.stop();
    poller.wake();
    if (!started) {
      return;
    }
    Thread pollerThread = poller.thread();
    pollerThread.interrupt();
    try {
      // The poller first: rows of a look still under way are handed to the workers, not dropped
      // to wait out their lease.
      long left = deadline - System.nanoTime();
      pollerThread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(Math.max(left, 0))));
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
    processing.crash();
    stopping = true;
    poller.stop();
    if (started) {
      poller.thread().interrupt();
      pool.shutdownNow();
      marker.crash();
    }
  }
}
