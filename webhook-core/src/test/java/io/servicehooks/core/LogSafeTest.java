package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static io.servicehooks.core.Fixtures.envelope;
import static io.servicehooks.core.Fixtures.signed;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import org.junit.jupiter.api.Test;

/** Values taken from a payload never reach a log line with their control characters intact. */
final class LogSafeTest {

  @Test
  void escape_controlCharacters_becomeVisibleEscapes() {
    assertThat(LogSafe.escape("1876\nINFO forged")).isEqualTo("1876\\nINFO forged");
    assertThat(LogSafe.escape("a\rb\tc")).isEqualTo("a\\rb\\tc");
    assertThat(LogSafe.escape("a\u0000b\u001bc\u007fd\u0085e\u2028f"))
        .isEqualTo("a\\u0000b\\u001bc\\u007fd\\u0085e\\u2028f");
    assertThat(LogSafe.escape("back\\slash")).isEqualTo("back\\\\slash");
  }

  @Test
  void escape_plainValue_isReturnedAsIs() {
    String plain = "post.create 9b2bc4f0-1c1e-4d3f-8a7b-0123456789ab \u00e9\u2603";
    assertThat(LogSafe.escape(plain)).isSameAs(plain);
    assertThat(LogSafe.escape(null)).isEqualTo("null");
  }

  @Test
  void defaultErrorHandler_eventIdWithNewline_logsOneEscapedLine() {
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .on(
                "post.create",
                e -> {
                  throw new IllegalStateException("listener broke");
                })
            .build();
    String forged = "1876\\nERROR io.servicehooks - forged line";
    try (LogCapture logs = new LogCapture()) {
      WebhookResponse r = consumer.handle(signed(SECRET, envelope(forged, "post.create"))).join();
      assertThat(r.status()).isEqualTo(500);

      assertThat(logs.messages(Level.ERROR)).hasSize(1);
      String line = logs.messages(Level.ERROR).get(0);
      assertThat(line).doesNotContain("\n").contains("event 1876\\nERROR io.servicehooks");
    }
  }

  @Test
  void malformedDelivery_arrayNameWithNewline_logsItEscaped() {
    WebhookConsumer consumer = WebhookConsumer.builder().consumerSecrets(SECRET).build();
    String body = "{\"for_user_id\":\"1\",\"a\\nWARN forged_events\":{}}";
    try (LogCapture logs = new LogCapture()) {
      WebhookResponse r = consumer.handle(signed(SECRET, body)).join();
      assertThat(r.status()).isEqualTo(400);

      assertThat(logs.messages()).hasSize(1);
      assertThat(logs.messages().get(0)).doesNotContain("\n").contains("a\\nWARN forged_events");
    }
  }

  @Test
  void malformedDelivery_itemTypeWithControlCharacter_logsItEscaped() {
    WebhookConsumer consumer = WebhookConsumer.builder().consumerSecrets(SECRET).build();
    String body = "{\"for_user_id\":\"1\",\"follow_events\":[{\"type\":\"x\\r\\u001b[2J\"}]}";
    try (LogCapture logs = new LogCapture()) {
      consumer.handle(signed(SECRET, body)).join();

      assertThat(logs.messages()).hasSize(1);
      assertThat(logs.messages().get(0))
          .doesNotContain("\r")
          .doesNotContain("\u001b")
          .contains("x\\r\\u001b[2J");
    }
  }

  @Test
  void failingErrorHandler_eventIdWithNewline_logsItEscaped() {
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .on(
                "post.create",
                e -> {
                  throw new IllegalStateException("listener broke");
                })
            .onError(
                (e, t) -> {
                  throw new IllegalStateException("handler broke");
                })
            .build();
    try (LogCapture logs = new LogCapture()) {
      consumer.handle(signed(SECRET, envelope("1\\nforged", "post.create"))).join();

      assertThat(logs.messages(Level.ERROR))
          .singleElement()
          .satisfies(line -> assertThat(line).doesNotContain("\n").contains("event 1\\nforged"));
    }
  }

  @Test
  void failingStore_eventIdWithNewline_logsItEscaped() {
    TestStore broken = new TestStore();
    broken.claimOverride = key -> TestStore.failure("store down");
    WebhookConsumer consumer =
        WebhookConsumer.builder().consumerSecrets(SECRET).deduplicator(broken).build();
    try (LogCapture logs = new LogCapture()) {
      consumer.handle(signed(SECRET, envelope("1\\nforged", "post.create"))).join();

      assertThat(logs.messages(Level.WARN))
          .anySatisfy(line -> assertThat(line).contains("Dedup store failed"))
          .allSatisfy(line -> assertThat(line).doesNotContain("\n"));
    }
  }
}
