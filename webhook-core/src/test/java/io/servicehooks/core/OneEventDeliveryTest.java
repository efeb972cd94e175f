package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static io.servicehooks.core.Fixtures.envelope;
import static io.servicehooks.core.Fixtures.signed;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A delivery of one event, the activity stream's every line and most webhook POSTs, in synchronous
 * mode with its listeners on the calling thread: the answer, the store's calls and the meters are
 * what a batch gives for each of its events, whether the store answers at once or later.
 */
final class OneEventDeliveryTest {

  private final List<String> seen = new CopyOnWriteArrayList<>();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private static byte[] line(String id) {
    return envelope(id, "post.create").getBytes(StandardCharsets.UTF_8);
  }

  /** A consumer on {@code store} whose listener records each event's id. */
  private WebhookConsumer recording(TestStore store) {
    return WebhookConsumer.builder()
        .consumerSecrets(SECRET)
        .deduplicator(store)
        .meterRegistry(registry)
        .on("post.create", e -> seen.add(e.id()))
        .build();
  }

  private double deliveries(String outcome) {
    return registry.counter("webhook.deliveries", "outcome", outcome).count();
  }

  @Test
  void handled_answers200_marksTheEventDoneOnce_andCountsTheDelivery() {
    TestStore store = new TestStore();
    WebhookConsumer consumer = recording(store);

    WebhookResponse first = consumer.handleFromOwnConnection(line("1876")).join();
    WebhookResponse copy = consumer.handleFromOwnConnection(line("1876")).join();

    assertThat(first.status()).isEqualTo(200);
    assertThat(first.bodyAsString())
        .isEqualTo("{\"status\":\"accepted\",\"events\":1,\"duplicates\":0}");
    assertThat(copy.bodyAsString())
        .isEqualTo("{\"status\":\"duplicate\",\"events\":0,\"duplicates\":1}");
    assertThat(seen).containsExactly("1876");
    assertThat(store.claims).containsExactly("e:1876", "e:1876");
    assertThat(store.done).containsExactly("e:1876");
    assertThat(store.released).isEmpty();
    assertThat(deliveries("accepted")).isEqualTo(1.0);
    assertThat(deliveries("duplicate")).isEqualTo(1.0);
    assertThat(registry.timer("webhook.delivery.latency").count()).isEqualTo(2);
    assertThat(
            registry
                .counter("webhook.events", "type", "post.create", "outcome", "dispatched")
                .count())
        .isEqualTo(1.0);
  }

  @Test
  void listenerFails_answers500_releasesTheClaim_andTheRedeliveryRuns() {
    TestStore store = new TestStore();
    List<Throwable> heard = new CopyOnWriteArrayList<>();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .deduplicator(store)
            .meterRegistry(registry)
            .on(
                "post.create",
                e -> {
                  if (heard.isEmpty()) {
                    throw new IllegalStateException("database down");
                  }
                  seen.add(e.id());
                })
            .onError((e, t) -> heard.add(t))
            .build();

    WebhookResponse failed = consumer.handle(signed(SECRET, envelope("41", "post.create"))).join();
    WebhookResponse again = consumer.handle(signed(SECRET, envelope("41", "post.create"))).join();

    assertThat(failed.status()).isEqualTo(500);
    assertThat(failed.bodyAsString()).contains("\"error\":\"listener_failed\"");
    assertThat(heard).extracting(Throwable::getMessage).containsExactly("database down");
    assertThat(store.released).containsExactly("e:41");
    assertThat(again.status()).isEqualTo(200);
    assertThat(seen).containsExactly("41");
    assertThat(store.done).containsExactly("e:41");
    assertThat(deliveries("failed")).isEqualTo(1.0);
    assertThat(deliveries("accepted")).isEqualTo(1.0);
  }

  @Test
  void markDoneAnsweredLater_theAnswerWaitsForIt_andACopyMeanwhileSharesTheOutcome()
      throws Exception {
    TestStore store = new TestStore();
    CompletableFuture<Void> marked = new CompletableFuture<>();
    store.markDoneAnswered = marked;
    WebhookConsumer consumer = recording(store);

    CompletableFuture<WebhookResponse> first = consumer.handleFromOwnConnection(line("7"));
    CompletableFuture<WebhookResponse> copy =
        consumer.handle(signed(SECRET, envelope("7", "post.create")));

    // The listener ran; the event is not done until the store says so, and the copy waits in this
    // process for the original's outcome instead of asking the store.
    assertThat(seen).containsExactly("7");
    assertThat(first).isNotDone();
    assertThat(copy).isNotDone();
    assertThat(store.claims).containsExactly("e:7");

    marked.complete(null);

    assertThat(first.get(5, TimeUnit.SECONDS).bodyAsString())
        .isEqualTo("{\"status\":\"accepted\",\"events\":1,\"duplicates\":0}");
    assertThat(copy.get(5, TimeUnit.SECONDS).bodyAsString())
        .isEqualTo("{\"status\":\"duplicate\",\"events\":0,\"duplicates\":1}");
    assertThat(seen).containsExactly("7");
    assertThat(store.done).containsExactly("e:7");
    assertThat(deliveries("accepted")).isEqualTo(1.0);
  }

  @Test
  void markDoneFails_theAnswerStands_andTheClaimEndsInThisProcess() throws Exception {
    TestStore store = new TestStore();
    store.failMarkDone = key -> true;
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .deduplicator(store)
            .inFlightWait(Duration.ofMillis(100))
            .on("post.create", e -> seen.add(e.id()))
            .build();

    WebhookResponse first = consumer.handleFromOwnConnection(line("9")).get(5, TimeUnit.SECONDS);
    WebhookResponse again = consumer.handleFromOwnConnection(line("9")).get(5, TimeUnit.SECONDS);

    // The listener succeeded: a store that fails to remember it is logged, never turned into a
    // failure. Nothing in this process holds the event any more, so the copy asks the store
    // (again after each pause), which still holds the first claim: 503 in_flight once the in-flight
    // wait ran out, and not run again.
    assertThat(first.status()).isEqualTo(200);
    assertThat(store.claims).hasSizeGreaterThan(1).containsOnly("e:9");
    assertThat(again.status()).isEqualTo(503);
    assertThat(again.bodyAsString()).contains("\"error\":\"in_flight\"");
    assertThat(seen).containsExactly("9");
  }
}
