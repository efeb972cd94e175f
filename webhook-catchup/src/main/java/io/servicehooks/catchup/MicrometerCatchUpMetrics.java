package io.servicehooks.catchup;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** The counters in a Micrometer registry; only loaded when one is given. */
final class MicrometerCatchUpMetrics implements CatchUpMetrics {

  private final Counter asked;
  private final Counter completed;
  private final Counter failed;
  private final Counter unhealable;

  MicrometerCatchUpMetrics(MeterRegistry registry) {
    this.asked =
        Counter.builder("webhook.catchup.replays.asked")
            .description("Replay jobs the platform accepted for catch-up")
            .register(registry);
    this.completed =
        Counter.builder("webhook.catchup.replays.completed")
            .description("Catch-up replay jobs reported Complete")
            .register(registry);
    this.failed =
        Counter.builder("webhook.catchup.replays.failed")
            .description(
                "Catch-up replay attempts that did not complete (Incomplete, conflict, refused, unreachable, no status)")
            .register(registry);
    this.unhealable =
        Counter.builder("webhook.catchup.minutes.unhealable")
            .description("Minutes of downtime older than the platform's replay reach")
            .baseUnit("minutes")
            .register(registry);
  }

  @Override
  public void asked() {
    asked.increment();
  }

  @Override
  public void completed() {
    completed.increment();
  }

  @Override
  public void failed() {
    failed.increment();
  }

  @Override
  public void unhealable(long minutes) {
    unhealable.increment(minutes);
  }
}
