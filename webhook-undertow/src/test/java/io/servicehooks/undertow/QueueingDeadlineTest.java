package io.servicehooks.undertow;

import static io.servicehooks.undertow.Http.envelope;
import static io.servicehooks.undertow.Http.postSigned;
import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.core.WebhookConsumer;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * In synchronous mode a delivery whose listeners cannot start within the queueing deadline is
 * answered 503 {@code busy} with its claims released, instead of 200 long after the platform gave
 * up.
 */
final class QueueingDeadlineTest {

  private static final String SECRET = "current-consumer-secret";

  private WebhookServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void oneWorkerSlowListener_deliveriesPastTheDeadline_are503BusyAndRunOnRedelivery()
      throws Exception {
    Set<String> ran = ConcurrentHashMap.newKeySet();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .queueingDeadline(Duration.ofMillis(500))
            .on(
                "post.create",
                e -> {
                  Thread.sleep(300); // simulated work that holds the only worker thread
                  ran.add(e.id());
                })
            .build();
    server =
        WebhookServer.builder(consumer).host("127.0.0.1").port(0).workerThreads(1).build().start();
    URI uri = URI.create("http://127.0.0.1:" + server.port() + "/webhooks");

    Map<String, CompletableFuture<HttpResponse<String>>> pending = new LinkedHashMap<>();
    for (int i = 0; i < 40; i++) {
      String id = "bp" + i;
      pending.put(id, Http.postSignedAsync(uri, SECRET, envelope(id, "post.create")));
    }
    List<String> busy = new ArrayList<>();
    for (Map.Entry<String, CompletableFuture<HttpResponse<String>>> e : pending.entrySet()) {
      HttpResponse<String> r = e.getValue().get(30, TimeUnit.SECONDS);
      if (r.statusCode() == 200) {
        // Synchronous mode: a 200 only after the listener ran.
        assertThat(ran).as(e.getKey()).contains(e.getKey());
      } else {
        assertThat(r.statusCode()).as(e.getKey()).isEqualTo(503);
        assertThat(r.body()).contains("\"error\":\"busy\"");
        assertThat(r.headers().firstValue("Retry-After")).isPresent();
        assertThat(ran).as(e.getKey()).doesNotContain(e.getKey());
        busy.add(e.getKey());
      }
    }
    assertThat(busy).isNotEmpty();

    // Their claims were released: the platform's retry runs the listener and gets 200.
    String retried = busy.get(busy.size() - 1);
    HttpResponse<String> again = postSigned(uri, SECRET, envelope(retried, "post.create"));
    assertThat(again.statusCode()).isEqualTo(200);
    assertThat(again.body()).contains("\"status\":\"accepted\"");
    assertThat(ran).contains(retried);
  }
}
