package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static io.servicehooks.core.Fixtures.envelope;
import static io.servicehooks.core.Fixtures.signed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.servicehooks.testsupport.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/**
 * A hand-off that starts after the queueing deadline is answered 503 {@code busy} and releases its
 * claims. The deadline is read on the core's clock.
 */
final class QueueingDeadlineTest {

  private final List<String> seen = new CopyOnWriteArrayList<>();
  private final List<Runnable> queued = new ArrayList<>();
  private final Executor queue = queued::add;
  private final FakeClock clock = FakeClock.ticker(0);

  private WebhookConsumer consumer() {
    return WebhookConsumer.builder()
        .consumerSecrets(SECRET)
        .queueingDeadline(Duration.ofMillis(500))
        .nanoTime(clock::nanos)
        .on("post.create", e -> seen.add(e.id()))
        .build();
  }

  @Test
  void handOff_startsAfterTheDeadline_is503BusyAndClaimReleased() {
    WebhookConsumer consumer = consumer();
    WebhookRequest delivery = signed(SECRET, envelope("late", "post.create"));
    CompletableFuture<WebhookResponse> answer = consumer.adapterSupport().handle(delivery, queue);
    assertThat(queued).hasSize(1);
    clock.advance(Duration.ofMillis(501));
    queued.get(0).run();

    WebhookResponse busy = answer.join();
    assertThat(busy.status()).isEqualTo(503);
    assertThat(busy.bodyAsString()).contains("\"error\":\"busy\"");
    assertThat(busy.headers()).containsKey("Retry-After");
    assertThat(seen).isEmpty();

    assertThat(consumer.adapterSupport().handle(delivery, Runnable::run).join().status())
        .isEqualTo(200);
    assertThat(seen).containsExactly("late");
  }

  @Test
  void handOff_startsWithinTheDeadline_runsTheListeners() {
    WebhookConsumer consumer = consumer();
    CompletableFuture<WebhookResponse> answer =
        consumer.adapterSupport().handle(signed(SECRET, envelope("ok", "post.create")), queue);
    clock.advance(Duration.ofMillis(500));
    queued.get(0).run();
    assertThat(answer.join().status()).isEqualTo(200);
    assertThat(seen).containsExactly("ok");
  }

  @Test
  void queueingDeadline_defaultIsAFewSecondsBelowThePlatformsTen() {
    assertThat(WebhookConsumer.DEFAULT_QUEUEING_DEADLINE).isPositive();
    assertThat(WebhookConsumer.DEFAULT_QUEUEING_DEADLINE).isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void queueingDeadline_notPositive_isRefusedNamingTheValue() {
    assertThatThrownBy(() -> WebhookConsumer.builder().queueingDeadline(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("queueingDeadline")
        .hasMessageContaining("PT-1S");
  }
}
