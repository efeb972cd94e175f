package io.servicehooks.postgres;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the inbox's own threads do their work: every loop catches what it did not expect (an
 * {@code OutOfMemoryError} from a huge delivery, a bug) and starts over, and reports it here; a
 * watched thread that is gone anyway, or a loop that failed in the last minute, makes {@link
 * PostgresInbox#problem()} say so, and health checks DOWN.
 */
final class InboxHealth {

  private static final Logger log = LoggerFactory.getLogger(PostgresInbox.class);

  /** How long an unexpected failure of a loop keeps the inbox unhealthy. */
  static final long RECENT_NANOS = TimeUnit.SECONDS.toNanos(60);

  private final List<Thread> watched = new CopyOnWriteArrayList<>();
  private final AtomicReference<String> lastFailure = new AtomicReference<>();
  private final AtomicLong lastFailureAt = new AtomicLong();
  private volatile boolean closed;

  void watch(Thread thread) {
    watched.add(thread);
  }

  /**
   * A loop met {@code failure} and starts over. Never throws: with the heap exhausted even the log
   * line may fail, and the loop must still go on.
   */
  void failed(String loop, Throwable failure) {
    try {
      lastFailure.set(loop + " failed: " + failure.getClass().getName());
      lastFailureAt.set(System.nanoTime());
      log.error("Inbox {} failed and starts over", loop, failure);
    } catch (Throwable ignored) {
      // nothing more can be done here; the loop goes on
    }
  }

  void closed() {
    closed = true;
  }

  /** Why the inbox cannot do its work now, or empty. */
  Optional<String> problem() {
    if (closed) {
      return Optional.of("the inbox is closed");
    }
    for (Thread t : watched) {
      if (t.getState() != Thread.State.NEW && !t.isAlive()) {
        return Optional.of("inbox thread " + t.getName() + " is gone");
      }
    }
    String failure = lastFailure.get();
    if (failure != null) {
      long ago = System.nanoTime() - lastFailureAt.get();
      if (ago < RECENT_NANOS) {
        return Optional.of(
            "inbox " + failure + " " + TimeUnit.NANOSECONDS.toSeconds(ago) + " s ago");
      }
    }
    return Optional.empty();
  }
}
