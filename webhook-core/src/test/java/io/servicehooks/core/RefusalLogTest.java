package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static io.servicehooks.core.Fixtures.envelope;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.servicehooks.testsupport.FakeClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** WARN lines for unauthenticated refusals are rate-limited per reason; the meters count all. */
final class RefusalLogTest {

  private static final byte[] BODY = envelope("1", "post.create").getBytes(StandardCharsets.UTF_8);
  private static final String WRONG = Fixtures.hmac("not-the-secret", "x");

  private final FakeClock clock = FakeClock.ticker(42);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private WebhookConsumer consumer() {
    return WebhookConsumer.builder()
        .consumerSecrets(SECRET)
        .meterRegistry(registry)
        .refusalLogTicker(clock::nanos)
        .maxBodyBytes(BODY.length)
        .build();
  }

  private double deliveries(String outcome) {
    return registry.get("webhook.deliveries").tag("outcome", outcome).counter().count();
  }

  @Test
  void badSignatures_thousandInOneInstant_logOneLineThenTheSuppressedCount() {
    WebhookConsumer consumer = consumer();
    try (LogCapture logs = new LogCapture()) {
      for (int i = 0; i < 1000; i++) {
        assertThat(consumer.handle(WebhookRequest.post(WRONG, BODY)).join().status())
            .isEqualTo(401);
      }
      assertThat(logs.messages()).hasSize(1);
      assertThat(logs.messages().get(0)).doesNotContain("suppressed");

      clock.advance(Duration.ofSeconds(1));
      consumer.handle(WebhookRequest.post(WRONG, BODY)).join();

      assertThat(logs.messages()).hasSize(2);
      assertThat(logs.messages().get(1))
          .contains("signature matches no configured consumer secret")
          .endsWith("(999 similar refusals suppressed)");
    }
    assertThat(deliveries("invalid_signature")).isEqualTo(1001);
  }

  @Test
  void refusals_differentReasonsInOneInstant_eachLogOnce() {
    WebhookConsumer consumer = consumer();
    try (LogCapture logs = new LogCapture()) {
      for (int i = 0; i < 50; i++) {
        consumer.handle(WebhookRequest.post(WRONG, BODY)).join();
        consumer.handle(WebhookRequest.post(null, BODY)).join();
        consumer.handle(WebhookRequest.post("sha256=!!", BODY)).join();
        consumer.handle(WebhookRequest.post(WRONG, new byte[BODY.length + 1])).join();
        consumer.adapterSupport().unreadableBody();
        consumer.handle(WebhookRequest.get("crc_token=%7B%22data%22")).join();
        consumer.handle(WebhookRequest.get("nonce=1")).join();
      }
      assertThat(logs.messages()).hasSize(7);
    }
    assertThat(deliveries("invalid_signature")).isEqualTo(150);
    assertThat(deliveries("too_large")).isEqualTo(50);
    assertThat(deliveries("unreadable")).isEqualTo(50);
    assertThat(registry.get("webhook.crc").tag("outcome", "rejected").counter().count())
        .isEqualTo(100);
  }

  @Test
  void refusals_clockMovedLessThanTheInterval_stillSuppressed() {
    WebhookConsumer consumer = consumer();
    try (LogCapture logs = new LogCapture()) {
      consumer.handle(WebhookRequest.post(WRONG, BODY)).join();
      clock.advance(Duration.ofMillis(999));
      consumer.handle(WebhookRequest.post(WRONG, BODY)).join();
      assertThat(logs.messages()).hasSize(1);
    }
  }

  @Test
  void refusalLogInterval_zero_logsEveryRefusal() {
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .refusalLogTicker(clock::nanos)
            .refusalLogInterval(Duration.ZERO)
            .build();
    try (LogCapture logs = new LogCapture()) {
      for (int i = 0; i < 5; i++) {
        consumer.handle(WebhookRequest.post(WRONG, BODY)).join();
      }
      assertThat(logs.messages()).hasSize(5);
    }
  }

  @Test
  void refusalLogInterval_negativeOrNull_isRefusedNamingTheValue() {
    assertThatThrownBy(() -> WebhookConsumer.builder().refusalLogInterval(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("refusalLogInterval")
        .hasMessageContaining("PT-1S");
    assertThatThrownBy(() -> WebhookConsumer.builder().refusalLogInterval(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("refusalLogInterval");
  }
}
