package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static io.servicehooks.core.Fixtures.envelope;
import static io.servicehooks.core.Fixtures.signed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Whatever a listener, an error handler or the store throws, every claim this process owns ends, so
 * a redelivery of the same event is answered instead of waiting forever.
 */
final class ClaimAlwaysEndsTest {

  private static final String BATCH =
      "{\"for_user_id\":\"1\",\"post_create_events\":"
          + "[{\"id_str\":\"a\"},{\"id_str\":\"b\"},{\"id_str\":\"c\"}]}";

  private final List<String> seen = new CopyOnWriteArrayList<>();

  /** Answered within a bound, or the test fails: a claim left open makes a copy wait forever. */
  private static WebhookResponse answerSoon(WebhookConsumer consumer, WebhookRequest request)
      throws Exception {
    return consumer.handle(request).get(5, TimeUnit.SECONDS);
  }

  @Test
  void listener_stackOverflowError_claimReleasedAndRedeliveryRuns() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .on(
                "post.create",
                e -> {
                  if (calls.incrementAndGet() == 1) {
                    throw new StackOverflowError("deep");
                  }
                  seen.add(e.id());
                })
            .onError((e, t) -> {})
            .build();
    WebhookRequest delivery = signed(SECRET, envelope("so", "post.create"));
    // A VirtualMachineError may still reach the caller, but only after the claim ended.
    assertThatThrownBy(() -> consumer.handle(delivery)).isInstanceOf(StackOverflowError.class);
    assertThat(answerSoon(consumer, delivery).status()).isEqualTo(200);
    assertThat(seen).containsExactly("so");
  }

  @Test
  void listener_stackOverflowErrorOnExecutor_answered500AndRedeliveryRuns() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .on(
                "post.create",
                e -> {
                  if (calls.incrementAndGet() == 1) {
                    throw new StackOverflowError("deep");
                  }
                  seen.add(e.id());
                })
            .onError((e, t) -> {})
            .build();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      WebhookRequest delivery = signed(SECRET, envelope("so2", "post.create"));
      WebhookResponse first =
          consumer.adapterSupport().handle(delivery, pool).get(5, TimeUnit.SECONDS);
      assertThat(first.status()).isEqualTo(500);
      WebhookResponse again =
          consumer.adapterSupport().handle(delivery, pool).get(5, TimeUnit.SECONDS);
      assertThat(again.status()).isEqualTo(200);
      assertThat(seen).containsExactly("so2");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void listener_assertionError_claimReleasedAndRedeliveryRuns() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .on(
                "post.create",
                e -> {
                  if (calls.incrementAndGet() == 1) {
                    throw new AssertionError("invariant broken");
                  }
                  seen.add(e.id());
                })
            .onError((e, t) -> {})
            .build();
    WebhookRequest delivery = signed(SECRET, envelope("ae", "post.create"));
    assertThat(answerSoon(consumer, delivery).status()).isEqualTo(500);
    assertThat(answerSoon(consumer, delivery).status()).isEqualTo(200);
    assertThat(seen).containsExactly("ae");
  }

  @Test
  void errorHandler_throwsError_claimReleasedAndRedeliveryRuns() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .on(
                "post.create",
                e -> {
                  if (calls.incrementAndGet() == 1) {
                    throw new IllegalStateException("database down");
                  }
                  seen.add(e.id());
                })
            .onError(
                (e, t) -> {
                  throw new AssertionError("error handler broken");
                })
            .build();
    WebhookRequest delivery = signed(SECRET, envelope("eh", "post.create"));
    assertThat(answerSoon(consumer, delivery).status()).isEqualTo(500);
    assertThat(answerSoon(consumer, delivery).status()).isEqualTo(200);
    assertThat(seen).containsExactly("eh");
  }

  @Test
  void store_markDoneFailsMidBatch_answeredAsDecidedAndEveryClaimEnds() throws Exception {
    TestStore store = new TestStore();
    store.failMarkDone = key -> key.endsWith(":b");
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .deduplicator(store)
            .inFlightWait(Duration.ofMillis(100))
            .onAny(e -> seen.add(e.id()))
            .build();
    WebhookRequest batch = signed(SECRET, BATCH);
    WebhookResponse first = answerSoon(consumer, batch);
    // Every listener succeeded: a store that fails to remember it is logged, never turned into a
    // failure the platform would retry.
    assertThat(first.status()).isEqualTo(200);
    assertThat(seen).containsExactly("a", "b", "c");
    assertThat(store.done).hasSize(2).noneMatch(k -> k.endsWith(":b"));
    // a and c are done; b's markDone failed, so the store still holds b's claim until its lease
    // ends. Nothing in this process still holds a claim: the redelivery is answered within the
    // in-flight wait, 503 for b (its outcome is unknown), and nothing runs twice.
    WebhookResponse again = answerSoon(consumer, batch);
    assertThat(again.status()).isEqualTo(503);
    assertThat(again.bodyAsString()).contains("\"error\":\"in_flight\"");
    assertThat(seen).containsExactly("a", "b", "c");
  }

  @Test
  void store_releaseFailsMidBatch_otherFailedItemsStillReleased() throws Exception {
    TestStore store = new TestStore();
    store.failRelease = key -> key.endsWith(":b");
    AtomicInteger failuresLeft = new AtomicInteger(3);
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .deduplicator(store)
            .inFlightWait(Duration.ofMillis(100))
            .onAny(
                e -> {
                  if (failuresLeft.getAndDecrement() > 0) {
                    throw new IllegalStateException("all three fail once");
                  }
                  seen.add(e.id());
                })
            .onError((e, t) -> {})
            .build();
    WebhookRequest batch = signed(SECRET, BATCH);
    assertThat(answerSoon(consumer, batch).status()).isEqualTo(500);
    assertThat(store.released).hasSize(2).noneMatch(k -> k.endsWith(":b"));
    // a and c were released and run again; b's release failed, so the store still holds its
    // claim until the lease ends and the copy of b is answered 503, to be retried.
    assertThat(answerSoon(consumer, batch).status()).isEqualTo(503);
    assertThat(seen).containsExactly("a", "c");
  }

  @Test
  void async_listenerStackOverflowError_claimReleasedAndRedeliveryRuns() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .acknowledgement(Acknowledgement.ASYNCHRONOUS)
            .asyncThreads(1)
            .on(
                "post.create",
                e -> {
                  if (calls.incrementAndGet() == 1) {
                    throw new StackOverflowError("deep");
                  }
                  seen.add(e.id());
                })
            .onError((e, t) -> {})
            .build();
    try {
      WebhookRequest delivery = signed(SECRET, envelope("as", "post.create"));
      assertThat(answerSoon(consumer, delivery).status()).isEqualTo(200);
      // The StackOverflowError is meant to end the queue thread: Awaitility would otherwise fail
      // the wait with it whenever it lands during the wait.
      org.awaitility.Awaitility.await()
          .dontCatchUncaughtExceptions()
          .atMost(java.time.Duration.ofSeconds(5))
          .until(() -> calls.get() == 1);
      // Released once the listener failed: the redelivery is queued and runs.
      org.awaitility.Awaitility.await()
          .dontCatchUncaughtExceptions()
          .atMost(java.time.Duration.ofSeconds(5))
          .untilAsserted(
              () -> {
                answerSoon(consumer, delivery);
                assertThat(seen).contains("as");
              });
    } finally {
      consumer.close();
    }
  }
}
