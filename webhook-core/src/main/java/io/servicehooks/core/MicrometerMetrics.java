package io.servicehooks.core;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Metrics} on Micrometer, made by {@link MicrometerBinder}: loaded only when a registry was
 * given. Meters are looked up once and kept, so recording costs a map read and an add.
 *
 * <p>The {@code type} tag takes at most {@link WebhookConsumer#MAX_TYPE_TAGS} values; types first
 * seen after that count under {@link WebhookConsumer#OTHER_TYPE_TAG}.
 */
final class MicrometerMetrics implements Metrics {

  // Logs under the consumer's name, as the other steps do: users' log configuration names it.
  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);

  private final MeterRegistry registry;
  private final Map<String, Counter> deliveries = new ConcurrentHashMap<>();
  private final Map<String, Counter> crc = new ConcurrentHashMap<>();
  private final Map<String, EventCounters> events = new ConcurrentHashMap<>();
  private final int maxTypeTags;
  private volatile EventCounters other; // made when the cap is first reached
  private final Timer latency;
  // The outcomes nearly every request ends in, looked up once.
  private final Counter accepted;
  private final Counter crcAnswered;
  private final Map<String, Timer> storeCalls = new ConcurrentHashMap<>();
  private final Counter runningElsewhere;
  private final Counter leaseExpired;
  private final Counter claimLost;
  private final Counter failOpen;

  MicrometerMetrics(MeterRegistry registry) {
    this(registry, WebhookConsumer.MAX_TYPE_TAGS);
  }

  MicrometerMetrics(MeterRegistry registry, int maxTypeTags) {
    this.registry = registry;
    this.maxTypeTags = maxTypeTags;
    this.latency =
        Timer.builder("webhook.delivery.latency")
            .description("Time from a delivery's arrival to its answer")
            .register(registry);
    this.accepted = deliveryCounter("accepted");
    this.crcAnswered = crcCounter("answered");
    this.runningElsewhere =
        Counter.builder("webhook.dedup.running.elsewhere")
            .description("Claims that found their event running on another instance")
            .register(registry);
    this.leaseExpired =
        Counter.builder("webhook.dedup.lease.expired")
            .description(
                "Events whose dedup lease ran out before they were marked done (possible double"
                    + " processing)")
            .register(registry);
    this.claimLost =
        Counter.builder("webhook.dedup.claim.lost")
            .description(
                "Claims the dedup store no longer held while their lease still ran: the store"
                    + " evicted or lost the key (possible double processing)")
            .register(registry);
    this.failOpen =
        Counter.builder("webhook.dedup.fail.open")
            .description("Events run without dedup because the dedup store failed (failOpen)")
            .register(registry);
  }

  @Override
  public void storeCall(String operation, String outcome, long nanos) {
    storeCalls
        .computeIfAbsent(
            operation + ' ' + outcome,
            k ->
                Timer.builder("webhook.dedup.store")
                    .description("Calls to a dedup store that may block, by operation and outcome")
                    .tag("operation", operation)
                    .tag("outcome", outcome)
                    .register(registry))
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void runningElsewhere() {
    runningElsewhere.increment();
  }

  @Override
  public void leaseExpired() {
    leaseExpired.increment();
  }

  @Override
  public void claimLost() {
    claimLost.increment();
  }

  @Override
  public void failOpen() {
    failOpen.increment();
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
      // Once the cap is reached no type is added again, so the lock is no longer needed.
      EventCounters overflow = other;
      counters = overflow != null ? overflow : newType(type);
    }
    counters.get(outcome).increment();
  }

  /** A type not seen yet: its own counters while under the cap, else the shared "other" ones. */
  private synchronized EventCounters newType(String type) {
    EventCounters counters = events.get(type);
    if (counters != null) {
      return counters;
    }
    if (events.size() < maxTypeTags) {
      counters = new EventCounters(type);
      events.put(type, counters);
      return counters;
    }
    if (other == null) {
      log.warn(
          "webhook.events has {} distinct type tags: types first seen from now on count under"
              + " type={}",
          maxTypeTags,
          WebhookConsumer.OTHER_TYPE_TAG);
      other = new EventCounters(WebhookConsumer.OTHER_TYPE_TAG);
    }
    return other;
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
