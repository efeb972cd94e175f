package io.servicehooks.postgres;

import io.servicehooks.core.InboxProcessor;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process step, on a worker thread: runs one leased row's listeners outside any transaction,
 * queues a success for the {@link DoneMarker}, and records a failure (a retry after back-off, or a
 * dead letter) with one statement of its own.
 */
final class RowProcessing {

  private static final Logger log = LoggerFactory.getLogger(PostgresInbox.class);

  /** How often a row skipped for having waited too long is logged at WARN (others at DEBUG). */
  private static final long LATE_WARNING_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final PostgresInbox.Settings s;
  private final DoneMarker marker;
  private final Outage marking;
  private final long halfLeaseNanos;
  private final AtomicLong listenerNanos = new AtomicLong();
  private final AtomicLong lastLateWarning = new AtomicLong();
  private InboxProcessor processor; // set before the workers start
  private volatile boolean crashed;

  RowProcessing(PostgresInbox.Settings s, DoneMarker marker, Outage marking, long leaseNanos) {
    this.s = s;
    this.marker = marker;
    this.marking = marking;
    this.halfLeaseNanos = leaseNanos / 2;
    this.lastLateWarning.set(System.nanoTime() - 2 * LATE_WARNING_NANOS);
  }

  void start(InboxProcessor processor) {
    this.processor = processor;
  }

  /** The listeners' running average, in nanoseconds; 0 before the first row ran. */
  long averageListenerNanos() {
    return listenerNanos.get();
  }

  /** Tests: as a killed process, records no outcome from now on. */
  void crash() {
    crashed = true;
  }

  /** Runs the row's listeners and records the outcome. */
  void handle(Workers.Claimed row) {
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
      record(row, Workers.describe(failure), nanos);
    }
    if (failure instanceof VirtualMachineError vmError) {
      throw vmError;
    }
  }

  private void late(Workers.Claimed row, long waitedNanos) {
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

  private void record(Workers.Claimed row, String error, long nanos) {
    long delay = s.backoffMillis(row.attempts(), ThreadLocalRandom.current().nextDouble());
    try (Connection c = s.dataSource.getConnection()) {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      try (PreparedStatement st = c.prepareStatement(s.tables.markFailed)) {
        st.setQueryTimeout(s.timeoutSeconds());
        st.setInt(1, s.maxAttempts);
        st.setInt(2, s.maxAttempts);
        st.setLong(3, delay);
        st.setString(4, error);
        st.setLong(5, row.id());
        st.setInt(6, row.attempts());
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
            deadLettered(
                new DeadLetter(
                    row.id(), row.event().id(), row.event().type(), row.attempts(), error));
          } else {
            s.meters.processed("retry", nanos);
            log.warn(
                "Inbox row {} ({} event {}) failed attempt {} of {}: {}; next attempt at {} (in {})",
                row.id(),
                row.event().type(),
                row.event().id(),
                row.attempts(),
                s.maxAttempts,
                error,
                java.time.Instant.now().plusMillis(delay),
                Duration.ofMillis(delay));
          }
        }
      }
      marking.worked();
    } catch (SQLException | RuntimeException e) {
      marking.failed(e);
    }
  }

  private void deadLettered(DeadLetter letter) {
    for (DeadLetterListener listener : s.deadLetterListeners) {
      try {
        listener.deadLettered(letter);
      } catch (RuntimeException e) {
        log.warn("Dead-letter listener failed on inbox row {}", letter.id(), e);
      }
    }
  }
}
