package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.core.Deduplicator;
import io.servicehooks.core.PayloadFamily;
import io.servicehooks.core.StoredEvent;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookSigner;
import io.servicehooks.undertow.WebhookServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A mode added outside the core through the inbox door: a spool that keeps copies too, behind a
 * real server and client. The consumer claims in its Deduplicator, hands in only what it owns,
 * marks done after the spool's acknowledgement and releases on a failed hand-off; the spool's
 * reader runs the consumer's listeners through the processor.
 */
final class SpoolInboxTest {

  private static final String SECRET = "spool-secret";

  /** What the spool was handed, in order, with the acknowledgement the test gives or withholds. */
  private record Append(StoredEvent event, CompletableFuture<Void> ack) {}

  private final List<Append> appended = new CopyOnWriteArrayList<>();
  private final List<String> steps = new CopyOnWriteArrayList<>();
  private final List<String> ran = new CopyOnWriteArrayList<>();
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private volatile boolean ackAtOnce = true;
  private volatile boolean refuse;
  private WebhookServer server;
  private SpoolInbox inbox;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private void serve() {
    inbox =
        new SpoolInbox(
            event -> {
              CompletableFuture<Void> ack = new CompletableFuture<>();
              appended.add(new Append(event, ack));
              steps.add("appended " + event.id());
              if (refuse) {
                ack.completeExceptionally(new IllegalStateException("the spool is full"));
              } else if (ackAtOnce) {
                acknowledge(event, ack);
              }
              return ack;
            });
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .inbox(inbox)
            .inboxTimeout(Duration.ofSeconds(5))
            .deduplicator(new RecordingStore(new MapDeduplicator(Deduplicator.DEFAULT_WINDOW)))
            .on("post.create", event -> ran.add(event.id()))
            .build();
    server = WebhookServer.builder(consumer).host("127.0.0.1").port(0).build().start();
  }

  /** The spool keeps the event: noted before the consumer can learn it. */
  private void acknowledge(StoredEvent event, CompletableFuture<Void> ack) {
    steps.add("acknowledged " + event.id());
    ack.complete(null);
  }

  private CompletableFuture<HttpResponse<String>> post(String id) {
    byte[] body =
        ("{\"data\":{\"event_uuid\":\"" + id + "\",\"event_type\":\"post.create\",\"payload\":{}}}")
            .getBytes(StandardCharsets.UTF_8);
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/webhooks"))
            .timeout(Duration.ofSeconds(10))
            .header(WebhookRequest.SIGNATURE_HEADER, WebhookSigner.sign(SECRET, body))
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
    return client.sendAsync(request, HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> answer(String id) throws Exception {
    return post(id).get(10, TimeUnit.SECONDS);
  }

  @Test
  void duplicate_answeredDuplicate_handedInOnce() throws Exception {
    serve();
    HttpResponse<String> first = answer("1");
    HttpResponse<String> copy = answer("1");

    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body()).contains("\"accepted\"");
    assertThat(copy.statusCode()).isEqualTo(200);
    assertThat(copy.body()).contains("\"duplicate\"");
    assertThat(appended).hasSize(1);
  }

  @Test
  void copyWhileHandOffUnacknowledged_503InFlight_thenDoneAfterTheAcknowledgement()
      throws Exception {
    ackAtOnce = false;
    serve();
    CompletableFuture<HttpResponse<String>> first = post("2");
    await().atMost(Duration.ofSeconds(10)).until(() -> appended.size() == 1);

    HttpResponse<String> copy = answer("2");
    assertThat(copy.statusCode()).isEqualTo(503);
    assertThat(copy.body()).contains("in_flight");
    assertThat(copy.headers().firstValue("Retry-After")).isPresent();
    assertThat(first).isNotDone();
    assertThat(steps).doesNotContain("done 2");

    acknowledge(appended.get(0).event(), appended.get(0).ack());
    assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    // Marked done only once the spool acknowledged it.
    assertThat(steps).containsExactly("appended 2", "acknowledged 2", "done 2");
    assertThat(answer("2").body()).contains("\"duplicate\"");
    assertThat(appended).hasSize(1);
  }

  @Test
  void failedHandOff_503InboxUnavailable_claimReleased_retryHandedIn() throws Exception {
    refuse = true;
    serve();
    HttpResponse<String> refused = answer("3");

    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(refused.body()).contains("inbox_unavailable");
    assertThat(refused.headers().firstValue("Retry-After")).isPresent();
    assertThat(steps).contains("released 3").doesNotContain("done 3");

    refuse = false;
    HttpResponse<String> retry = answer("3");
    assertThat(retry.statusCode()).isEqualTo(200);
    assertThat(retry.body()).contains("\"accepted\"");
    assertThat(appended).hasSize(2);
    assertThat(steps).endsWith("acknowledged 3", "done 3");
  }

  @Test
  void handedInEvent_runsTheListenersThroughTheProcessor() throws Exception {
    serve();
    assertThat(answer("4").statusCode()).isEqualTo(200);
    assertThat(ran).isEmpty(); // the edge only hands in

    // The reader: whatever it takes from the spool runs the consumer's listeners.
    List<StoredEvent> taken = new ArrayList<>();
    for (Append a : appended) {
      taken.add(a.event());
    }
    for (StoredEvent event : taken) {
      inbox.process(event);
    }
    assertThat(ran).containsExactly("4");
    assertThat(taken.get(0).family()).isNotNull().isInstanceOf(PayloadFamily.class);
  }

  /** The store the consumer claims in, telling the test when a claim is marked done or released. */
  private final class RecordingStore implements Deduplicator {
    private final Deduplicator store;

    RecordingStore(Deduplicator store) {
      this.store = store;
    }

    @Override
    public CompletionStage<Claim> claim(String key, Duration lease) {
      return store.claim(key, lease);
    }

    @Override
    public CompletionStage<Boolean> markDone(String key, String token) {
      steps.add("done " + idOf(key));
      return store.markDone(key, token);
    }

    @Override
    public CompletionStage<Boolean> release(String key, String token) {
      steps.add("released " + idOf(key));
      return store.release(key, token);
    }

    @Override
    public CompletionStage<Boolean> renew(String key, String token, Duration lease) {
      return store.renew(key, token, lease);
    }

    @Override
    public boolean mayBlock() {
      return false;
    }

    private String idOf(String key) {
      return key.substring(key.lastIndexOf(':') + 1);
    }
  }
}
