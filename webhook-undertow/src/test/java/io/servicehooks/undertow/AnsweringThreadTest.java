package io.servicehooks.undertow;

import static io.servicehooks.undertow.Http.envelope;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.core.Deduplicator;
import io.servicehooks.core.WebhookConsumer;
import io.undertow.Undertow;
import io.undertow.server.HttpHandler;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Which thread writes an answer that was not ready on the IO thread: the exchange's IO thread,
 * whether a listener worker or another thread (a network dedup store's callback) brought it; never
 * the store's thread, never the worker.
 */
final class AnsweringThreadTest {

  private static final String SECRET = "consumer-secret";

  private final ScheduledExecutorService storeThread =
      Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "store-callback"));
  private final List<String> completedOn = new CopyOnWriteArrayList<>();
  private Undertow undertow;

  @AfterEach
  void tearDown() {
    if (undertow != null) {
      undertow.stop();
    }
    storeThread.shutdownNow();
  }

  private URI serve(WebhookConsumer consumer) {
    WebhookHandler webhooks = new WebhookHandler(consumer);
    HttpHandler recording =
        exchange -> {
          exchange.addExchangeCompleteListener(
              (ex, next) -> {
                completedOn.add(Thread.currentThread().getName());
                next.proceed();
              });
          webhooks.handleRequest(exchange);
        };
    undertow = Undertow.builder().addHttpListener(0, "127.0.0.1").setHandler(recording).build();
    undertow.start();
    int port = ((InetSocketAddress) undertow.getListenerInfo().get(0).getAddress()).getPort();
    return URI.create("http://127.0.0.1:" + port + "/webhooks");
  }

  @Test
  void answerBroughtByTheStoresThread_isWrittenByTheIoThread() throws Exception {
    List<String> handled = new CopyOnWriteArrayList<>();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .deduplicator(new CallbackStore(storeThread))
            .on("post.create", e -> handled.add(e.id()))
            .build();
    URI uri = serve(consumer);

    for (int i = 1; i <= 5; i++) {
      assertThat(
              Http.postSigned(uri, SECRET, envelope(String.valueOf(i), "post.create")).statusCode())
          .isEqualTo(200);
    }
    // A listener ran on a worker, then the store marked the event done on its own thread: that
    // thread brought the answer, and the IO thread wrote it.
    assertThat(handled).containsExactly("1", "2", "3", "4", "5");
    // The exchange ends just after the client has its answer.
    await().atMost(Duration.ofSeconds(5)).until(() -> completedOn.size() == 5);
    assertThat(completedOn).allMatch(name -> name.contains("I/O"), "an IO thread");

    // A copy: the store's answer resumes on a worker, which has the answer ready; never written
    // by the store's thread.
    assertThat(Http.postSigned(uri, SECRET, envelope("1", "post.create")).body())
        .contains("duplicate");
    await().atMost(Duration.ofSeconds(5)).until(() -> completedOn.size() == 6);
    assertThat(completedOn).noneMatch(name -> name.equals("store-callback"));
  }

  @Test
  void answerReadyOnAListenerWorker_isWrittenByTheIoThread() throws Exception {
    List<String> ranOn = new CopyOnWriteArrayList<>();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            // Slow enough that the answer is not ready when the IO thread hands the exchange off.
            .on(
                "post.create",
                e -> {
                  ranOn.add(Thread.currentThread().getName());
                  sleep(50);
                })
            .build();
    URI uri = serve(consumer);

    assertThat(Http.postSigned(uri, SECRET, envelope("1", "post.create")).statusCode())
        .isEqualTo(200);

    await().atMost(Duration.ofSeconds(5)).until(() -> completedOn.size() == 1);
    assertThat(ranOn).singleElement().asString().contains("task").doesNotContain("I/O");
    assertThat(completedOn.get(0)).contains("I/O");
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A store in a map that answers later on its own thread, as a network client does. */
  private static final class CallbackStore implements Deduplicator {
    private final Map<String, String> entries = new ConcurrentHashMap<>();
    private final ScheduledExecutorService thread;

    CallbackStore(ScheduledExecutorService thread) {
      this.thread = thread;
    }

    private <T> CompletionStage<T> later(java.util.function.Supplier<T> answer) {
      return later(1, answer);
    }

    private <T> CompletionStage<T> later(long millis, java.util.function.Supplier<T> answer) {
      CompletableFuture<T> f = new CompletableFuture<>();
      thread.schedule(() -> f.complete(answer.get()), millis, TimeUnit.MILLISECONDS);
      return f;
    }

    @Override
    public CompletionStage<Claim> claim(String key, Duration lease) {
      return later(
          () -> {
            String token = UUID.randomUUID().toString();
            String existing = entries.putIfAbsent(key, token);
            if (existing == null) {
              return Claim.claimed(token);
            }
            return existing.equals("done") ? Claim.done() : Claim.runningElsewhere(lease);
          });
    }

    @Override
    public CompletionStage<Boolean> markDone(String key, String token) {
      // Long after the worker that ran the listener moved on: this thread brings the answer.
      return later(50, () -> entries.replace(key, token, "done"));
    }

    @Override
    public CompletionStage<Boolean> release(String key, String token) {
      return later(() -> entries.remove(key, token));
    }

    @Override
    public CompletionStage<Boolean> renew(String key, String token, Duration lease) {
      return later(() -> token.equals(entries.get(key)));
    }

    @Override
    public boolean mayBlock() {
      return false;
    }
  }
}
