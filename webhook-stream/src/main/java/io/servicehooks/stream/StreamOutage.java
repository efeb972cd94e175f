package io.servicehooks.stream;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outage bookkeeping: since when the stream is down (for {@link ActivityStream#healthy()}), how
 * many connects an outage took, and its log lines: one WARN when it starts, DEBUG for each further
 * attempt, one INFO when it ends; never a WARN per attempt. Not thread-safe: the stream calls it
 * holding its lock.
 */
final class StreamOutage {

  private static final Logger log = LoggerFactory.getLogger(ActivityStream.class);

  /** An outage that ended: logged by {@link #log()}, outside the stream's lock. */
  record Ended(long downForNanos, int attempts) {
    void log() {
      log.info(
          "Activity stream outage ended after {} ms and {} connect attempts",
          TimeUnit.NANOSECONDS.toMillis(downForNanos),
          attempts);
    }
  }

  private long downSinceNanos;
  private boolean logged; // an outage WARN was logged and its end not yet
  private int attempts;

  /** The stream went down (started, or lost its connection) at {@code now}. */
  void down(long now) {
    downSinceNanos = now;
    attempts = 0;
  }

  long downSinceNanos() {
    return downSinceNanos;
  }

  /** A connect is being tried. */
  void attempt() {
    attempts++;
  }

  /** A connect succeeded; a connection that drops without an outage starts counting afresh. */
  void connected() {
    if (!logged) {
      attempts = 0;
    }
  }

  /** The stream is (still) down because of {@code what}; the next connect in {@code wait}. */
  void failed(String what, Duration wait) {
    if (!logged) {
      logged = true;
      log.warn(
          "Activity stream down: {}; reconnecting in {} ms, then by the platform's back-off",
          what,
          wait.toMillis());
    } else {
      log.debug("Activity stream still down: {}; next attempt in {} ms", what, wait.toMillis());
    }
  }

  /** The outage that a successful connect ends, or null when none was logged. */
  Ended end(long now) {
    if (!logged) {
      return null;
    }
    logged = false;
    Ended ended = new Ended(now - downSinceNanos, attempts);
    attempts = 0;
    return ended;
  }
}
