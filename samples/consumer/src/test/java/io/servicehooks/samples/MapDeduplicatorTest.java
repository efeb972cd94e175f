package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.core.Deduplicator;
import io.servicehooks.core.Deduplicator.Claim;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookSigner;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The README's example store keeps the SPI's promises and dedups a consumer's deliveries. */
final class MapDeduplicatorTest {

  private static Claim claim(Deduplicator store, String key) {
    return store.claim(key, Duration.ofSeconds(30)).toCompletableFuture().join();
  }

  @Test
  void claim_thenDone_copiesSeeRunningThenDone_staleTokenRefused() {
    MapDeduplicator store = new MapDeduplicator(Deduplicator.DEFAULT_WINDOW);
    Claim owner = claim(store, "e:1");
    assertThat(owner.status()).isEqualTo(Claim.Status.CLAIMED);
    assertThat(claim(store, "e:1").status()).isEqualTo(Claim.Status.RUNNING_ELSEWHERE);
    assertThat(store.markDone("e:1", "someone-else").toCompletableFuture().join()).isFalse();
    assertThat(store.markDone("e:1", owner.token()).toCompletableFuture().join()).isTrue();
    assertThat(claim(store, "e:1").status()).isEqualTo(Claim.Status.DONE);
    assertThat(store.release("e:1", owner.token()).toCompletableFuture().join()).isFalse();
  }

  @Test
  void consumer_withTheStore_runsAnEventOnce() {
    List<String> seen = new CopyOnWriteArrayList<>();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets("secret")
            .deduplicator(new MapDeduplicator(Deduplicator.DEFAULT_WINDOW))
            .on("post.create", e -> seen.add(e.id()))
            .build();
    byte[] body =
        "{\"data\":{\"event_uuid\":\"7\",\"event_type\":\"post.create\",\"payload\":{}}}"
            .getBytes(StandardCharsets.UTF_8);
    WebhookRequest delivery = WebhookRequest.post(WebhookSigner.sign("secret", body), body);
    assertThat(consumer.handle(delivery).join().status()).isEqualTo(200);
    assertThat(consumer.handle(delivery).join().bodyAsString()).contains("\"duplicate\"");
    assertThat(seen).containsExactly("7");
  }
}
