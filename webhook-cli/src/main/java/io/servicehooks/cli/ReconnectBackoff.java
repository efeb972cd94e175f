package io.servicehooks.cli;

import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The platform's reconnect back-off for the activity stream: +250 ms per network failure up to 16
 * s, 5 s doubling up to 320 s on HTTP errors, 60 s doubling (up to an hour) on 429 or until {@code
 * x-rate-limit-reset}; every wait gets up to 10% jitter. A good connection resets it.
 */
final class ReconnectBackoff {

  private final Clock clock;
  private int networkFailures;
  private int httpFailures;
  private int rateLimited;

  ReconnectBackoff(Clock clock) {
    this.clock = clock;
  }

  /** After a connection the platform accepted: the next failure starts from the first wait. */
  void reset() {
    networkFailures = 0;
    httpFailures = 0;
    rateLimited = 0;
  }

  Duration afterNetworkFailure() {
    return capped(Duration.ofMillis(250L * ++networkFailures), 16);
  }

  Duration afterHttpError() {
    return capped(Duration.ofSeconds(5).multipliedBy(1L << Math.min(httpFailures++, 6)), 320);
  }

  /**
   * The wait after a 429: 60 s doubling, or until {@code resetHeader} (unix seconds) when that is
   * later and within a day. A reset that is not such a time (absent, not a number, beyond any
   * clock, past) is ignored.
   */
  Duration afterRateLimit(String resetHeader) {
    Duration wait =
        capped(Duration.ofMinutes(1).multipliedBy(1L << Math.min(rateLimited++, 6)), 3600);
    Duration untilReset = untilReset(resetHeader);
    if (untilReset != null && untilReset.compareTo(wait) > 0 && untilReset.toHours() < 24) {
      wait = untilReset;
    }
    return wait;
  }

  private Duration untilReset(String resetHeader) {
    if (resetHeader == null) {
      return null;
    }
    try {
      long epochSeconds = Long.parseLong(resetHeader.trim());
      if (epochSeconds < 0 || epochSeconds > Instant.MAX.getEpochSecond()) {
        return null;
      }
      return Duration.between(clock.instant(), Instant.ofEpochSecond(epochSeconds));
    } catch (NumberFormatException | DateTimeException | ArithmeticException e) {
      return null;
    }
  }

  static Duration jitter(Duration wait) {
    long millis = wait.toMillis();
    return Duration.ofMillis(millis + ThreadLocalRandom.current().nextLong(millis / 10 + 1));
  }

  private static Duration capped(Duration wait, long maxSeconds) {
    return wait.compareTo(Duration.ofSeconds(maxSeconds)) > 0
        ? Duration.ofSeconds(maxSeconds)
        : wait;
  }
}
