package io.servicehooks.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The core's side of durable mode against a small in-memory inbox; the real one, on PostgreSQL, is
 * tested in webhook-postgres.
 */
final class DurableAcknowledgementTest {

  /** Keeps rows in a map; {@code answer} decides how each store completes. */
  static final class MapInbox implements EventInbox {
    final Map<String, StoredEvent> rows = new ConcurrentHashMap<>();
    volatile CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);
    volatile RuntimeException failure;
    InboxProcessor processor;
    boolean closed;

    @Override
    public CompletionStage<List<InboxOutcome>> store(List<StoredEvent> events) {
      if (failure != null) {
        return CompletableFuture.failedFuture(failure);
      }
      return gate.thenApply(
          ignored -> {
            List<InboxOutcome> out = new ArrayList<>();
            for (StoredEvent e : events) {
              out.add(
                  rows.putIfAbsent(e.dedupKey(), e) == null
                      ? InboxOutcome.STORED
                      : InboxOutcome.DUPLICATE);
            }
            return out;
          });
    }

    @Override
    public void start(InboxProcessor processor) {
      this.processor = processor;
    }

    @Override
    public boolean mayBlock() {
      return false;
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  private final MapInbox inbox = new MapInbox();
  private final List<String> handled = new CopyOnWriteArrayList<>();

  private WebhookConsumer consumer(Duration timeout) {
    return WebhookConsumer.builder()
        .consumerSecrets(Fixtures.SECRET)
        .inbox(inbox)
        .inboxTimeout(timeout)
        .on(
            "post.create",
            event -> {
              if (event.payload().path("text").asText().equals("fail")) {
                throw new IllegalStateException("listener says no");
              }
              handled.add(event.id());
            })
        .build();
  }

  private static String body(WebhookResponse response) {
    return new String(response.body(), StandardCharsets.UTF_8);
  }

  @Test
  void build_durableWithoutInbox_failsNamingTheMissingSetting() {
    WebhookConsumer.Builder builder =
        WebhookConsumer.builder()
            .consumerSecrets(Fixtures.SECRET)
            .acknowledgement(Acknowledgement.DURABLE);

    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("inbox(...)");
  }

  @Test
  void build_inboxThenAnotherMode_fails() {
    WebhookConsumer.Builder builder =
        WebhookConsumer.builder()
            .consumerSecrets(Fixtures.SECRET)
            .inbox(inbox)
            .acknowledgement(Acknowledgement.ASYNCHRONOUS);

    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ASYNCHRONOUS");
  }

  @Test
  void build_withInbox_startsItAndCloseClosesIt() {
    WebhookConsumer consumer = consumer(Duration.ofSeconds(1));

    assertThat(consumer.acknowledgement()).isEqualTo(Acknowledgement.DURABLE);
    assertThat(inbox.processor).isNotNull();
    consumer.close();
    assertThat(inbox.closed).isTrue();
  }

  @Test
  void delivery_stored_answers200AndRunsNoListenerYet() {
    WebhookConsumer consumer = consumer(Duration.ofSeconds(1));

    WebhookResponse r =
        consumer
            .handle(Fixtures.signed(Fixtures.SECRET, Fixtures.envelope("1", "post.create")))
            .join();

    assertThat(r.status()).isEqualTo(200);
    assertThat(body(r)).isEqualTo("{\"status\":\"accepted\",\"events\":1,\"duplicates\":0}");
    assertThat(inbox.rows).containsKey("e:1");
    assertThat(handled).isEmpty();
  }

  @Test
  void delivery_copyOfStoredEvent_answers200Duplicate() {
    WebhookConsumer consumer = consumer(Duration.ofSeconds(1));
    String json = Fixtures.envelope("1", "post.create");
    consumer.handle(Fixtures.signed(Fixtures.SECRET, json)).join();

    WebhookResponse r = consumer.handle(Fixtures.signed(Fixtures.SECRET, json)).join();

    assertThat(r.status()).isEqualTo(200);
    assertThat(body(r)).isEqualTo("{\"status\":\"duplicate\",\"events\":0,\"duplicates\":1}");
    assertThat(inbox.rows).hasSize(1);
  }

  @Test
  void delivery_storeFails_answers503InboxUnavailableWithRetryAfter() {
    WebhookConsumer consumer = consumer(Duration.ofSeconds(1));
    inbox.failure = new IllegalStateException("database down");

    WebhookResponse r =
        consumer
            .handle(Fixtures.signed(Fixtures.SECRET, Fixtures.envelope("1", "post.create")))
            .join();

    assertThat(r.status()).isEqualTo(503);
    assertThat(r.headers()).containsEntry("Retry-After", "1");
    assertThat(body(r)).startsWith("{\"error\":\"inbox_unavailable\"").doesNotContain("database");
  }

  @Test
  void delivery_storeFailsForManyDeliveries_logsNoLinePerDelivery() {
    WebhookConsumer consumer = consumer(Duration.ofSeconds(1));
    inbox.failure = new IllegalStateException("database down");

    try (LogCapture logs = new LogCapture()) {
      for (int i = 0; i < 50; i++) {
        WebhookResponse r =
            consumer
                .handle(Fixtures.signed(Fixtures.SECRET, Fixtures.envelope("" + i, "post.create")))
                .join();
        assertThat(r.status()).isEqualTo(503);
      }

      assertThat(logs.messages(ch.qos.logback.classic.Level.WARN)).isEmpty();
    }
  }

  @Test
  void delivery_storeNeverCommits_answers503AfterTheInboxTimeout() {
    WebhookConsumer consumer = consumer(Duration.ofMillis(100));
    inbox.gate = new CompletableFuture<>();

    WebhookResponse r =
        consumer
            .handle(Fixtures.signed(Fixtures.SECRET, Fixtures.envelope("1", "post.create")))
            .join();

    assertThat(r.status()).isEqualTo(503);
    assertThat(body(r)).contains("inbox_unavailable").contains("in time");
  }

  @Test
  void processor_runsListenersOnTheRestoredEvent() throws Exception {
    WebhookConsumer consumer = consumer(Duration.ofSeconds(1));
    consumer.handle(Fixtures.signed(Fixtures.SECRET, Fixtures.envelope("7", "post.create"))).join();

    inbox.processor.process(inbox.rows.get("e:7"));

    assertThat(handled).containsExactly("7");
  }

  @Test
  void processor_listenerThrows_throwsTheListenersException() {
    consumer(Duration.ofSeconds(1));
    StoredEvent failing =
        new StoredEvent(
            "8",
            "e:8",
            "post.create",
            "post.create",
            PayloadFamily.ACTIVITY,
            null,
            null,
            null,
            "{\"text\":\"fail\"}",
            "{}");

    assertThatThrownBy(() -> inbox.processor.process(failing))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("listener says no");
  }
}
