package io.servicehooks.core;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * {@link Metrics} on Micrometer, made by {@link MicrometerBinder}: loaded only when a registry was
 * given. Meters are looked up once and kept, so recording costs a map read and an add.
 */
final class MicrometerMetrics implements Metrics {

  private final MeterRegistry registry;
  private final Map<String, Counter> deliveries = new ConcurrentHashMap<>();
  private final Map<String, Counter> crc = new ConcurrentHashMap<>();
  private final Map<String, EventCounters> events = new ConcurrentHashMap<>();
  private final Timer latency;
  // The outcomes nearly every request ends in, looked up once.
  private final Counter accepted;
  private final Counter crcAnswered;

  MicrometerMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.latency =
        Timer.builder("webhook.delivery.latency")
            .description("Time from a delivery's arrival to its answer")
            .register(registry);
    this.accepted = deliveryCounter("accepted");
    this.crcAnswered = crcCounter("answered");
  }

  @Override
  public void delivery(String outcome, long nanos) {
    (outcome.equals("accepted") ? accepted : deliveryCounter(outcome)).increment();
    latency.record(nanos, TimeUnit.NANOSECONDS);
  }

  private Counter deliveryCounter(String outcome) {
    return deliveries.computeIfAbsent(
        outcome,
        o ->
            Counter.builder("webhook.deliveries")
                .description("Deliveries (HTTP POSTs) by outcome")
                .tag("outcome", o)
                .register(registry));
  }

  @Override
  public void event(String type, String outcome) {
    EventCounters counters = events.get(type);
    if (counters == null) {
      counters = events.computeIfAbsent(type, EventCounters::new);
    }
    counters.get(outcome).increment();
  }

  @Override
  public void crc(String outcome) {
    (outcome.equals("answered") ? crcAnswered : crcCounter(outcome)).increment();
  }

  private Counter crcCounter(String outcome) {
    return crc.computeIfAbsent(
        outcome,
        o ->
            Counter.builder("webhook.crc")
                .description("Challenge-response checks by outcome")
                .tag("outcome", o)
                .register(registry));
  }

  /** One type's counters; "dispatched" kept in a field, the rarer outcomes in a small map. */
  private final class EventCounters {
    private final String type;
    private final Map<String, Counter> others = new ConcurrentHashMap<>(4);
    private volatile Counter dispatched; // registered on first use, like the others

    EventCounters(String type) {
      this.type = type;
    }

    Counter get(String outcome) {
      if (!outcome.equals("dispatched")) {
        return others.computeIfAbsent(outcome, this::register);
      }
      Counter c = dispatched;
      if (c == null) {
        c = others.computeIfAbsent(outcome, this::register);
        dispatched = c;
      }
      return c;
    }

    private Counter register(String outcome) {
      return Counter.builder("webhook.events")
          .description("Events by current type and outcome")
          .tag("type", type)
          .tag("outcome", outcome)
          .register(registry);
    }
  }
}
