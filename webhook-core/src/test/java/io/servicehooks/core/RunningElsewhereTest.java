package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static io.servicehooks.core.Fixtures.envelope;
import static io.servicehooks.core.Fixtures.signed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.servicehooks.testsupport.FakeClock;
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
 * A copy whose original runs on another instance (the store answers running elsewhere) polls the
 * store a bounded time, then is answered by what it found, never 200 while the original's outcome
 * is unknown. The other instance is played by the test through the store.
 */
final class RunningElsewhereTest {

  private static final String KEY = "e:42";

  private final TestStore store = new TestStore();
  private final List<String> seen = new CopyOnWriteArrayList<>();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ExecutorService pool = Executors.newSingleThreadExecutor();

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  private WebhookConsumer consumer(Duration inFlightWait) {
    return WebhookConsumer.builder()
        .consumerSecrets(SECRET)
        .deduplicator(store)
        .inFlightWait(inFlightWait)
        .meterRegistry(registry)
        .on("post.create", e -> seen.add(e.id()))
        .build();
  }

  private CompletableFuture<WebhookResponse> deliverCopy(WebhookConsumer consumer) {
    return consumer.adapterSupport().handle(signed(SECRET, envelope("42", "post.create")), pool);
  }

  /** Waits until the copy asked the store at least {@code times} times. */
  private void awaitClaims(int times) {
    await().atMost(Duration.ofSeconds(5)).until(() -> store.claims.size() >= times);
  }

  @Test
  void copy_originalElsewhereFinishes_waitsThenAnswersDuplicate() throws Exception {
    store.claimElsewhere(KEY);
    CompletableFuture<WebhookResponse> copy = deliverCopy(consumer(Duration.ofSeconds(5)));
    awaitClaims(2);
    assertThat(copy).isNotDone(); // outcome unknown: never 200 yet

    store.markDoneElsewhere(KEY);

    WebhookResponse answer = copy.get(5, TimeUnit.SECONDS);
    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.bodyAsString()).contains("\"status\":\"duplicate\"");
    assertThat(seen).isEmpty();
    assertThat(registry.get("webhook.dedup.running.elsewhere").counter().count()).isEqualTo(1);
  }

  @Test
  void copy_originalElsewhereReleased_waitsThenClaimsAndRunsIt() throws Exception {
    store.claimElsewhere(KEY);
    CompletableFuture<WebhookResponse> copy = deliverCopy(consumer(Duration.ofSeconds(5)));
    awaitClaims(2);
    assertThat(copy).isNotDone();

    store.releaseElsewhere(KEY); // the original's listener failed there

    WebhookResponse answer = copy.get(5, TimeUnit.SECONDS);
    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.bodyAsString()).contains("\"status\":\"accepted\"");
    assertThat(seen).containsExactly("42");
    assertThat(store.done).containsExactly(KEY);
  }

  @Test
  void copy_originalElsewhereOutlastsTheWait_is503InFlightWithRetryAfter() throws Exception {
    store.claimElsewhere(KEY);
    FakeClock clock = FakeClock.ticker(0);
    ManualScheduler scheduler = new ManualScheduler(clock);
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .deduplicator(store)
            .inFlightWait(Duration.ofMillis(400))
            .meterRegistry(registry)
            .leaseTicker(clock::nanos)
            .dedupScheduler(scheduler)
            .on("post.create", e -> seen.add(e.id()))
            .build();
    CompletableFuture<WebhookResponse> copy = deliverCopy(consumer);
    awaitClaims(1);
    // The pauses pass on the gate's clock, 10 ms at a time, up to the end of the wait.
    for (int step = 0; step < 40; step++) {
      assertThat(copy).isNotDone();
      clock.advance(Duration.ofMillis(10));
      scheduler.runDue();
    }
    WebhookResponse answer = copy.get(5, TimeUnit.SECONDS);

    assertThat(answer.status()).isEqualTo(503);
    assertThat(answer.bodyAsString()).contains("\"error\":\"in_flight\"");
    assertThat(answer.headers()).containsKey("Retry-After");
    // At 0, then after 50, 100, 200 ms pauses, then the last question at the deadline (400 ms):
    // several, not a busy loop.
    assertThat(store.claims).hasSize(5);
    assertThat(seen).isEmpty();
    assertThat(store.entries).containsKey(KEY); // the original's claim is untouched
  }

  @Test
  void copy_waitingOnTheStore_holdsNoWorkerThread() throws Exception {
    store.claimElsewhere(KEY);
    CompletableFuture<WebhookResponse> copy = deliverCopy(consumer(Duration.ofSeconds(5)));
    awaitClaims(2);

    // The pool's only thread is free while the copy waits: the poll is a timer, not a sleep.
    assertThat(pool.submit(() -> "free").get(1, TimeUnit.SECONDS)).isEqualTo("free");

    store.markDoneElsewhere(KEY);
    assertThat(copy.get(5, TimeUnit.SECONDS).status()).isEqualTo(200);
  }

  @Test
  void copy_withoutExecutor_isAnsweredOnTheCallersThreadAfterTheWait() {
    store.claimElsewhere(KEY);
    WebhookConsumer consumer = consumer(Duration.ofSeconds(5));
    CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS)
        .execute(() -> store.releaseElsewhere(KEY));

    WebhookResponse answer = consumer.handle(signed(SECRET, envelope("42", "post.create"))).join();

    assertThat(answer.status()).isEqualTo(200);
    assertThat(seen).containsExactly("42");
  }

  @Test
  void secondCopyHere_whileFirstCopyPolls_sharesItsOutcome() throws Exception {
    store.claimElsewhere(KEY);
    WebhookConsumer consumer = consumer(Duration.ofSeconds(5));
    CompletableFuture<WebhookResponse> first = deliverCopy(consumer);
    awaitClaims(1);
    CompletableFuture<WebhookResponse> second = deliverCopy(consumer);

    store.markDoneElsewhere(KEY);

    assertThat(first.get(5, TimeUnit.SECONDS).bodyAsString()).contains("duplicate");
    assertThat(second.get(5, TimeUnit.SECONDS).bodyAsString()).contains("duplicate");
    assertThat(seen).isEmpty();
  }

  @Test
  void asyncMode_copyOfEventRunningElsewhere_isNot200BeforeItsOutcome() throws Exception {
    store.claimElsewhere(KEY);
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .deduplicator(store)
            .acknowledgement(Acknowledgement.ASYNCHRONOUS)
            .inFlightWait(Duration.ofMillis(300))
            .on("post.create", e -> seen.add(e.id()))
            .build();
    try {
      WebhookResponse answer =
          consumer.handle(signed(SECRET, envelope("42", "post.create"))).get(5, TimeUnit.SECONDS);
      assertThat(answer.status()).isEqualTo(503);
      assertThat(answer.bodyAsString()).contains("\"error\":\"in_flight\"");
    } finally {
      consumer.close();
    }
  }
}
