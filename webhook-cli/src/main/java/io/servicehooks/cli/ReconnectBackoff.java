package io.servicehooks.cli;

import java.net.http.HttpResponse;
import java.time.Clock;
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

  Duration afterRateLimit(HttpResponse<?> response) {
    Duration wait =
        capped(Duration.ofMinutes(1).multipliedBy(1L << Math.min(rateLimited++, 6)), 3600);
    String reset = response.headers().firstValue("x-rate-limit-reset").orElse(null);
    if (reset != null) {
      try {
        Duration untilReset =
            Duration.between(clock.instant(), Instant.ofEpochSecond(Long.parseLong(reset.trim())));
        if (untilReset.compareTo(wait) > 0 && untilReset.toHours() < 24) {
          wait = untilReset;
        }
      } catch (NumberFormatException e) {
        // not unix seconds: the doubling wait stands
      }
    }
    return wait;
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
