package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static io.servicehooks.core.Fixtures.envelope;
import static io.servicehooks.core.Fixtures.signed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A claim the store cannot answer (failed, thrown, hung past the dedup time-out) answers the
 * delivery 503 {@code dedup_unavailable}, runs no listener and releases the delivery's other
 * claims; {@code failOpen(true)} runs the listeners and counts it.
 */
final class FailClosedTest {

  private static final String BATCH =
      "{\"for_user_id\":\"1\",\"post_create_events\":"
          + "[{\"id_str\":\"a\"},{\"id_str\":\"b\"},{\"id_str\":\"c\"}]}";

  private final TestStore store = new TestStore();
  private final List<String> seen = new CopyOnWriteArrayList<>();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ExecutorService pool = Executors.newFixedThreadPool(2);

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  private WebhookConsumer.Builder builder() {
    return WebhookConsumer.builder()
        .consumerSecrets(SECRET)
        .deduplicator(store)
        .meterRegistry(registry)
        .onAny(e -> seen.add(e.id()));
  }

  private static void assertDedupUnavailable(WebhookResponse answer) {
    assertThat(answer.status()).isEqualTo(503);
    assertThat(answer.bodyAsString())
        .contains("\"error\":\"dedup_unavailable\"")
        .doesNotContain("store down");
    assertThat(answer.headers()).containsEntry("Retry-After", Answers.RETRY_AFTER_SECONDS);
  }

  @Test
  void claimFails_is503DedupUnavailable_noListenerRuns() {
    store.claimOverride = key -> TestStore.failure("store down");
    WebhookConsumer consumer = builder().build();

    try (LogCapture logs = new LogCapture()) {
      assertDedupUnavailable(consumer.handle(signed(SECRET, envelope("1", "post.create"))).join());
      assertThat(logs.messages(Level.WARN))
          .anySatisfy(line -> assertThat(line).contains("Dedup store failed (claim)"));
    }
    assertThat(seen).isEmpty();
    assertThat(registry.get("webhook.events").tag("outcome", "dedup_unavailable").counter().count())
        .isEqualTo(1);
    // The store failed at once, without blocking: still counted as a failed call.
    assertThat(
            registry
                .get("webhook.dedup.store")
                .tag("operation", "claim")
                .tag("outcome", "error")
                .timer()
                .count())
        .isEqualTo(1);

    store.claimOverride = key -> null; // the store is back: the platform's retry runs the event
    assertThat(consumer.handle(signed(SECRET, envelope("1", "post.create"))).join().status())
        .isEqualTo(200);
    assertThat(seen).containsExactly("1");
  }

  @Test
  void claimThrows_isTreatedAsAFailedStage() {
    store.claimOverride =
        key -> {
          throw new IllegalStateException("store down");
        };
    WebhookConsumer consumer = builder().build();
    assertDedupUnavailable(consumer.handle(signed(SECRET, envelope("1", "post.create"))).join());
    assertThat(seen).isEmpty();
  }

  @Test
  void oneClaimOfBatchFails_otherClaimsReleased_noListenerRuns() {
    store.claimOverride = key -> key.endsWith(":b") ? TestStore.failure("store down") : null;
    WebhookConsumer consumer = builder().build();

    assertDedupUnavailable(consumer.handle(signed(SECRET, BATCH)).join());

    assertThat(seen).isEmpty();
    assertThat(store.released).hasSize(2).allMatch(k -> k.endsWith(":a") || k.endsWith(":c"));
    assertThat(store.entries).isEmpty(); // nothing stays claimed: the retry runs all three

    store.claimOverride = key -> null;
    assertThat(consumer.handle(signed(SECRET, BATCH)).join().status()).isEqualTo(200);
    assertThat(seen).containsExactly("a", "b", "c");
  }

  @Test
  void claimHangs_is503WithinTheDedupTimeout() throws Exception {
    store.claimOverride = key -> TestStore.hang();
    WebhookConsumer consumer = builder().dedupTimeout(Duration.ofMillis(200)).build();

    long begin = System.nanoTime();
    WebhookResponse direct = consumer.handle(signed(SECRET, envelope("1", "post.create"))).join();
    WebhookResponse handedOff =
        consumer
            .adapterSupport()
            .handle(signed(SECRET, envelope("2", "post.create")), pool)
            .get(5, TimeUnit.SECONDS);
    Duration took = Duration.ofNanos(System.nanoTime() - begin);

    assertDedupUnavailable(direct);
    assertDedupUnavailable(handedOff);
    assertThat(took).isLessThan(Duration.ofSeconds(2));
    assertThat(seen).isEmpty();
    // The store does not block, but its claims did not answer at once: both are timed, as time-outs
    // (see DedupMetricsTest).
    assertThat(
            registry
                .get("webhook.dedup.store")
                .tag("operation", "claim")
                .tag("outcome", "timeout")
                .timer()
                .count())
        .isEqualTo(2);
  }

  @Test
  void asyncMode_claimFails_is503AndNothingQueued() {
    store.claimOverride = key -> key.endsWith(":b") ? TestStore.failure("store down") : null;
    WebhookConsumer consumer = builder().acknowledgement(Acknowledgement.ASYNCHRONOUS).build();
    try {
      assertDedupUnavailable(consumer.handle(signed(SECRET, BATCH)).join());
      assertThat(store.entries).isEmpty();
      assertThat(seen).isEmpty();
    } finally {
      consumer.close();
    }
  }

  @Test
  void failOpen_claimFails_listenersRunAndEachEventCounts() {
    store.claimOverride = key -> TestStore.failure("store down");
    WebhookConsumer consumer = builder().failOpen(true).build();

    WebhookResponse answer = consumer.handle(signed(SECRET, BATCH)).join();

    assertThat(answer.status()).isEqualTo(200);
    assertThat(seen).containsExactly("a", "b", "c");
    assertThat(registry.get("webhook.dedup.fail.open").counter().count()).isEqualTo(3);
    assertThat(store.done).isEmpty(); // never claimed, so never marked
  }

  @Test
  void failOpen_claimHangs_listenersRunAfterTheTimeout() throws Exception {
    store.claimOverride = key -> TestStore.hang();
    WebhookConsumer consumer =
        builder().failOpen(true).dedupTimeout(Duration.ofMillis(100)).build();
    CompletableFuture<WebhookResponse> answer =
        consumer.adapterSupport().handle(signed(SECRET, envelope("9", "post.create")), pool);
    assertThat(answer.get(5, TimeUnit.SECONDS).status()).isEqualTo(200);
    assertThat(seen).containsExactly("9");
    assertThat(registry.get("webhook.dedup.fail.open").counter().count()).isEqualTo(1);
  }

  @Test
  void releaseFails_afterListenerFailed_answerStays500AndIsLogged() {
    store.failRelease = key -> true;
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .deduplicator(store)
            .on(
                "post.create",
                e -> {
                  throw new IllegalStateException("listener broke");
                })
            .onError((e, t) -> {})
            .build();
    try (LogCapture logs = new LogCapture()) {
      WebhookResponse answer = consumer.handle(signed(SECRET, envelope("1", "post.create"))).join();
      assertThat(answer.status()).isEqualTo(500);
      assertThat(answer.bodyAsString()).contains("listener_failed");
      assertThat(logs.messages(Level.WARN))
          .anySatisfy(line -> assertThat(line).contains("Dedup store failed (release e:1)"));
    }
  }

  @Test
  void dedupTimeout_defaultsAndBounds() {
    assertThat(WebhookConsumer.DEFAULT_DEDUP_TIMEOUT).isEqualTo(Duration.ofSeconds(2));
    assertThatThrownBy(() -> WebhookConsumer.builder().dedupTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("dedupTimeout")
        .hasMessageContaining("PT0S");
    assertThatThrownBy(() -> WebhookConsumer.builder().dedupTimeout(Duration.ofSeconds(10)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT10S");
    assertThatThrownBy(() -> WebhookConsumer.builder().inFlightWait(Duration.ofSeconds(10)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("inFlightWait")
        .hasMessageContaining("PT10S");
  }
}
