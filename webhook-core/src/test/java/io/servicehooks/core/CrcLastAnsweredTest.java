package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * When the consumer last answered a CRC check: the only sign it has that the platform switched its
 * webhook off (it then sends nothing at all).
 */
final class CrcLastAnsweredTest {

  private final AtomicReference<Instant> now =
      new AtomicReference<>(Instant.parse("2026-11-26T10:00:00.250Z"));
  private final Clock clock =
      new Clock() {
        @Override
        public java.time.ZoneId getZone() {
          return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
          return this;
        }

        @Override
        public Instant instant() {
          return now.get();
        }
      };
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final WebhookConsumer consumer =
      WebhookConsumer.builder()
          .consumerSecrets(SECRET)
          .meterRegistry(registry)
          .wallClock(clock)
          .build();

  private double gauge() {
    return registry.get("webhook.crc.last.answered").gauge().value();
  }

  @Test
  void beforeAnyCheck_emptyAndGaugeZero() {
    assertThat(consumer.lastCrcAnswered()).isEmpty();
    assertThat(gauge()).isZero();
    assertThat(registry.get("webhook.crc.last.answered").gauge().getId().getBaseUnit())
        .isEqualTo("seconds");
  }

  @Test
  void answeredCheck_recordsItsTime_refusedOneDoesNot() {
    consumer.handle(WebhookRequest.get("crc_token=abc")).join();
    assertThat(consumer.lastCrcAnswered()).contains(Instant.parse("2026-11-26T10:00:00.250Z"));
    assertThat(gauge()).isEqualTo(Instant.parse("2026-11-26T10:00:00Z").getEpochSecond() + 0.25);

    now.set(Instant.parse("2026-11-26T11:00:00Z"));
    consumer.handle(WebhookRequest.get("crc_token=%7B")).join(); // refused: not a platform token
    consumer.handle(WebhookRequest.get("")).join(); // refused: no token

    assertThat(consumer.lastCrcAnswered()).contains(Instant.parse("2026-11-26T10:00:00.250Z"));

    consumer.handle(WebhookRequest.get("crc_token=def")).join();
    assertThat(consumer.lastCrcAnswered()).contains(Instant.parse("2026-11-26T11:00:00Z"));
    assertThat(gauge()).isEqualTo(Instant.parse("2026-11-26T11:00:00Z").getEpochSecond());
  }
}
