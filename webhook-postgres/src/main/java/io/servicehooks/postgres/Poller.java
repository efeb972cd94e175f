package io.servicehooks.postgres;

import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The poller thread: while workers are free and this instance holds its owner lock ({@link
 * OwnerLock}), takes due rows ({@link DueRows}) and hands them to the workers; idle or with the
 * database unreachable it backs off to {@code maxPollInterval}, and rows stored by this instance,
 * or taken back from an owner that is gone, wake it at once.
 */
final class Poller {

  private final PostgresInbox.Settings s;
  private final DueRows due;
  private final Consumer<Workers.Claimed> submit;
  private final InboxHealth health;
  private final OwnerLock owner;

  /**
   * Up to twice the workers' count taken at once: the next rows wait in the pool's queue while the
   * workers are busy, so a look takes several rows instead of one per finished listener.
   */
  private final Semaphore free;

  private final Semaphore wakeups = new Semaphore(0);
  private final Outage outage =
      new Outage("poll", "no due row is taken: stored events wait in the table, none is lost");
  private Thread thread;
  private volatile boolean stopping;

  Poller(
      PostgresInbox.Settings s,
      DueRows due,
      Consumer<Workers.Claimed> submit,
      InboxHealth health,
      OwnerLock owner) {
    this.s = s;
    this.owner = owner;
    this.due = due;
    this.submit = submit;
    this.health = health;
    this.free = new Semaphore(s.workers * 2);
  }

  /** Creates the thread and has the health watch it; {@link #start} runs it. */
  Thread create() {
    this.thread = new Thread(this::poll, "servicehooks-inbox-poller");
    thread.setDaemon(true);
    health.watch(thread);
    return thread;
  }

  void start() {
    thread.start();
  }

  /** A row taken by the poller was handled or refused: its worker slot is free again. */
  void slotFreed() {
    free.release();
  }

  /** Rows were stored here: look now instead of at the end of the idle wait. */
  void wake() {
    if (wakeups.availablePermits() == 0) {
      wakeups.release();
    }
  }

  /** Ends the loop at its next look; {@link #thread()} to wait for it. */
  void stop() {
    stopping = true;
  }

  /** The thread, null before {@link #create}. */
  Thread thread() {
    return thread;
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
    if (!owner.mayLease()) {
      // A row leased now would carry a token no session vouches for; told when the lock is back.
      return pause(maxIdle);
    }
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
    List<Workers.Claimed> rows;
    try {
      rows = due.claim(slots);
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
    for (Workers.Claimed row : rows) {
      submit.accept(row);
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
}
