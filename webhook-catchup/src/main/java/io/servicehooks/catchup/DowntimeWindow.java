package io.servicehooks.catchup;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The window arithmetic of {@link CatchUp}: when a heartbeat is old enough to be a gap, where the
 * replay of a gap starts (the safety margin before it, in whole minutes, no further back than the
 * platform's reach), and how a window is written in the log.
 */
final class DowntimeWindow {

  private static final Logger log = LoggerFactory.getLogger(CatchUp.class);

  private static final DateTimeFormatter REQUEST_MINUTE =
      DateTimeFormatter.ofPattern("yyyyMMddHHmm", Locale.ROOT).withZone(ZoneOffset.UTC);

  private final Duration threshold;
  private final Duration margin;
  private final Duration reach;

  DowntimeWindow(Duration threshold, Duration margin, Duration reach) {
    this.threshold = threshold;
    this.margin = margin;
    this.reach = reach;
  }

  /** Whether nothing since {@code heartbeat} for longer than the gap threshold is a gap. */
  boolean gap(Instant heartbeat, Instant now) {
    return now.isAfter(heartbeat.plus(threshold));
  }

  /**
   * Whether this instance itself answered from {@code heartbeat} to now without a pause (the
   * heartbeat lagged only because a job held it): no downtime to heal.
   */
  boolean answeredThrough(Instant servingSince, Instant lastCheck, Instant heartbeat, Instant now) {
    return servingSince != null
        && !servingSince.isAfter(heartbeat)
        && lastCheck != null
        && !gap(lastCheck, now);
  }

  /**
   * Where the replay of downtime since {@code since} starts: the safety margin before it, floored
   * to the minute, and no further back than the replay reach; the part out of reach is logged at
   * WARN and counted.
   */
  Instant from(Instant since, Instant now, String webhookId, CatchUpMetrics metrics) {
    Instant from = CatchUpJob.floorMinute(since.minus(margin));
    Instant reachable = CatchUpJob.ceilMinute(now.minus(reach));
    if (from.isBefore(reachable)) {
      long minutes = Duration.between(from, reachable).toMinutes();
      log.warn(
          "Catch-up cannot heal {} minutes of downtime for webhook {}, from {} to {}: the platform"
              + " replays only the last {}",
          minutes,
          webhookId,
          from,
          reachable,
          reach);
      metrics.unhealable(minutes);
      from = reachable;
    }
    return from;
  }

  /**
   * The window as the replay request carries it, so that log and request show the same end: the
   * platform replays from {@code from_date}'s minute through {@code to_date}'s minute, whole.
   */
  static String describe(CatchUpJob job) {
    return "from_date "
        + REQUEST_MINUTE.format(job.from())
        + " to_date "
        + REQUEST_MINUTE.format(CatchUpJob.floorMinute(job.until()))
        + " (through "
        + job.to()
        + ")";
  }
}
