package io.servicehooks.kafka;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** {@link SourceMeters} on Micrometer; the only class of the source that names Micrometer types. */
final class MicrometerSourceMeters implements SourceMeters {

  private final Counter handled;
  private final Counter duplicate;
  private final Counter retried;
  private final Counter deadLettered;

  MicrometerSourceMeters(MeterRegistry registry, String topic, String groupId) {
    this.handled = counter(registry, topic, groupId, HANDLED);
    this.duplicate = counter(registry, topic, groupId, DUPLICATE);
    this.retried = counter(registry, topic, groupId, RETRIED);
    this.deadLettered = counter(registry, topic, groupId, DEAD_LETTERED);
  }

  private static Counter counter(
      MeterRegistry registry, String topic, String groupId, String outcome) {
    return Counter.builder("webhook.kafka.records")
        .description(
            "Records a Kafka source read: handled, duplicate (done before), retried (a failed"
                + " attempt that will be retried) or dead_lettered")
        .tag("outcome", outcome)
        .tag("topic", topic)
        .tag("group", groupId)
        .register(registry);
  }

  @Override
  public void record(String outcome) {
    switch (outcome) {
      case HANDLED -> handled.increment();
      case DUPLICATE -> duplicate.increment();
      case RETRIED -> retried.increment();
      default -> deadLettered.increment();
    }
  }

  @Override
  public String toString() {
    return "MicrometerSourceMeters";
  }
}
