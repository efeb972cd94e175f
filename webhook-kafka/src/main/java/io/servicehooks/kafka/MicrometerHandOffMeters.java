package io.servicehooks.kafka;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** {@link HandOffMeters} on Micrometer; the only class of the hand-off that names Micrometer. */
final class MicrometerHandOffMeters implements HandOffMeters {

  private final AtomicLong inFlight = new AtomicLong();
  private final Timer acked;
  private final Timer failed;
  private final Timer timeout;

  MicrometerHandOffMeters(MeterRegistry registry) {
    Gauge.builder("webhook.kafka.in.flight", inFlight, AtomicLong::get)
        .description("Records given to the Kafka producer and not yet acknowledged or failed")
        .register(registry);
    acked = timer(registry, "acked");
    failed = timer(registry, "failed");
    timeout = timer(registry, "timeout");
  }

  private static Timer timer(MeterRegistry registry, String outcome) {
    return Timer.builder("webhook.kafka.send")
        .description("One record's send to Kafka, from the producer to the brokers' answer")
        .tag("outcome", outcome)
        .register(registry);
  }

  @Override
  public void sending() {
    inFlight.incrementAndGet();
  }

  @Override
  public void sent(String outcome, long nanos) {
    inFlight.decrementAndGet();
    Timer timer =
        switch (outcome) {
          case "acked" -> acked;
          case "timeout" -> timeout;
          default -> failed;
        };
    timer.record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public String toString() {
    return "MicrometerHandOffMeters";
  }
}
