package io.servicehooks.catchup;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * A replay that {@link CatchUp} asked for, or is about to ask for, as recorded in the {@link
 * HeartbeatStore} before the call, so that a restart finds it instead of asking again.
 *
 * <p>The window is {@code [from, to())}: {@code from} is a whole minute, and the platform's {@code
 * to_date} is the minute of {@code until}, which the replay includes whole, so the window ends at
 * the end of that minute ({@code until} rounded up, and a whole-minute {@code until} plus one
 * minute).
 *
 * @param key the record's own id, the same across retries of the window; stores compare it in
 *     {@link HeartbeatStore#finishJob}
 * @param jobId the platform's job id, or {@code null} before the platform answered (or after a
 *     failed attempt)
 * @param from the start of the window, a whole minute
 * @param until when the gap was measured; the heartbeat moves here when the job completes
 * @param attempt how many times the window was asked for, counting the current ask
 * @param askedAt when the current attempt was asked for
 * @param retryAt when the next attempt is due after a failed one, or {@code null} while an attempt
 *     is under way
 */
public record CatchUpJob(
    String key,
    String jobId,
    Instant from,
    Instant until,
    int attempt,
    Instant askedAt,
    Instant retryAt) {

  /** Checks the required fields. */
  public CatchUpJob {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(until, "until");
    Objects.requireNonNull(askedAt, "askedAt");
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt must be at least 1 but was " + attempt);
    }
  }

  /** The end of the window: the end of the minute of {@code until}, which the replay covers. */
  public Instant to() {
    return floorMinute(until).plus(Duration.ofMinutes(1));
  }

  /** Whether an attempt is under way (asked, or about to be), rather than waiting for a retry. */
  public boolean underWay() {
    return retryAt == null;
  }

  CatchUpJob withJobId(String id) {
    return new CatchUpJob(key, id, from, until, attempt, askedAt, null);
  }

  CatchUpJob retryingAt(Instant at) {
    return new CatchUpJob(key, null, from, until, attempt, askedAt, at);
  }

  CatchUpJob nextAttempt(Instant now) {
    return new CatchUpJob(key, null, from, until, attempt + 1, now, null);
  }

  static Instant floorMinute(Instant t) {
    return t.truncatedTo(ChronoUnit.MINUTES);
  }

  static Instant ceilMinute(Instant t) {
    Instant floor = floorMinute(t);
    return floor.equals(t) ? t : floor.plus(Duration.ofMinutes(1));
  }
}
