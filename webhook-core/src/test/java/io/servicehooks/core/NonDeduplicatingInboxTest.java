package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Durable mode with an inbox that keeps whatever it is given: the events are claimed in the
 * consumer's Deduplicator first, like the other modes, with its outage and late-answer rules.
 */
final class NonDeduplicatingInboxTest {

  /** Keeps every event it is given, copies too, and answers at once. */
  static final class ListInbox implements EventInbox {
    final List<StoredEvent> kept = new CopyOnWriteArrayList<>();

    @Override
    public boolean deduplicates() {
      return false;
    }

    @Override
    public boolean mayBlock() {
      return false;
    }

    @Override
    public CompletionStage<List<InboxOutcome>> store(List<StoredEvent> events) {
      List<InboxOutcome> outcomes = new ArrayList<>();
      for (StoredEvent event : events) {
        kept.add(event);
        outcomes.add(InboxOutcome.STORED);
      }
      return CompletableFuture.completedFuture(outcomes);
    }

    @Override
    public void start(InboxProcessor processor) {}

    @Override
    public void close() {}
  }

  private final ListInbox inbox = new ListInbox();
  private final TestStore store = new TestStore();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private WebhookConsumer consumer() {
    return WebhookConsumer.builder()
        .consumerSecrets(SECRET)
        .inbox(inbox)
        .deduplicator(store)
        .dedupTimeout(Duration.ofSeconds(5))
        .meterRegistry(registry)
        .on("post.create", event -> {})
        .build();
  }

  private static WebhookResponse post(WebhookConsumer consumer, String id) {
    return consumer.handle(Fixtures.signed(SECRET, Fixtures.envelope(id, "post.create"))).join();
  }

  private static String body(WebhookResponse response) {
    return new String(response.body(), StandardCharsets.UTF_8);
  }

  @Test
  void copyOfStoredEvent_claimedInTheDeduplicator_answeredDuplicate_keptOnce() {
    WebhookConsumer consumer = consumer();

    assertThat(body(post(consumer, "1"))).contains("\"accepted\"");
    assertThat(body(post(consumer, "1"))).contains("\"duplicate\"");

    assertThat(inbox.kept).hasSize(1);
    assertThat(store.claims).hasSize(2);
    assertThat(store.done).hasSize(1);
  }

  @Test
  void dedupStoreDown_503DedupUnavailable_nothingKept() {
    WebhookConsumer consumer = consumer();
    store.claimOverride = key -> TestStore.failure("store down");

    WebhookResponse r = post(consumer, "1");

    assertThat(r.status()).isEqualTo(503);
    assertThat(body(r)).contains("dedup_unavailable");
    assertThat(inbox.kept).isEmpty();
  }

  @Test
  void claimAnsweredLater_keptThenMarkedDone() {
    WebhookConsumer consumer = consumer();
    CompletableFuture<Deduplicator.Claim> late = new CompletableFuture<>();
    store.claimOverride =
        key -> {
          store.entries.put(key, "t1"); // what the store holds once it answers
          return late;
        };

    CompletableFuture<WebhookResponse> answer =
        consumer.handle(Fixtures.signed(SECRET, Fixtures.envelope("1", "post.create")));
    assertThat(answer).isNotDone();
    assertThat(inbox.kept).isEmpty();
    // On the thread that brings the store's answer: this inbox does not block.
    late.complete(Deduplicator.Claim.claimed("t1"));

    WebhookResponse r = answer.join();
    assertThat(r.status()).as(body(r)).isEqualTo(200);
    assertThat(inbox.kept).hasSize(1);
    assertThat(store.done).hasSize(1);
  }

  @Test
  void nonDeduplicatingInbox_dedupMetersRegistered() {
    consumer();

    assertThat(registry.find("webhook.dedup.running.elsewhere").counter()).isNotNull();
    assertThat(registry.find("webhook.duplicates.waiting").gauge()).isNotNull();
  }

  /** Counts the stores it is asked for and never answers them. */
  static final class SilentInbox implements EventInbox {
    final List<StoredEvent> asked = new CopyOnWriteArrayList<>();

    @Override
    public boolean deduplicates() {
      return false;
    }

    @Override
    public boolean mayBlock() {
      return false;
    }

    @Override
    public CompletionStage<List<InboxOutcome>> store(List<StoredEvent> events) {
      asked.addAll(events);
      return new CompletableFuture<>();
    }

    @Override
    public void start(InboxProcessor processor) {}

    @Override
    public void close() {}
  }

  private WebhookConsumer consumer(EventInbox silent, AtomicLong clock) {
    return WebhookConsumer.builder()
        .consumerSecrets(SECRET)
        .inbox(silent)
        .deduplicator(store)
        .dedupTimeout(Duration.ofSeconds(5))
        .inboxTimeout(Duration.ofSeconds(5))
        .nanoTime(clock::get)
        .on("post.create", event -> {})
        .build();
  }

  /**
   * A copy whose claim came only after another instance's attempt gave up (the in-flight wait) has
   * not got a fresh store time-out: 5 s of waiting plus 5 s of storing would answer the platform
   * after its 10 s.
   */
  @Test
  void claimAfterALongWait_storeGetsWhatIsLeftOfTheBudget_answer503InTime() {
    SilentInbox silent = new SilentInbox();
    AtomicLong clock = new AtomicLong(1_000_000_000L);
    WebhookConsumer consumer = consumer(silent, clock);
    CompletableFuture<Deduplicator.Claim> late = new CompletableFuture<>();
    store.claimOverride =
        key -> {
          store.entries.put(key, "t1");
          return late;
        };

    CompletableFuture<WebhookResponse> answer =
        consumer.handle(Fixtures.signed(SECRET, Fixtures.envelope("1", "post.create")));
    clock.addAndGet(Duration.ofMillis(8_000).toNanos()); // the other instance's attempt ran 8 s
    long claimed = System.nanoTime();
    late.complete(Deduplicator.Claim.claimed("t1"));

    WebhookResponse r = answer.orTimeout(9, TimeUnit.SECONDS).join();
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - claimed);
    assertThat(r.status()).as(body(r)).isEqualTo(503);
    assertThat(body(r)).contains("inbox_unavailable");
    assertThat(silent.asked).hasSize(1);
    // About 1 s was left of the 9 s store deadline, not the 5 s inbox time-out.
    assertThat(tookMillis).isBetween(500L, 4_000L);
    assertThat(store.released).hasSize(1);
  }

  @Test
  void claimTooCloseToTheBudget_nothingStored_answer503AtOnce_claimReleased() {
    SilentInbox silent = new SilentInbox();
    AtomicLong clock = new AtomicLong(1_000_000_000L);
    WebhookConsumer consumer = consumer(silent, clock);
    CompletableFuture<Deduplicator.Claim> late = new CompletableFuture<>();
    store.claimOverride =
        key -> {
          store.entries.put(key, "t1");
          return late;
        };

    CompletableFuture<WebhookResponse> answer =
        consumer.handle(Fixtures.signed(SECRET, Fixtures.envelope("1", "post.create")));
    clock.addAndGet(Duration.ofMillis(8_900).toNanos());
    late.complete(Deduplicator.Claim.claimed("t1"));

    WebhookResponse r = answer.orTimeout(5, TimeUnit.SECONDS).join();
    assertThat(r.status()).as(body(r)).isEqualTo(503);
    assertThat(body(r)).contains("inbox_unavailable");
    assertThat(silent.asked).isEmpty();
    assertThat(store.released).hasSize(1);
  }
}
