package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static io.servicehooks.core.Fixtures.envelope;
import static io.servicehooks.core.Fixtures.signed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A store that answers a claim after the dedup time-out (its own time-out is longer, or the answer
 * was on the way) has taken the key for an owner that already answered 503. The consumer releases
 * such a late claim, so the platform's retry runs the event instead of waiting out a whole lease.
 */
final class LateClaimTest {

  private final TestStore store = new TestStore();
  private final List<String> seen = new CopyOnWriteArrayList<>();
  private final CompletableFuture<Deduplicator.Claim> late = new CompletableFuture<>();

  @Test
  void claimAnsweredAfterTheDedupTimeout_isReleased_retryRunsTheEvent() {
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .deduplicator(store)
            .dedupTimeout(Duration.ofMillis(100))
            .inFlightWait(Duration.ofMillis(100))
            .onAny(e -> seen.add(e.id()))
            .build();
    store.claimOverride = key -> store.claims.size() == 1 ? late : null;
    String body = envelope("1877", "post.create");

    WebhookResponse first = consumer.handle(signed(SECRET, body)).join();
    assertThat(first.status()).isEqualTo(503);
    assertThat(first.bodyAsString()).contains("dedup_unavailable");

    // the store takes the claim now, after the consumer gave up on it
    late.complete(Deduplicator.Claim.claimed(store.claimElsewhere("e:1877")));

    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(() -> assertThat(store.entries).doesNotContainKey("e:1877"));
    WebhookResponse retry = consumer.handle(signed(SECRET, body)).join();
    assertThat(retry.status()).isEqualTo(200);
    assertThat(seen).containsExactly("1877");
  }

  @Test
  void claimFailingAfterTheDedupTimeout_releasesNothing() {
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .deduplicator(store)
            .dedupTimeout(Duration.ofMillis(100))
            .onAny(e -> seen.add(e.id()))
            .build();
    store.claimOverride = key -> late;
    String other = store.claimElsewhere("e:1878");

    assertThat(consumer.handle(signed(SECRET, envelope("1878", "post.create"))).join().status())
        .isEqualTo(503);
    late.completeExceptionally(new IllegalStateException("store down"));

    assertThat(store.entries).containsEntry("e:1878", other);
    assertThat(store.released).isEmpty();
    assertThat(seen).isEmpty();
  }
}
