package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static io.servicehooks.core.Fixtures.envelope;
import static io.servicehooks.core.Fixtures.signed;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A dedup store outage logs one WARN (with the one stack trace) when it starts and one INFO when it
 * ends, however many deliveries it refuses; the meters count each refusal.
 */
final class StoreOutageTest {

  private final TestStore store = new TestStore();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @Test
  void outage_fiveRefusedDeliveries_oneWarnOneStackTraceThenOneInfo() {
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .deduplicator(store)
            .meterRegistry(registry)
            .onAny(e -> {})
            .build();
    store.claimOverride = key -> TestStore.failure("store down");
    try (LogCapture logs = new LogCapture(Level.INFO)) {
      for (int i = 1; i <= 5; i++) {
        assertThat(
                consumer.handle(signed(SECRET, envelope("o" + i, "post.create"))).join().status())
            .isEqualTo(503);
      }
      List<ILoggingEvent> during = logs.events();
      assertThat(during).hasSize(1);
      assertThat(during.get(0).getLevel()).isEqualTo(Level.WARN);
      assertThat(during.get(0).getFormattedMessage())
          .startsWith("Dedup store failed (claim); answering deliveries 503 dedup_unavailable");
      assertThat(during.get(0).getThrowableProxy()).isNotNull();

      store.claimOverride = key -> null; // back
      assertThat(consumer.handle(signed(SECRET, envelope("o1", "post.create"))).join().status())
          .isEqualTo(200);

      List<ILoggingEvent> after = logs.events().subList(1, logs.events().size());
      assertThat(after)
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.getLevel()).isEqualTo(Level.INFO);
                assertThat(e.getFormattedMessage())
                    .isEqualTo("Dedup store answers again after 5 failed calls");
              });
    }
    assertThat(registry.get("webhook.events").tag("outcome", "dedup_unavailable").counter().count())
        .isEqualTo(5);
  }

  @Test
  void secondOutage_logsItsOwnWarn() {
    WebhookConsumer consumer =
        WebhookConsumer.builder().consumerSecrets(SECRET).deduplicator(store).build();
    try (LogCapture logs = new LogCapture(Level.INFO)) {
      for (String id : List.of("a", "b")) {
        store.claimOverride = key -> TestStore.failure("store down");
        consumer.handle(signed(SECRET, envelope(id, "post.create"))).join();
        consumer.handle(signed(SECRET, envelope(id, "post.create"))).join();
        store.claimOverride = key -> null;
        consumer.handle(signed(SECRET, envelope(id, "post.create"))).join();
      }
      assertThat(logs.messages(Level.WARN)).hasSize(2);
      assertThat(logs.messages(Level.INFO))
          .containsExactly(
              "Dedup store answers again after 2 failed calls",
              "Dedup store answers again after 2 failed calls");
    }
  }
}
