package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static io.servicehooks.core.Fixtures.envelope;
import static io.servicehooks.core.Fixtures.signed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A store's asynchronous answer is composed, not waited for. While a network store has not
 * answered, no worker thread is held; listeners then run on the executor, never on the store's
 * thread. A store in memory answers on the calling thread: no hop for the in-memory path.
 */
final class AsyncStoreTest {

  private final List<String> listenerThreads = new CopyOnWriteArrayList<>();
  private final ExecutorService pool =
      Executors.newSingleThreadExecutor(r -> new Thread(r, "listener-worker"));

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  @Test
  void slowNetworkStore_claimPending_holdsNoWorkerAndListenersRunOnTheExecutor() throws Exception {
    TestStore store = new TestStore(true);
    CompletableFuture<Void> answerNow = new CompletableFuture<>();
    // The store's answer arrives later, on a thread of the store's own (as Lettuce's would).
    store.claimOverride =
        key ->
            answerNow.thenComposeAsync(
                ignored -> {
                  store.claimOverride = k -> null;
                  return store.claim(key, Deduplicator.DEFAULT_LEASE);
                },
                CompletableFuture.delayedExecutor(0, TimeUnit.MILLISECONDS));
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .deduplicator(store)
            .on("post.create", e -> listenerThreads.add(Thread.currentThread().getName()))
            .build();

    CompletableFuture<WebhookResponse> answer =
        consumer.adapterSupport().handle(signed(SECRET, envelope("1", "post.create")), pool);
    await().atMost(Duration.ofSeconds(5)).until(() -> store.claims.size() == 1);

    // The claim is pending, yet the only worker is free.
    assertThat(pool.submit(() -> "free").get(1, TimeUnit.SECONDS)).isEqualTo("free");
    assertThat(answer).isNotDone();

    answerNow.complete(null);
    assertThat(answer.get(5, TimeUnit.SECONDS).status()).isEqualTo(200);
    assertThat(listenerThreads).containsExactly("listener-worker");
    assertThat(store.done).containsExactly("e:1");
  }

  @Test
  void inMemoryStore_answeredOnTheCallingThread_futureAlreadyComplete() {
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .on("post.create", e -> listenerThreads.add(Thread.currentThread().getName()))
            .build();
    CompletableFuture<WebhookResponse> first =
        consumer.handle(signed(SECRET, envelope("1", "post.create")));
    CompletableFuture<WebhookResponse> copy =
        consumer.handle(signed(SECRET, envelope("1", "post.create")));
    assertThat(first).isDone();
    assertThat(copy).isDone();
    assertThat(first.join().status()).isEqualTo(200);
    assertThat(copy.join().bodyAsString()).contains("\"status\":\"duplicate\"");
    assertThat(listenerThreads).containsExactly(Thread.currentThread().getName());
  }

  /**
   * A delivery none of whose events has a listener asks a network store once per event ({@code
   * claimDone}: claimed and marked done together) and what is left runs on the store's thread, with
   * no hop to a worker; an event with a listener still claims, runs on the executor and marks done.
   */
  @Test
  void noListener_oneStoreCallPerEvent_noHopToAWorker() throws Exception {
    List<String> calls = new CopyOnWriteArrayList<>();
    ExecutorService storeThread =
        Executors.newSingleThreadExecutor(r -> new Thread(r, "store-thread"));
    Set<String> seen = ConcurrentHashMap.newKeySet();
    Deduplicator network =
        new Deduplicator() {
          @Override
          public CompletionStage<Claim> claim(String key, Duration lease) {
            calls.add("claim " + key);
            return CompletableFuture.supplyAsync(
                () -> seen.add(key) ? Claim.claimed("t-" + key) : Claim.done(), storeThread);
          }

          @Override
          public CompletionStage<Claim> claimDone(String key, Duration lease) {
            calls.add("claimDone " + key);
            return CompletableFuture.supplyAsync(
                () -> seen.add(key) ? Claim.claimed("spent") : Claim.done(), storeThread);
          }

          @Override
          public CompletionStage<Boolean> markDone(String key, String token) {
            calls.add("markDone " + key);
            return CompletableFuture.supplyAsync(() -> true, storeThread);
          }

          @Override
          public CompletionStage<Boolean> release(String key, String token) {
            calls.add("release " + key);
            return CompletableFuture.supplyAsync(() -> true, storeThread);
          }

          @Override
          public CompletionStage<Boolean> renew(String key, String token, Duration lease) {
            return CompletableFuture.supplyAsync(() -> true, storeThread);
          }

          @Override
          public boolean mayBlock() {
            return false;
          }
        };
    AtomicInteger handedToWorkers = new AtomicInteger();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .deduplicator(network)
            .on("post.create", e -> listenerThreads.add(Thread.currentThread().getName()))
            .build();
    List<String> bodies = new CopyOnWriteArrayList<>();
    try {
      for (String json : List.of(envelope("1", "post.delete"), envelope("1", "post.delete"))) {
        WebhookResponse answer =
            consumer
                .adapterSupport()
                .handle(
                    signed(SECRET, json),
                    task -> {
                      handedToWorkers.incrementAndGet();
                      pool.execute(task);
                    })
                .get(5, TimeUnit.SECONDS);
        assertThat(answer.status()).isEqualTo(200);
        bodies.add(answer.bodyAsString());
      }
      assertThat(bodies.get(1)).contains("\"status\":\"duplicate\"");
      assertThat(calls).containsExactly("claimDone e:1", "claimDone e:1");
      assertThat(handedToWorkers).hasValue(0);

      WebhookResponse withListener =
          consumer
              .adapterSupport()
              .handle(
                  signed(SECRET, envelope("2", "post.create")),
                  task -> {
                    handedToWorkers.incrementAndGet();
                    pool.execute(task);
                  })
              .get(5, TimeUnit.SECONDS);
      assertThat(withListener.status()).isEqualTo(200);
      assertThat(calls).endsWith("claim e:2", "markDone e:2");
      assertThat(handedToWorkers).hasValue(1);
      assertThat(listenerThreads).containsExactly("listener-worker");
    } finally {
      storeThread.shutdownNow();
    }
  }
}
