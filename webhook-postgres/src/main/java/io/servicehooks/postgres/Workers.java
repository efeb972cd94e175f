package io.servicehooks.postgres;

import io.servicehooks.core.InboxProcessor;
import io.servicehooks.core.StoredEvent;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance's worker pool, its poller thread and the rows it holds in memory. This class is the
 * one owner of that memory: how many rows may be leased to this instance and not yet run, and how
 * each of them reaches a worker.
 *
 * <p>Rows reach the workers two ways. Leased at insert, when the workers have room (the hot path:
 * the store step, {@link GroupInsert}, asks {@link #reserve} before its insert and reports with
 * {@link #inserted} or {@link #notInserted} after it; no claim statement). Or taken by the poller
 * thread, which takes as many due rows as it has free slots with one {@code FOR UPDATE SKIP LOCKED}
 * statement ({@link DueRows}) that also leases them, so instances never take the same row. Each
 * worker runs one row ({@link RowProcessing}, the process step); a success is queued for the {@link
 * DoneMarker}, which marks everything queued done with one statement per batch, fenced by the
 * attempt numbers.
 *
 * <h2>The states of a unit of room</h2>
 *
 * Two counts bound the rows in memory, one per way in, and every row holds one unit of the count it
 * came through ({@link Claimed#hot()} says which) from before its lease is taken until its worker
 * is done with it:
 *
 * <pre>
 * hot room:   free -reserve-> RESERVED -inserted leased-> QUEUED -a worker-> RUNNING -handled-> free
 *                             |                           |
 *                             +-> free: a duplicate,      +-> free: refused by the closing pool
 *                                 or the insert failed
 * poll slots: free -a look-> TAKING -row leased-> QUEUED -a worker-> RUNNING -handled-> free
 *                            |                    |
 *                            +-> free: no row     +-> free: refused by the closing pool
 *                                for the slot
 * </pre>
 *
 * <ul>
 *   <li>The hot room ({@code hot}, the units RESERVED, QUEUED or RUNNING) is bounded by {@link
 *       #hotLimit} so that a row leased at insert starts well within its lease: at least twice the
 *       workers (what the poller keeps in memory too), and beyond that as many rows as the workers
 *       get through in a quarter of the lease at the listeners' running average, at most {@code
 *       writers * maxBatchRows} (what all writers insert at once).
 *   <li>The poll slots ({@code free}, twice the workers, less the units TAKING, QUEUED or RUNNING)
 *       bound what the poller takes: the second half waits in the pool's queue while the workers
 *       are busy, so a look takes several rows instead of one per finished listener.
 * </ul>
 *
 * <p>A row that still waited more than half its lease in memory (a listener far slower than its
 * average) is not run: it stays leased and is due again when its lease ends.
 *
 * <h2>Who moves them</h2>
 *
 * Only this class writes the two counts, the poller's wake-ups and the closing flag. A writer
 * thread moves hot room from free to RESERVED ({@link #reserve}) and on, once its transaction
 * ended, to QUEUED or back to free ({@link #inserted}, {@link #notInserted}): it reports what
 * happened and this class does the arithmetic. The poller thread moves poll slots from free to
 * TAKING and on. A worker thread gives a unit back when it is done with the row; the thread that
 * queues a row gives it back when the closing pool refuses it.
 *
 * <h2>Why each transition is safe</h2>
 *
 * <ul>
 *   <li>free to RESERVED: a compare-and-set loop grants at most what is left under the limit and
 *       never blocks a writer (none granted: the rows are inserted pending). None is granted while
 *       closing, before the pool exists, or without the owner lock ({@link OwnerLock#mayLease}): a
 *       row leased then would carry a token no session vouches for. The limit follows the
 *       listeners' average and may fall below what is held; then nothing is granted until enough
 *       comes back.
 *   <li>RESERVED to QUEUED or free: {@link #inserted} is called once per reservation, after the
 *       commit, with the rows the database inserted leased; the units left over (duplicates) come
 *       back at once, each inserted row keeps its own. {@link #notInserted} gives back the whole
 *       reservation when the transaction failed: a statement that committed after all leaves rows
 *       leased to nobody in memory, due again when their lease ends (or at once when this owner is
 *       gone).
 *   <li>free to TAKING: the poller acquires its slots before the claim statement, so it never
 *       leases more rows than it has room for; the slots without a row come back at once.
 *   <li>QUEUED to RUNNING to free: the pool runs the task once, and the task gives its unit back in
 *       a {@code finally}; a task the pool refuses never runs, and the queuing thread gives the
 *       unit back instead. So every unit comes back exactly once.
 *   <li>Wake-ups: stores of pending rows, and rows taken back from an owner that is gone, wake the
 *       poller through a semaphore of at most one permit. A wake-up lost or merged with another
 *       costs at most one idle wait: the poller looks at least every {@code maxPollInterval}.
 *   <li>Closing: the flag is set first, so nothing more is reserved and the poller's loop ends; the
 *       poller is joined before the pool shuts down, so the rows of a look still under way are
 *       queued, not dropped to wait out their lease; the marker closes last, so what the workers
 *       finished is marked before close returns.
 * </ul>
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
  private final DueRows due;
  private final RowProcessing processing;
  private final InboxHealth health;
  private final OwnerLock owner;

  /** Hot room: rows reserved for an insert, or leased at insert and not yet handled. */
  private final AtomicInteger hot = new AtomicInteger();

  private final int maxHotRows;
  private final long quarterLeaseNanos;

  /** Poll slots: rows the poller may still take (twice the workers, less what it holds). */
  private final Semaphore free;

  private final Semaphore wakeups = new Semaphore(0);
  private final Outage polling =
      new Outage("poll", "no due row is taken: stored events wait in the table, none is lost");
  private volatile ExecutorService pool;
  private Thread poller;
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
    this.due = new DueRows(s, marking);
    this.free = new Semaphore(s.workers * 2);
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
    this.poller = new Thread(this::poll, "servicehooks-inbox-poller");
    poller.setDaemon(true);
    health.watch(poller);
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
   * instance does not hold its owner lock): the first that many rows of the insert. The insert then
   * reports with {@link #inserted} or {@link #notInserted}, once.
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

  /**
   * The insert of a {@link #reserve reservation} of {@code reserved} rows committed: {@code leased}
   * are the rows it inserted leased to this instance (the others were duplicates), run from memory;
   * {@code pendingStored}: it also stored rows pending, which the poller looks for now instead of
   * at the end of its idle wait.
   */
  void inserted(int reserved, List<Claimed> leased, boolean pendingStored) {
    giveBackHot(reserved - leased.size());
    for (Claimed row : leased) {
      submit(row);
    }
    if (pendingStored) {
      wake();
    }
  }

  /** The insert of a {@link #reserve reservation} failed: its room comes back. */
  void notInserted(int reserved) {
    giveBackHot(reserved);
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

  /** Rows became due here: the poller looks now instead of at the end of its idle wait. */
  void wake() {
    if (wakeups.availablePermits() == 0) {
      wakeups.release();
    }
  }

  private void giveBackHot(int rows) {
    if (rows > 0) {
      hot.addAndGet(-rows);
    }
  }

  /** Queues the row for a worker; its unit of room comes back when it is handled or refused. */
  private void submit(Claimed row) {
    try {
      pool.execute(
          () -> {
            try {
              processing.handle(row);
            } finally {
              giveBack(row);
            }
          });
    } catch (RejectedExecutionException closing) {
      giveBack(row); // the row is due again when its lease ends
    }
  }

  private void giveBack(Claimed row) {
    if (row.hot()) {
      hot.decrementAndGet();
    } else {
      free.release();
    }
  }

  /**
   * The poller thread: while this instance holds its owner lock and has free slots, takes due rows
   * and queues them; idle or with the database unreachable it backs off to {@code maxPollInterval}.
   * An unexpected failure is reported and the loop starts over.
   */
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

  /** One look: waits for free slots, takes due rows, queues them; {@code false}: stop. */
  private boolean pollOnce(long[] delay) {
    long idle = s.pollInterval.toNanos();
    long maxIdle = Math.max(idle, s.maxPollInterval.toNanos());
    if (!owner.mayLease()) {
      // A row leased now would carry a token no session vouches for; woken when the lock is back.
      return pause(maxIdle);
    }
    int slots;
    try {
      // Bounded, so closing is noticed even while every worker is busy.
      if (!free.tryAcquire(maxIdle, TimeUnit.NANOSECONDS)) {
        return !stopping;
      }
      slots = 1 + free.drainPermits();
    } catch (InterruptedException e) {
      return false;
    }
    List<Claimed> rows;
    try {
      rows = due.claim(slots);
      polling.worked();
    } catch (SQLException | RuntimeException e) {
      free.release(slots);
      polling.failed(e);
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
    if (!started) {
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
    processing.crash();
    stopping = true;
    if (started) {
      poller.interrupt();
      pool.shutdownNow();
      marker.crash();
    }
  }
}
