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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 11, point 1: a store's asynchronous answer is composed, not waited for. While a network
 * store has not answered, no worker thread is held; listeners then run on the executor, never on
 * the store's thread. A store in memory answers on the calling thread, as before.
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

  /**
   * Issue 24: a store that never blocks (Redis) answers on its own thread. With no listener for the
   * event nothing is left that may block, so the delivery ends there: no hop to the executor (a
   * wake-up of a worker, then of the IO thread, per event); the claim is still marked done before
   * the answer. An event with a listener still runs it on the executor, never on the store's
   * thread.
   */
  @Test
  void nonBlockingStoreAnswersLater_noListener_endsOnTheStoresThreadWithoutTheExecutor()
      throws Exception {
    TestStore store = new TestStore(false);
    List<String> doneThreads = new CopyOnWriteArrayList<>();
    ExecutorService storeThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "store-io"));
    try {
      CompletableFuture<Void> answerNow = new CompletableFuture<>();
      store.claimOverride =
          key ->
              answerNow.thenApplyAsync(
                  ignored -> {
                    store.claimOverride = k -> null;
                    return store
                        .claim(key, Deduplicator.DEFAULT_LEASE)
                        .toCompletableFuture()
                        .join();
                  },
                  storeThread);
      java.util.concurrent.atomic.AtomicInteger handedOff =
          new java.util.concurrent.atomic.AtomicInteger();
      java.util.concurrent.Executor counting =
          task -> {
            handedOff.incrementAndGet();
            pool.execute(task);
          };
      WebhookConsumer consumer =
          WebhookConsumer.builder()
              .consumerSecrets(SECRET)
              .deduplicator(store)
              .on("post.create", e -> listenerThreads.add(Thread.currentThread().getName()))
              .build();

      CompletableFuture<WebhookResponse> unlistened =
          consumer
              .adapterSupport()
              .handle(signed(SECRET, envelope("1", "post.delete")), counting)
              .whenComplete((r, f) -> doneThreads.add(Thread.currentThread().getName()));
      await().atMost(Duration.ofSeconds(5)).until(() -> store.claims.size() == 1);
      answerNow.complete(null);
      WebhookResponse first = unlistened.get(5, TimeUnit.SECONDS);
      assertThat(first.status()).isEqualTo(200);
      assertThat(first.bodyAsString()).contains("\"status\":\"accepted\"");
      assertThat(store.done).containsExactly("e:1");
      assertThat(handedOff).hasValue(0);
      assertThat(doneThreads).containsExactly("store-io");

      store.claimOverride =
          key ->
              CompletableFuture.supplyAsync(
                  () -> {
                    store.claimOverride = k -> null;
                    return store
                        .claim(key, Deduplicator.DEFAULT_LEASE)
                        .toCompletableFuture()
                        .join();
                  },
                  storeThread);
      WebhookResponse second =
          consumer
              .adapterSupport()
              .handle(signed(SECRET, envelope("2", "post.create")), counting)
              .get(5, TimeUnit.SECONDS);
      assertThat(second.status()).isEqualTo(200);
      assertThat(listenerThreads).containsExactly("listener-worker");
      assertThat(handedOff).hasValue(1);
      assertThat(store.done).containsExactly("e:1", "e:2");
    } finally {
      storeThread.shutdownNow();
    }
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
}
