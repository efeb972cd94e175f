package io.servicehooks.postgres;

import io.servicehooks.core.InboxOutcome;
import io.servicehooks.core.StoredEvent;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit: writer threads take the deliveries waiting on one queue (and, with a commit window,
 * what arrives within it) and store them all in one transaction ({@link GroupInsert}, the store
 * step). Without a window a group is what queued while the writers were busy committing, so groups
 * grow as commits get slower or deliveries faster. Each delivery's future completes after that
 * commit, with what happened to each of its events; a failed statement fails every delivery in it,
 * and a data error is retried one delivery at a time so one bad row fails only its own.
 */
final class GroupCommitWriter {

  private static final Logger log = LoggerFactory.getLogger(PostgresInbox.class);

  /** One delivery waiting to be stored. */
  record Pending(List<StoredEvent> events, CompletableFuture<List<InboxOutcome>> done) {}

  private final PostgresInbox.Settings s;
  private final GroupInsert insert;
  private final BlockingQueue<Pending> queue;
  private final List<Thread> threads = new ArrayList<>();
  private final Outage outage =
      new Outage(
          "store", "deliveries are answered 503 (nothing acknowledged; the platform retries them)");
  private final InboxHealth health;
  private final long window;
  // Rows in the queue, so a full group's worth wakes the writers before their window ends.
  private final AtomicInteger queuedRows = new AtomicInteger();
  private volatile boolean closed;

  GroupCommitWriter(PostgresInbox.Settings s, Workers workers, InboxHealth health) {
    this.s = s;
    this.insert = new GroupInsert(s, workers);
    this.health = health;
    this.window = s.commitWindow.toNanos();
    this.queue = new ArrayBlockingQueue<>(s.maxQueuedDeliveries);
    for (int i = 0; i < s.writers; i++) {
      Thread t = new Thread(this::run, "servicehooks-inbox-writer-" + (i + 1));
      t.setDaemon(true);
      threads.add(t);
      health.watch(t);
      t.start();
    }
  }

  CompletableFuture<List<InboxOutcome>> submit(List<StoredEvent> events) {
    CompletableFuture<List<InboxOutcome>> done = new CompletableFuture<>();
    if (closed) {
      done.completeExceptionally(new RejectedExecutionException("inbox is closed"));
      return done;
    }
    if (events.isEmpty()) {
      done.complete(List.of());
      return done;
    }
    if (!queue.offer(new Pending(List.copyOf(events), done))) {
      done.completeExceptionally(
          new RejectedExecutionException(
              "inbox store queue is full (" + s.maxQueuedDeliveries + " deliveries)"));
    } else if (queuedRows.addAndGet(events.size()) >= s.maxBatchRows) {
      // A full group is queued: a writer sleeping through its window goes now.
      for (Thread t : threads) {
        LockSupport.unpark(t);
      }
    }
    return done;
  }

  private void run() {
    List<Pending> group = new ArrayList<>();
    while (true) {
      try {
        Pending first = queue.poll(100, TimeUnit.MILLISECONDS);
        if (first == null) {
          if (closed) {
            return;
          }
          continue;
        }
        queuedRows.addAndGet(-first.events().size());
        group.add(first);
        collect(group, first.events().size(), System.nanoTime() + window);
        write(group);
      } catch (InterruptedException e) {
        // close() gave up waiting: what was taken still gets an answer.
        fail(group, e);
        return;
      } catch (Throwable unexpected) {
        // An OutOfMemoryError from a huge group, say: its deliveries are answered 503 (the
        // platform sends them again) and the writer goes on with the next.
        health.failed("writer", unexpected);
        try {
          fail(group, unexpected);
        } catch (Throwable ignored) {
          // the answers are abandoned; each delivery's own time-out answers it 503
        }
      } finally {
        group.clear();
      }
    }
  }

  /**
   * Adds to the group what is queued and what arrives until {@code deadline} (none without a
   * window), up to {@code maxBatchRows} rows. The writer sleeps through the window and then takes
   * what is queued, rather than waiting on the queue: a writer waiting on the queue is woken by
   * every delivery that arrives, and on a busy core each such wake-up costs a context switch and a
   * turn of the scheduler. The group goes before the window ends when it is full, or when a full
   * group's worth is queued ({@link #submit} then wakes the writers).
   */
  private void collect(List<Pending> group, int rows, long deadline) throws InterruptedException {
    rows = drain(group, rows);
    long left;
    while (rows < s.maxBatchRows && (left = deadline - System.nanoTime()) > 0) {
      if (queuedRows.get() >= s.maxBatchRows - rows) {
        break;
      }
      LockSupport.parkNanos(this, left);
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
    }
    drain(group, rows);
  }

  /** Moves what is queued into the group, up to {@code maxBatchRows} rows; the group's rows. */
  private int drain(List<Pending> group, int rows) {
    Pending next;
    while (rows < s.maxBatchRows && (next = queue.poll()) != null) {
      queuedRows.addAndGet(-next.events().size());
      group.add(next);
      rows += next.events().size();
    }
    return rows;
  }

  /**
   * Stores the group in one statement; on a data error, each delivery alone, so one bad row fails
   * only its own.
   */
  private void write(List<Pending> group) {
    try {
      insert.insert(group);
      outage.worked();
    } catch (SQLException e) {
      String state = e.getSQLState();
      boolean dataError = state != null && (state.startsWith("22") || state.startsWith("23"));
      if (dataError && group.size() > 1) {
        for (Pending p : group) {
          write(List.of(p));
        }
        return;
      }
      if (dataError) {
        log.error("Inbox refused a delivery's events: {}", Outage.describe(e));
      } else {
        outage.failed(e);
      }
      fail(group, e);
    }
  }

  private static void fail(List<Pending> group, Throwable cause) {
    for (Pending p : group) {
      p.done().completeExceptionally(cause);
    }
  }

  /** Refuses new stores; the writers store what is queued, until {@code deadline} at most. */
  void close(long deadline) {
    closed = true;
    for (Thread t : threads) {
      long left = deadline - System.nanoTime();
      try {
        if (left > 0) {
          TimeUnit.NANOSECONDS.timedJoin(t, left);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (t.isAlive()) {
        t.interrupt();
      }
    }
    List<Pending> left = new ArrayList<>();
    queue.drainTo(left);
    fail(left, new RejectedExecutionException("inbox closed before this delivery was stored"));
  }
}
