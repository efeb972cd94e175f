package io.servicehooks.core;

import com.github.benmanes.caffeine.cache.Cache;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.cache.CaffeineCacheMetrics;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * {@link Metrics} on Micrometer. Only this class names Micrometer types; it is loaded only when a
 * registry was given. Meters are looked up once and kept, so recording costs a map read and an
 * add.
 */
final class MicrometerMetrics implements Metrics {

  private final MeterRegistry registry;
  private final Map<String, Counter> deliveries = new ConcurrentHashMap<>();
  private final Map<String, Counter> crc = new ConcurrentHashMap<>();
  private final Map<String, Map<String, Counter>> events = new ConcurrentHashMap<>();
  private final Timer latency;

  private MicrometerMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.latency =
        Timer.builder("webhook.delivery.latency")
            .description("Time from a delivery's arrival to its answer")
            .register(registry);
  }

  /** Takes {@code Object} so that callers need not load Micrometer's types to call it. */
  static Metrics create(Object registry, Deduplicator dedup) {
    MicrometerMetrics metrics = new MicrometerMetrics((MeterRegistry) registry);
    if (dedup instanceof InMemoryDeduplicator inMemory) {
      Cache<Object, Boolean> cache = inMemory.cache();
      CaffeineCacheMetrics.monitor(metrics.registry, cache, "webhook.dedup");
    }
    return metrics;
  }

  @Override
  public void delivery(String outcome, long nanos) {
    deliveries
        .computeIfAbsent(
            outcome,
            o ->
                Counter.builder("webhook.deliveries")
                    .description("Deliveries (HTTP POSTs) by outcome")
                    .tag("outcome", o)
                    .register(registry))
        .increment();
    latency.record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void event(String type, String outcome) {
    events
        .computeIfAbsent(type, t -> new ConcurrentHashMap<>())
        .computeIfAbsent(
            outcome,
            o ->
                Counter.builder("webhook.events")
                    .description("Events by current type and outcome")
                    .tag("type", type)
                    .tag("outcome", o)
                    .register(registry))
        .increment();
  }

  @Override
  public void crc(String outcome) {
    crc.computeIfAbsent(
            outcome,
            o ->
                Counter.builder("webhook.crc")
                    .description("Challenge-response checks by outcome")
                    .tag("outcome", o)
                    .register(registry))
        .increment();
  }
}
