package io.servicehooks.contracts;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.core.EventInbox;
import io.servicehooks.core.InboxOutcome;
import io.servicehooks.core.InboxProcessor;
import io.servicehooks.core.PayloadFamily;
import io.servicehooks.core.StoredEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link EventInbox}, as a JUnit 5 suite that every inbox runs: the store that is
 * also the dedup ({@link InboxOutcome#DUPLICATE} in the same step, also under concurrent copies on
 * two instances), the hand-over of each stored event to the {@link InboxProcessor} with every value
 * intact, retries of a failed listener until it succeeds, no second run of a done event, an event
 * whose listener did not finish handled again by another instance, a closed inbox that takes
 * nothing, and an inbox that cannot reach its storage. A store's test class extends it:
 *
 * <pre>{@code
 * final class MyInboxContractTest extends EventInboxContract {
 *   @Override
 *   protected EventInbox newInbox() {
 *     return MyInbox.builder().dataSource(dataSource).retryDelay(Duration.ofMillis(50)).build();
 *   }
 * }
 * }</pre>
 *
 * <p>Each case starts the inboxes it needs with a processor of its own and closes every inbox after
 * the case; then {@link #cleanUp()} runs, where the subclass frees the case's storage (JUnit runs a
 * subclass's own {@code @AfterEach} before this class's). The cases wait for asynchronous work with
 * bounded waits of {@link #patience()}, never a fixed sleep, so a slow machine only makes a run
 * longer.
 *
 * <p>The cases about copies assume the inbox {@linkplain EventInbox#deduplicates() deduplicates}
 * and are skipped for one that does not. A case an inbox cannot meet otherwise is overridden in its
 * subclass with {@code @Disabled} and the reason, so the exception stays visible in the inbox's
 * test report.
 */
public abstract class EventInboxContract {

  /**
   * The platform's answer budget: a delivery's store completes (or fails) within it, including on
   * an inbox that cannot reach its storage.
   */
  protected static final Duration ANSWER_BUDGET = Duration.ofSeconds(10);

  private final List<EventInbox> made = new ArrayList<>();
  private final List<CountDownLatch> blocked = new CopyOnWriteArrayList<>();

  /**
   * A new inbox, not started, on storage that holds no event this case did not store. Called more
   * than once in a case: every call is another instance of the same consumer, on the same storage.
   * Configure it so that a failed event is tried again within a second or two, and an event whose
   * instance closed before its listener finished is due again within {@link #patience()}.
   */
  protected abstract EventInbox newInbox() throws Exception;

  /**
   * An inbox whose storage cannot be reached, not started, or {@code null} when it has no storage
   * to lose: the time-out case is then skipped.
   */
  protected EventInbox unreachableInbox() throws Exception {
    return null;
  }

  /**
   * The bound on every wait for the inbox's own work: an event handed to the processor, a retry, an
   * event taken over from a closed instance (default 30 s).
   */
  protected Duration patience() {
    return Duration.ofSeconds(30);
  }

  /** Frees what a case used (a schema, a queue); runs after the suite closed the inboxes. */
  protected void cleanUp() throws Exception {}

  @AfterEach
  final void closeInboxes() throws Exception {
    try {
      blocked.forEach(CountDownLatch::countDown);
      for (EventInbox inbox : made) {
        inbox.close();
      }
    } finally {
      made.clear();
      cleanUp();
    }
  }

  private EventInbox inbox() throws Exception {
    EventInbox inbox = newInbox();
    assertThat(inbox).as("newInbox()").isNotNull();
    made.add(inbox);
    return inbox;
  }

  private EventInbox started(InboxProcessor processor) throws Exception {
    EventInbox inbox = inbox();
    inbox.start(processor);
    return inbox;
  }

  /** One event as the consumer would store it, with every value set. */
  protected static StoredEvent event(String id) {
    String payload = "{\"id\":\"" + id + "\",\"text\":\"h\u00e9llo \\\"" + id + "\\\"\"}";
    return new StoredEvent(
        id,
        "e:" + id,
        "post.create",
        "tweet_create_events",
        PayloadFamily.ACTIVITY,
        "2244994945",
        "tag-" + id,
        "{\"user_id\":\"9\"}",
        payload,
        "{\"data\":{\"event_uuid\":\"" + id + "\",\"payload\":" + payload + "}}",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  }

  private static List<InboxOutcome> store(EventInbox inbox, StoredEvent... events)
      throws Exception {
    CompletionStage<List<InboxOutcome>> stage = inbox.store(List.of(events));
    assertThat(stage).as("store's stage").isNotNull();
    return stage.toCompletableFuture().get(ANSWER_BUDGET.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Counts each event the processor was given, by id, and lets a case wait for one. */
  private final class Recorder implements InboxProcessor {
    final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    final Map<String, CompletableFuture<StoredEvent>> seen = new ConcurrentHashMap<>();

    @Override
    public void process(StoredEvent event) throws Exception {
      runs.computeIfAbsent(event.id(), id -> new AtomicInteger()).incrementAndGet();
      future(event.id()).complete(event);
    }

    CompletableFuture<StoredEvent> future(String id) {
      return seen.computeIfAbsent(id, x -> new CompletableFuture<>());
    }

    StoredEvent awaitRun(String id) throws Exception {
      return future(id).get(patience().toMillis(), TimeUnit.MILLISECONDS);
    }

    int runs(String id) {
      AtomicInteger n = runs.get(id);
      return n == null ? 0 : n.get();
    }
  }

  /**
   * Skips a case about the store being the dedup for an inbox that {@linkplain
   * EventInbox#deduplicates() does not deduplicate}: the consumer claims its events in a {@code
   * Deduplicator} instead, whose own contract covers copies.
   */
  private void assumeDeduplicates() throws Exception {
    EventInbox probe = newInbox();
    made.add(probe);
    Assumptions.assumeTrue(
        probe.deduplicates(), "the inbox does not deduplicate: the consumer's Deduplicator does");
  }

  // ---- storing: the insert is the dedup

  /** New events are stored, one outcome per event, in the order given. */
  @Test
  public void store_newEvents_storedOneOutcomePerEvent() throws Exception {
    EventInbox inbox = inbox();

    assertThat(store(inbox, event("1"), event("2"), event("3")))
        .containsExactly(InboxOutcome.STORED, InboxOutcome.STORED, InboxOutcome.STORED);
  }

  /** A copy of a stored event is a duplicate; the outcomes keep the delivery's order. */
  @Test
  public void store_copyOfStoredEvent_duplicateInItsPlace() throws Exception {
    assumeDeduplicates();
    EventInbox inbox = inbox();
    store(inbox, event("1"));

    assertThat(store(inbox, event("2"), event("1"), event("3")))
        .containsExactly(InboxOutcome.STORED, InboxOutcome.DUPLICATE, InboxOutcome.STORED);
  }

  /** Two copies in one delivery: one is stored, the other is its duplicate, and one runs. */
  @Test
  public void store_twoCopiesInOneDelivery_oneStoredOneDuplicate() throws Exception {
    assumeDeduplicates();
    Recorder recorder = new Recorder();
    EventInbox inbox = started(recorder);

    assertThat(store(inbox, event("1"), event("1")))
        .containsExactlyInAnyOrder(InboxOutcome.STORED, InboxOutcome.DUPLICATE);

    recorder.awaitRun("1");
    store(inbox, event("marker"));
    recorder.awaitRun("marker");
    assertThat(recorder.runs("1")).isEqualTo(1);
  }

  /** The copy of an event that arrived on another instance is a duplicate there too. */
  @Test
  public void store_copyOnAnotherInstance_duplicate() throws Exception {
    assumeDeduplicates();
    EventInbox first = inbox();
    EventInbox second = inbox();
    store(first, event("1"));

    assertThat(store(second, event("1"))).containsExactly(InboxOutcome.DUPLICATE);
  }

  // ---- processing

  /** A stored event reaches the processor once, with every value as it was stored. */
  @Test
  public void process_storedEvent_handedOverOnceWithEveryValue() throws Exception {
    Recorder recorder = new Recorder();
    EventInbox inbox = started(recorder);
    StoredEvent event = event("1");

    store(inbox, event);

    assertThat(recorder.awaitRun("1")).isEqualTo(event);
    store(inbox, event("marker"));
    recorder.awaitRun("marker");
    assertThat(recorder.runs("1")).isEqualTo(1);
  }

  /** Events stored before the inbox started are handed over once it starts. */
  @Test
  public void process_storedBeforeStart_handedOverAfterStart() throws Exception {
    EventInbox inbox = inbox();
    store(inbox, event("1"), event("2"));
    Recorder recorder = new Recorder();

    inbox.start(recorder);

    assertThat(recorder.awaitRun("1")).isEqualTo(event("1"));
    assertThat(recorder.awaitRun("2")).isEqualTo(event("2"));
  }

  /** A failed listener is retried until it succeeds; then the event is done and runs no more. */
  @Test
  public void process_listenerFails_retriedUntilItSucceeds() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    Recorder recorder = new Recorder();
    EventInbox inbox =
        started(
            event -> {
              if (event.id().equals("1") && attempts.incrementAndGet() < 3) {
                throw new IllegalStateException("listener failed on attempt " + attempts.get());
              }
              recorder.process(event);
            });

    store(inbox, event("1"));

    assertThat(recorder.awaitRun("1")).isEqualTo(event("1"));
    assertThat(attempts).hasValue(3);
    if (inbox.deduplicates()) {
      assertThat(store(inbox, event("1"))).containsExactly(InboxOutcome.DUPLICATE);
    }
    store(inbox, event("marker"));
    recorder.awaitRun("marker");
    assertThat(attempts).hasValue(3);
  }

  /** A listener's Error (wrapped as the processor's contract says) is retried like a failure. */
  @Test
  public void process_listenerError_retried() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    Recorder recorder = new Recorder();
    EventInbox inbox =
        started(
            event -> {
              if (attempts.incrementAndGet() == 1) {
                throw new InboxProcessor.ListenerError(new AssertionError("first attempt"));
              }
              recorder.process(event);
            });

    store(inbox, event("1"));

    assertThat(recorder.awaitRun("1")).isEqualTo(event("1"));
  }

  /** A copy of a done event is a duplicate and does not run again. */
  @Test
  public void store_copyOfDoneEvent_duplicateAndNotRunAgain() throws Exception {
    assumeDeduplicates();
    Recorder recorder = new Recorder();
    EventInbox inbox = started(recorder);
    store(inbox, event("1"));
    recorder.awaitRun("1");

    assertThat(store(inbox, event("1"))).containsExactly(InboxOutcome.DUPLICATE);

    store(inbox, event("marker"));
    recorder.awaitRun("marker");
    assertThat(recorder.runs("1")).isEqualTo(1);
  }

  /** A copy of an event whose listener is still running is a duplicate. */
  @Test
  public void store_copyWhileRunning_duplicate() throws Exception {
    assumeDeduplicates();
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch finish = blockedLatch();
    EventInbox inbox =
        started(
            event -> {
              running.countDown();
              finish.await(patience().toMillis(), TimeUnit.MILLISECONDS);
            });
    store(inbox, event("1"));
    assertThat(running.await(patience().toMillis(), TimeUnit.MILLISECONDS)).isTrue();

    assertThat(store(inbox, event("1"))).containsExactly(InboxOutcome.DUPLICATE);

    finish.countDown();
  }

  // ---- instances and close

  /**
   * An instance closed while a listener runs loses nothing: the event is handed over again, here to
   * another instance.
   */
  @Test
  public void close_listenerUnfinished_eventHandledByAnotherInstance() throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch finish = blockedLatch();
    EventInbox first =
        started(
            event -> {
              running.countDown();
              // Never succeeds on this instance: finishing late must not mark the event done.
              finish.await(patience().toMillis(), TimeUnit.MILLISECONDS);
              throw new IllegalStateException("this instance was closed");
            });
    store(first, event("1"));
    assertThat(running.await(patience().toMillis(), TimeUnit.MILLISECONDS)).isTrue();

    CompletableFuture<Void> closing = CompletableFuture.runAsync(first::close);
    Recorder recorder = new Recorder();
    started(recorder);

    assertThat(recorder.awaitRun("1")).isEqualTo(event("1"));
    finish.countDown();
    closing.get(patience().toMillis(), TimeUnit.MILLISECONDS);
  }

  /** A closed inbox takes no event: its store fails (a failed stage or an exception). */
  @Test
  public void close_thenStore_fails() throws Exception {
    EventInbox inbox = inbox();
    inbox.start(new Recorder());
    inbox.close();

    CompletableFuture<List<InboxOutcome>> stage;
    try {
      stage = inbox.store(List.of(event("1"))).toCompletableFuture();
    } catch (RuntimeException refused) {
      return;
    }
    assertThat(stage).failsWithin(ANSWER_BUDGET);
  }

  // ---- concurrency

  /** Copies of one event stored at once on two instances: exactly one is stored. */
  @Test
  public void concurrency_copiesOnTwoInstances_exactlyOneStored() throws Exception {
    assumeDeduplicates();
    EventInbox[] inboxes = {inbox(), inbox()};
    int threads = 16;

    List<InboxOutcome> outcomes = new ArrayList<>();
    for (List<InboxOutcome> answer : race(threads, i -> store(inboxes[i % 2], event("race")))) {
      outcomes.addAll(answer);
    }

    assertThat(outcomes).filteredOn(o -> o == InboxOutcome.STORED).hasSize(1);
    assertThat(outcomes).filteredOn(o -> o == InboxOutcome.DUPLICATE).hasSize(threads - 1);
  }

  /**
   * Two started instances take deliveries with overlapping events at once: every event runs, and
   * exactly once, since every listener succeeds and no instance goes away.
   */
  @Test
  public void concurrency_twoStartedInstances_everyEventRunsOnce() throws Exception {
    Recorder recorder = new Recorder();
    EventInbox[] inboxes = {started(recorder), started(recorder)};
    int events = 40;

    race(
        8,
        i -> {
          for (int k = 0; k < events; k += 4) {
            List<StoredEvent> delivery = new ArrayList<>();
            for (int j = 0; j < 4; j++) {
              delivery.add(event(Integer.toString((k + j + i) % events)));
            }
            inboxes[i % 2]
                .store(delivery)
                .toCompletableFuture()
                .get(ANSWER_BUDGET.toSeconds(), TimeUnit.SECONDS);
          }
          return null;
        });

    for (int k = 0; k < events; k++) {
      recorder.awaitRun(Integer.toString(k));
    }
    store(inboxes[0], event("marker-0"));
    store(inboxes[1], event("marker-1"));
    recorder.awaitRun("marker-0");
    recorder.awaitRun("marker-1");
    for (int k = 0; k < events; k++) {
      assertThat(recorder.runs(Integer.toString(k))).as("runs of event %s", k).isEqualTo(1);
    }
  }

  // ---- time-outs

  /**
   * An inbox that cannot reach its storage fails the store within the answer budget (the delivery
   * is answered 503 and retried by the platform) and hands nothing over.
   */
  @Test
  public void unreachable_storeFailsWithinTheAnswerBudget() throws Exception {
    EventInbox inbox = unreachableInbox();
    Assumptions.assumeTrue(inbox != null, "the inbox has no storage to lose");
    made.add(inbox);
    Recorder recorder = new Recorder();
    inbox.start(recorder);

    CompletableFuture<List<InboxOutcome>> stage;
    try {
      stage = inbox.store(List.of(event("1"))).toCompletableFuture();
    } catch (RuntimeException refused) {
      return;
    }
    assertThat(stage).failsWithin(ANSWER_BUDGET);
    assertThat(recorder.runs("1")).isZero();
  }

  private CountDownLatch blockedLatch() {
    CountDownLatch latch = new CountDownLatch(1);
    blocked.add(latch);
    return latch;
  }

  /** A piece of a concurrent case, given its thread's number. */
  @FunctionalInterface
  private interface Racer<T> {
    T run(int thread) throws Exception;
  }

  /** Runs {@code racer} on {@code threads} threads released together; their answers in order. */
  private <T> List<T> race(int threads, Racer<T> racer) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch ready = new CountDownLatch(threads);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        int thread = i;
        futures.add(
            pool.submit(
                () -> {
                  ready.countDown();
                  go.await();
                  return racer.run(thread);
                }));
      }
      assertThat(ready.await(patience().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
      go.countDown();
      List<T> answers = new ArrayList<>();
      for (Future<T> future : futures) {
        answers.add(future.get(patience().toMillis() * 2, TimeUnit.MILLISECONDS));
      }
      return answers;
    } finally {
      pool.shutdownNow();
    }
  }
}
