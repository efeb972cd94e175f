package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static io.servicehooks.core.Fixtures.envelope;
import static io.servicehooks.core.Fixtures.signed;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The {@code type} tag of {@code webhook.events} cannot grow without bound. */
final class TypeTagCapTest {

  @Test
  void events_moreDistinctTypesThanTheCap_extraOnesCountUnderOther() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    WebhookConsumer consumer =
        WebhookConsumer.builder().consumerSecrets(SECRET).meterRegistry(registry).build();
    int types = 300;
    for (int i = 0; i < types; i++) {
      WebhookResponse r =
          consumer.handle(signed(SECRET, envelope(String.valueOf(i), "made.up.t" + i))).join();
      assertThat(r.status()).isEqualTo(200);
    }

    Set<String> tags =
        registry.find("webhook.events").counters().stream()
            .map(c -> c.getId().getTag("type"))
            .collect(Collectors.toSet());
    assertThat(tags).hasSizeLessThanOrEqualTo(WebhookConsumer.MAX_TYPE_TAGS + 1);
    assertThat(tags).contains("made.up.t0", WebhookConsumer.OTHER_TYPE_TAG);
    double counted =
        registry.find("webhook.events").counters().stream().mapToDouble(Counter::count).sum();
    assertThat(counted).isEqualTo(types);
    assertThat(
            registry
                .get("webhook.events")
                .tag("type", WebhookConsumer.OTHER_TYPE_TAG)
                .counter()
                .count())
        .isEqualTo(types - WebhookConsumer.MAX_TYPE_TAGS);
  }

  @Test
  void events_typeSeenBeforeTheCap_keepsItsOwnTag() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    WebhookConsumer consumer =
        WebhookConsumer.builder().consumerSecrets(SECRET).meterRegistry(registry).build();
    consumer.handle(signed(SECRET, envelope("first", "post.create"))).join();
    for (int i = 0; i < WebhookConsumer.MAX_TYPE_TAGS + 10; i++) {
      consumer.handle(signed(SECRET, envelope("x" + i, "made.up.t" + i))).join();
    }
    consumer.handle(signed(SECRET, envelope("second", "post.create"))).join();

    assertThat(registry.get("webhook.events").tag("type", "post.create").counter().count())
        .isEqualTo(2);
  }
}
