package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static io.servicehooks.core.Fixtures.envelope;
import static io.servicehooks.core.Fixtures.signed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/**
 * An adapter's executor that took a hand-off and cannot run it passes it to {@link
 * AdapterSupport#refuse}: the delivery is answered 503 {@code busy} with its claims released, as if
 * the executor had refused it at once, and the task never runs its listeners afterwards.
 */
final class RefusedHandOffTest {

  private final List<String> seen = new CopyOnWriteArrayList<>();
  private final List<Runnable> queued = new ArrayList<>();
  private final Executor queue = queued::add;

  private WebhookConsumer consumer() {
    return WebhookConsumer.builder()
        .consumerSecrets(SECRET)
        .on("post.create", e -> seen.add(e.id()))
        .build();
  }

  @Test
  void refusedTask_is503BusyAndItsClaimReleased_andNeverRunsAfterwards() {
    WebhookConsumer consumer = consumer();
    WebhookRequest delivery = signed(SECRET, envelope("stranded", "post.create"));
    CompletableFuture<WebhookResponse> answer = consumer.adapterSupport().handle(delivery, queue);
    assertThat(queued).hasSize(1);
    assertThat(answer).isNotDone();

    AdapterSupport.refuse(queued.get(0));

    WebhookResponse busy = answer.join();
    assertThat(busy.status()).isEqualTo(503);
    assertThat(busy.bodyAsString()).contains("\"error\":\"busy\"");
    assertThat(busy.headers()).containsKey("Retry-After");
    queued.get(0).run(); // too late: it was answered
    assertThat(seen).isEmpty();

    // The claim is gone: the platform's retry runs the event.
    assertThat(consumer.adapterSupport().handle(delivery, Runnable::run).join().status())
        .isEqualTo(200);
    assertThat(seen).containsExactly("stranded");
  }

  @Test
  void refusingATaskThatRan_changesNothing() {
    WebhookConsumer consumer = consumer();
    CompletableFuture<WebhookResponse> answer =
        consumer.adapterSupport().handle(signed(SECRET, envelope("ran", "post.create")), queue);
    queued.get(0).run();
    AdapterSupport.refuse(queued.get(0));
    assertThat(answer.join().status()).isEqualTo(200);
    assertThat(seen).containsExactly("ran");
  }

  @Test
  void refusingARunnableTheConsumerNeverGave_isAnError() {
    assertThatThrownBy(() -> AdapterSupport.refuse(() -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a task handed off");
  }
}
