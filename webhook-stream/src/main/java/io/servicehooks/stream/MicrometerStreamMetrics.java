package io.servicehooks.stream;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** {@link StreamMetrics} in a Micrometer registry; loaded only when one is given. */
final class MicrometerStreamMetrics implements StreamMetrics {

  private final MeterRegistry registry;
  private final AtomicInteger connected = new AtomicInteger();
  private final Counter events;
  private final DistributionSummary backfill;
  private final Counter unrecovered;
  private final Map<String, Counter> reconnects = new ConcurrentHashMap<>();

  MicrometerStreamMetrics(MeterRegistry registry) {
    this.registry = registry;
    Gauge.builder("webhook.stream.connected", connected, AtomicInteger::get)
        .description("1 while the activity stream is connected, else 0")
        .register(registry);
    this.events =
        Counter.builder("webhook.stream.events")
            .description("Event lines received on the activity stream")
            .register(registry);
    this.backfill =
        DistributionSummary.builder("webhook.stream.backfill.minutes")
            .description("Minutes of events asked again (backfill_minutes) per connect")
            .baseUnit("minutes")
            .register(registry);
    this.unrecovered =
        Counter.builder("webhook.stream.minutes.unrecovered")
            .description("Minutes of stream gaps longer than the backfill reach")
            .baseUnit("minutes")
            .register(registry);
    for (String cause : ActivityStream.RECONNECT_CAUSES) {
      reconnects.put(cause, reconnectCounter(cause));
    }
  }

  private Counter reconnectCounter(String cause) {
    return Counter.builder("webhook.stream.reconnects")
        .description("Reconnects of the activity stream, by cause")
        .tag("cause", cause)
        .register(registry);
  }

  @Override
  public void connected(boolean up) {
    connected.set(up ? 1 : 0);
  }

  @Override
  public void reconnect(String cause) {
    reconnects.computeIfAbsent(cause, this::reconnectCounter).increment();
  }

  @Override
  public void event() {
    events.increment();
  }

  @Override
  public void backfill(int minutes) {
    backfill.record(minutes);
  }

  @Override
  public void unrecovered(long minutes) {
    unrecovered.increment(minutes);
  }

  @Override
  public String toString() {
    return "MicrometerStreamMetrics[" + registry.getClass().getSimpleName() + "]";
  }
}
