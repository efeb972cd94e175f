package io.servicehooks.stream;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gap bookkeeping: remembers the last byte received and the earliest event the consumer did not
 * take, turns the gap into the next connect's {@code backfill_minutes}, tells which lines a
 * backfill will bring again, and reports a gap beyond the backfill reach. Not thread-safe: the
 * stream calls it holding its lock ({@link #reportGap} excepted, which reads no field that
 * changes).
 */
final class Backfill {

  /** No byte yet (a fresh process does not know its gap). */
  static final long NEVER = Long.MIN_VALUE;

  private static final Logger log = LoggerFactory.getLogger(ActivityStream.class);

  private final int setting;
  private final boolean webhookCatchUp;
  private final StreamMetrics metrics;

  private long lastByteNanos = NEVER;
  private long earliestNotTakenNanos = Long.MAX_VALUE;
  // What the open connection asked again from (NEVER on a first connect): an event it brings may
  // be that old, so a refusal of it must not move the next ask later than this.
  private long connectionAskedFromNanos = NEVER;
  private long discardBelow; // lines of connections below this number are covered by a backfill

  Backfill(int setting, boolean webhookCatchUp, StreamMetrics metrics) {
    this.setting = setting;
    this.webhookCatchUp = webhookCatchUp;
    this.metrics = metrics;
  }

  long lastByteNanos() {
    return lastByteNanos;
  }

  /** A byte arrived (or a connection opened) at {@code now}. */
  void byteReceived(long now) {
    lastByteNanos = now;
  }

  /** Where the next connect asks again from: the last byte, or the first event not taken. */
  long askFrom() {
    return Math.min(lastByteNanos, earliestNotTakenNanos);
  }

  /** Minutes the next connect asks again ({@code backfill_minutes}). */
  int minutesToAsk(long now) {
    if (lastByteNanos == NEVER) {
      return setting; // a fresh process does not know its gap: the whole reach
    }
    long gap = now - askFrom();
    // At least one minute: events may have been sent between the last byte and the drop.
    long minutes = Math.max(1, minutesRoundedUp(gap));
    return (int) Math.min(minutes, setting);
  }

  /**
   * A connect that asked from {@code askedFrom} opened at {@code now}. Returns true when an event
   * the consumer refused meanwhile is older than that ask: the connection must end at once and ask
   * from that event.
   */
  boolean connected(long askedFrom, long now) {
    connectionAskedFromNanos = askedFrom;
    boolean missed = earliestNotTakenNanos < askedFrom;
    if (!missed) {
      earliestNotTakenNanos = Long.MAX_VALUE;
    }
    lastByteNanos = now;
    return missed;
  }

  /**
   * The consumer could not take an event that arrived at {@code arrivedNanos} on connection {@code
   * lineConnection} ({@code openConnection} is the current one): the next ask reaches back to it,
   * and the rest of that connection's lines are left to the backfill.
   */
  void notTaken(long arrivedNanos, long lineConnection, long openConnection) {
    long from = arrivedNanos;
    if (lineConnection == openConnection && connectionAskedFromNanos != NEVER) {
      // A backfilled event refused again: it happened before it arrived, as early as the ask.
      from = Math.min(from, connectionAskedFromNanos);
    }
    earliestNotTakenNanos = Math.min(earliestNotTakenNanos, from);
    // The rest of that connection's lines come again with the backfill; later connections'
    // lines still go to the consumer (a refusal among them ends their connection in turn).
    discardBelow = Math.max(discardBelow, lineConnection + 1);
  }

  /** Whether a line of connection {@code lineConnection} will come again with a backfill. */
  boolean covered(long lineConnection) {
    return lineConnection < discardBelow;
  }

  /** One WARN line (and the meter) when the gap since {@code resumeFrom} is beyond the reach. */
  void reportGap(long resumeFrom, int backfill, long now, Supplier<Instant> wallClock) {
    if (resumeFrom == NEVER) {
      return;
    }
    long gap = now - resumeFrom;
    long reach = TimeUnit.MINUTES.toNanos(backfill);
    if (backfill >= minutesRoundedUp(gap)) {
      return;
    }
    long unrecovered = minutesRoundedUp(gap - reach);
    Instant wallNow = wallClock.get();
    Instant from = wallNow.minusNanos(gap).truncatedTo(ChronoUnit.SECONDS);
    Instant to = wallNow.minusNanos(reach).truncatedTo(ChronoUnit.SECONDS);
    metrics.unrecovered(unrecovered);
    log.warn(
        "Activity stream gap of {} minutes is beyond the backfill reach of {} minutes: events"
            + " between {} and {} were not received on the stream{}",
        minutesRoundedUp(gap),
        backfill,
        from,
        to,
        webhookCatchUp
            ? "; the webhook's catch-up replay will cover them"
            : "; only a webhook replay (POST /2/webhooks/replay, last 24 h) brings them back");
  }

  static long minutesRoundedUp(long nanos) {
    long minute = TimeUnit.MINUTES.toNanos(1);
    return nanos <= 0 ? 0 : (nanos + minute - 1) / minute;
  }
}
