package io.servicehooks.undertow;

import static io.servicehooks.undertow.Http.envelope;
import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.core.WebhookConsumer;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Listeners that may block run on Undertow's worker pool, which the handler reaches through {@link
 * TurnBatches}: deliveries read in one turn of the IO thread go to the pool together, yet listeners
 * that block still run side by side, one per pool thread.
 */
final class ListenerWorkersTest {

  private static final String SECRET = "consumer-secret";
  private static final int DELIVERIES = 4;

  private WebhookServer server;

  @AfterEach
  void tearDown() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void blockingListeners_runSideBySide_eachDeliveryAnswered() throws Exception {
    // Each listener waits until all of them have started: they pass only if they run at once.
    CountDownLatch allStarted = new CountDownLatch(DELIVERIES);
    Set<String> threads = ConcurrentHashMap.newKeySet();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .on(
                "post.create",
                e -> {
                  threads.add(Thread.currentThread().getName());
                  allStarted.countDown();
                  if (!allStarted.await(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("listeners did not run side by side");
                  }
                })
            .build();
    server =
        WebhookServer.builder(consumer)
            .host("127.0.0.1")
            .port(0)
            .ioThreads(1)
            .workerThreads(DELIVERIES)
            .build()
            .start();
    URI uri = URI.create("http://127.0.0.1:" + server.port() + server.path());

    List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
    for (int i = 0; i < DELIVERIES; i++) {
      answers.add(Http.postSignedAsync(uri, SECRET, envelope("e" + i, "post.create")));
    }
    for (CompletableFuture<HttpResponse<String>> answer : answers) {
      HttpResponse<String> response = answer.get(20, TimeUnit.SECONDS);
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).contains("\"events\":1");
    }
    assertThat(threads).hasSize(DELIVERIES).allMatch(name -> name.contains("task"));
  }
}
