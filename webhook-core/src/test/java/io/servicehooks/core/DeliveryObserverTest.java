package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static io.servicehooks.core.Fixtures.envelope;
import static io.servicehooks.core.Fixtures.signed;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The seam catch-up needs to tell "answering" from "up". Observers hear the status of every
 * verified delivery's answer, refusals of the store included; requests that fail the signature or
 * payload checks are not deliveries and are not reported.
 */
final class DeliveryObserverTest {

  private final TestStore store = new TestStore();
  private final List<Integer> statuses = new CopyOnWriteArrayList<>();

  private WebhookConsumer consumer(Acknowledgement mode) {
    return WebhookConsumer.builder()
        .consumerSecrets(SECRET)
        .deduplicator(store)
        .acknowledgement(mode)
        .onAnswered(statuses::add)
        .onAnswered(
            status -> {
              throw new IllegalStateException("a broken observer changes nothing");
            })
        .on("post.create", e -> {})
        .build();
  }

  @Test
  void verifiedDeliveries_observedWithTheirStatus_badRequestsNot() {
    WebhookConsumer consumer = consumer(Acknowledgement.SYNCHRONOUS);

    assertThat(consumer.handle(signed(SECRET, envelope("1", "post.create"))).join().status())
        .isEqualTo(200);
    assertThat(consumer.handle(signed(SECRET, envelope("1", "post.create"))).join().status())
        .isEqualTo(200); // a duplicate is answered, too
    store.claimOverride = key -> TestStore.failure("store down");
    assertThat(consumer.handle(signed(SECRET, envelope("2", "post.create"))).join().status())
        .isEqualTo(503);
    // not deliveries: a wrong signature, a body that is not a payload
    consumer
        .handle(
            WebhookRequest.post(
                "sha256=AAAA", envelope("3", "post.create").getBytes(StandardCharsets.UTF_8)))
        .join();
    consumer.handle(signed(SECRET, "{\"nothing\":true}")).join();

    assertThat(statuses).containsExactly(200, 200, 503);
  }

  @Test
  void answerCompletedLater_observedWhenItIsDecided() {
    WebhookConsumer consumer = consumer(Acknowledgement.ASYNCHRONOUS);
    java.util.concurrent.CompletableFuture<Deduplicator.Claim> later =
        new java.util.concurrent.CompletableFuture<>();
    store.claimOverride = key -> later;

    var answer = consumer.handle(signed(SECRET, envelope("4", "post.create")));
    assertThat(statuses).isEmpty();
    later.complete(Deduplicator.Claim.claimed("t-late"));

    assertThat(answer.join().status()).isEqualTo(200);
    assertThat(statuses).containsExactly(200);
    consumer.close();
  }
}
