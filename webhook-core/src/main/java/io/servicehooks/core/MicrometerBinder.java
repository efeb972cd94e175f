package io.servicehooks.core;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@link MetricsBinder} on a Micrometer registry. With {@link MicrometerMetrics}, the only class
 * that names Micrometer types; loaded only when the user gives the builder a registry.
 */
final class MicrometerBinder implements MetricsBinder {

  private final MeterRegistry registry;

  MicrometerBinder(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public Metrics metrics(DedupGate gate) {
    if (gate == null) {
      return new MicrometerMetrics(registry, WebhookConsumer.MAX_TYPE_TAGS, false);
    }
    Gauge.builder("webhook.duplicates.waiting", gate, DedupGate::waiting)
        .description("Duplicates waiting for their original, still running in this process")
        .register(registry);
    return new MicrometerMetrics(registry);
  }

  @Override
  public void crcLastAnswered(java.util.function.DoubleSupplier epochSeconds) {
    Gauge.builder("webhook.crc.last.answered", epochSeconds::getAsDouble)
        .description(
            "When a CRC check was last answered, in seconds since the epoch (0: none since start);"
                + " the platform checks hourly and switches a webhook off that fails")
        .baseUnit("seconds")
        .strongReference(true)
        .register(registry);
  }

  @Override
  public void cache(String name, InMemoryDeduplicator store) {
    new DedupCacheMetrics(store, name).bindTo(registry);
  }

  @Override
  public String toString() {
    return "MicrometerBinder[" + registry.getClass().getSimpleName() + "]";
  }
}
