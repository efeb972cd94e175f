package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/**
 * In durable mode the inbox table is the dedup, so the meters of the dedup gate and of the
 * in-memory store (which could never move) are not registered; the other modes keep them.
 */
final class DurableMetersTest {

  private static boolean anyDedupMeter(SimpleMeterRegistry registry) {
    return registry.getMeters().stream()
        .map(Meter::getId)
        .anyMatch(
            id ->
                id.getName().startsWith("webhook.dedup.")
                    || id.getName().equals("webhook.duplicates.waiting")
                    || "webhook.dedup".equals(id.getTag("cache")));
  }

  @Test
  void durable_noDedupMeters() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    WebhookConsumer.builder()
        .consumerSecrets(SECRET)
        .meterRegistry(registry)
        .acknowledgement(Acknowledgement.DURABLE)
        .inbox(new DurableAcknowledgementTest.MapInbox())
        .build();

    assertThat(anyDedupMeter(registry)).isFalse();
    assertThat(registry.find("webhook.delivery.latency").timer()).isNotNull();
  }

  @Test
  void synchronous_dedupMetersRegistered() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    WebhookConsumer.builder().consumerSecrets(SECRET).meterRegistry(registry).build();

    assertThat(registry.find("webhook.dedup.running.elsewhere").counter()).isNotNull();
    assertThat(registry.find("webhook.duplicates.waiting").gauge()).isNotNull();
    assertThat(anyDedupMeter(registry)).isTrue();
  }
}
