package io.servicehooks.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The simulator's time: a base clock the test may supply plus an offset moved by {@code advance}.
 */
final class SimClock {

  private final Clock base;
  private final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);

  SimClock(Clock base) {
    this.base = base;
  }

  Instant now() {
    return base.instant().plus(offset.get());
  }

  void advance(Duration by) {
    offset.accumulateAndGet(by, Duration::plus);
  }
}
