package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static io.servicehooks.core.Fixtures.envelope;
import static io.servicehooks.core.Fixtures.signed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code webhook.dedup.store} times every call to a store that may block, and every call of a
 * non-blocking store that did not answer at once (an asynchronous network client, such as
 * webhook-redis's), tagged by operation and outcome; the in-memory store, which always answers at
 * once, is not timed.
 */
final class DedupMetricsTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private long count(String operation, String outcome) {
    var timer =
        registry
            .find("webhook.dedup.store")
            .tag("operation", operation)
            .tag("outcome", outcome)
            .timer();
    return timer == null ? 0 : timer.count();
  }

  private WebhookConsumer consumer(Deduplicator store) {
    return WebhookConsumer.builder()
        .consumerSecrets(SECRET)
        .deduplicator(store)
        .meterRegistry(registry)
        .dedupTimeout(Duration.ofMillis(200))
        .inFlightWait(Duration.ofMillis(100))
        .on("post.create", e -> {})
        .build();
  }

  @Test
  void blockingStore_callsTimedByOperationAndOutcome() {
    TestStore store = new TestStore(true);
    WebhookConsumer consumer = consumer(store);

    consumer.handle(signed(SECRET, envelope("1", "post.create"))).join();
    consumer.handle(signed(SECRET, envelope("1", "post.create"))).join();
    store.claimElsewhere("e:2");
    consumer.handle(signed(SECRET, envelope("2", "post.create"))).join();
    store.claimOverride = key -> TestStore.failure("down");
    consumer.handle(signed(SECRET, envelope("3", "post.create"))).join();
    store.claimOverride = key -> TestStore.hang();
    consumer.handle(signed(SECRET, envelope("4", "post.create"))).join();

    assertThat(count("claim", "claimed")).isEqualTo(1);
    assertThat(count("done", "ok")).isEqualTo(1);
    assertThat(count("claim", "done")).isEqualTo(1);
    assertThat(count("claim", "running_elsewhere")).isGreaterThanOrEqualTo(2);
    assertThat(count("claim", "error")).isEqualTo(1);
    assertThat(count("claim", "timeout")).isEqualTo(1);
    assertThat(registry.get("webhook.dedup.running.elsewhere").counter().count()).isEqualTo(1);
  }

  @Test
  void blockingStore_releaseAndLostAreTagged() {
    TestStore store = new TestStore(true);
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .deduplicator(store)
            .meterRegistry(registry)
            .on(
                "post.create",
                e -> {
                  if (e.id().equals("1")) {
                    throw new IllegalStateException("fails");
                  }
                  store.claimElsewhere(e.dedupKey());
                })
            .onError((e, t) -> {})
            .build();
    consumer.handle(signed(SECRET, envelope("1", "post.create"))).join();
    consumer.handle(signed(SECRET, envelope("2", "post.create"))).join();
    assertThat(count("release", "ok")).isEqualTo(1);
    assertThat(count("done", "lost")).isEqualTo(1);
  }

  @Test
  void nonBlockingStore_answeringLater_isTimed_answeringAtOnce_isNot() {
    TestStore store = new TestStore(false);
    WebhookConsumer consumer = consumer(store);
    ScheduledExecutorService redis = Executors.newSingleThreadScheduledExecutor();
    try {
      // Answers later, on another thread, as a network client's event loop does: only once the
      // consumer has asked (a fixed 1 ms delay raced the consumer's own claim call under load, and
      // an answer there before the question counts as "at once").
      CompletableFuture<Deduplicator.Claim> later = new CompletableFuture<>();
      store.claimOverride = key -> later;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      redis.submit(
          () -> {
            while (store.claims.isEmpty() && System.nanoTime() < deadline) {
              Thread.onSpinWait(); // the store's event loop, waiting for the question
            }
            later.complete(Deduplicator.Claim.claimed("later"));
          });
      WebhookResponse answered =
          consumer.handle(signed(SECRET, envelope("1", "post.create"))).join();
      assertThat(answered.status()).isEqualTo(200);
      // recorded by a callback on the store's thread, which may run just after the answer
      await().atMost(Duration.ofSeconds(5)).until(() -> count("claim", "claimed") == 1);

      // The same store answering at once (a completed stage) costs no timer.
      store.claimOverride = key -> null;
      consumer.handle(signed(SECRET, envelope("2", "post.create"))).join();
      assertThat(count("claim", "claimed")).isEqualTo(1);
      assertThat(count("done", "ok")).isZero(); // "later" is not the map's token: lost, at once
      assertThat(count("done", "lost")).isZero();
    } finally {
      redis.shutdownNow();
    }
  }

  @Test
  void inMemoryStore_notTimed_countersStillPublished() {
    WebhookConsumer consumer =
        WebhookConsumer.builder().consumerSecrets(SECRET).meterRegistry(registry).build();
    consumer.handle(signed(SECRET, envelope("1", "post.create"))).join();
    assertThat(registry.find("webhook.dedup.store").timers()).isEmpty();
    assertThat(registry.get("webhook.dedup.running.elsewhere").counter().count()).isZero();
    assertThat(registry.get("webhook.dedup.lease.expired").counter().count()).isZero();
    assertThat(registry.get("cache.puts").tag("cache", "webhook.dedup").functionCounter().count())
        .isEqualTo(2); // claimed, then marked done
  }
}
