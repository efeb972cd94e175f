package io.servicehooks.catchup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.core.Deduplicator;
import io.servicehooks.core.EventInbox;
import io.servicehooks.core.InboxOutcome;
import io.servicehooks.core.InboxProcessor;
import io.servicehooks.core.StoredEvent;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.testkit.DeliveryAttempt;
import io.servicehooks.undertow.WebhookServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The consumer stays up but its dedup store is down for 10 minutes, so every delivery is answered
 * 503 and the events of the outage's first minutes are dropped after the platform's retries. The
 * heartbeat means "answered 2xx", not "the process is up" (which would hide the gap): the refused
 * period is replayed once deliveries are answered again, and every event is handled exactly once.
 * All on the simulator's clock, with the test running the heartbeat every 30 simulated seconds.
 */
final class StoreOutageReplayTest {

  private static final Duration HEARTBEAT = Duration.ofSeconds(30);

  /** The shared in-memory store, unreachable while {@code down}: claims fail, as Redis's would. */
  private static final class FlakyStore implements Deduplicator {
    final Deduplicator real = Deduplicator.inMemory();
    volatile boolean down;

    private <T> CompletionStage<T> unlessDown(
        java.util.function.Supplier<CompletionStage<T>> call) {
      return down
          ? CompletableFuture.failedFuture(new IllegalStateException("dedup store unreachable"))
          : call.get();
    }

    @Override
    public CompletionStage<Claim> claim(String key, Duration lease) {
      return unlessDown(() -> real.claim(key, lease));
    }

    @Override
    public CompletionStage<Boolean> markDone(String key, String token) {
      return unlessDown(() -> real.markDone(key, token));
    }

    @Override
    public CompletionStage<Boolean> release(String key, String token) {
      return unlessDown(() -> real.release(key, token));
    }

    @Override
    public CompletionStage<Boolean> renew(String key, String token, Duration lease) {
      return unlessDown(() -> real.renew(key, token, lease));
    }

    @Override
    public boolean mayBlock() {
      return false;
    }
  }

  /**
   * A durable inbox that cannot store while {@code down} (every delivery 503, as when the inbox's
   * database is unreachable); otherwise it stores each new event once and runs it at once.
   */
  private static final class FlakyInbox implements EventInbox {
    final Set<String> stored = ConcurrentHashMap.newKeySet();
    volatile boolean down;
    volatile InboxProcessor processor;

    @Override
    public CompletionStage<List<InboxOutcome>> store(List<StoredEvent> events) {
      if (down) {
        return CompletableFuture.failedFuture(new IllegalStateException("inbox unreachable"));
      }
      List<InboxOutcome> out = new ArrayList<>();
      for (StoredEvent e : events) {
        boolean fresh = stored.add(e.dedupKey());
        out.add(fresh ? InboxOutcome.STORED : InboxOutcome.DUPLICATE);
        if (fresh) {
          try {
            processor.process(e);
          } catch (Exception listenerFailed) {
            throw new IllegalStateException(listenerFailed);
          }
        }
      }
      return CompletableFuture.completedFuture(out);
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
    public void close() {}
  }

  /** Which store is out: the dedup store (synchronous mode) or the durable inbox. */
  enum Outage {
    DEDUP,
    INBOX
  }

  private final FlakyStore store = new FlakyStore();
  private final FlakyInbox inbox = new FlakyInbox();
  private final Map<String, AtomicInteger> handled = new ConcurrentHashMap<>();
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = Files.createTempDirectory("outage-replay-");
  }

  @AfterEach
  void tearDown() throws Exception {
    try (var files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  private WebhookConsumer consumer(Platform p, CatchUp catchUp, Outage outage) {
    WebhookConsumer.Builder builder =
        WebhookConsumer.builder().consumerSecrets(p.simulator.consumerSecret());
    if (outage == Outage.INBOX) {
      builder.inbox(inbox);
    } else {
      builder.deduplicator(store);
    }
    return catchUp
        .install(
            builder.on(
                "post.create",
                event ->
                    handled
                        .computeIfAbsent(
                            event.payload().path("id").asText(), id -> new AtomicInteger())
                        .incrementAndGet()))
        .build();
  }

  /**
   * Moves the simulator's clock by {@code by}, running the heartbeat of each instance every 30
   * seconds.
   */
  private static void run(Platform p, List<CatchUp> instances, Duration by) {
    for (Duration done = Duration.ZERO; done.compareTo(by) < 0; done = done.plus(HEARTBEAT)) {
      p.advance(HEARTBEAT);
      instances.forEach(CatchUp::check);
    }
  }

  private Map<String, Integer> handled() {
    Map<String, Integer> out = new TreeMap<>();
    handled.forEach((k, v) -> out.put(k, v.get()));
    return out;
  }

  /**
   * With {@code otherInstanceBeats}, a second instance shares the heartbeat store and receives no
   * deliveries: it keeps the shared heartbeat moving through the outage, and the refused period is
   * still replayed, by the instance that saw the refusals.
   */
  @ParameterizedTest
  @CsvSource({"DEDUP, false", "DEDUP, true", "INBOX, false"})
  void tenMinuteStoreOutage_everyDelivery503_periodReplayedOnceAnsweredAgain(
      Outage outage, boolean otherInstanceBeats) throws Exception {
    try (Platform p = new Platform();
        CatchUp catchUp = p.catchUp(HeartbeatStore.file(dir.resolve("heartbeat"))).build();
        CatchUp other = p.catchUp(HeartbeatStore.file(dir.resolve("heartbeat"))).build();
        WebhookServer server = p.serve(consumer(p, catchUp, outage))) {
      catchUp.start();
      List<CatchUp> instances = List.of(catchUp);
      if (otherInstanceBeats) {
        other.start();
        instances = List.of(catchUp, other);
      }
      p.register();
      for (int i = 1; i <= 3; i++) {
        p.produce("before-" + i);
        run(p, instances, Duration.ofMinutes(1));
      }
      p.settle();
      Instant outageStart = p.simulator.now();

      store.down = outage == Outage.DEDUP;
      inbox.down = outage == Outage.INBOX;
      for (int i = 1; i <= 10; i++) {
        p.produce("outage-" + i);
        run(p, instances, Duration.ofMinutes(1));
      }
      // the platform gave up on the first events of the outage, every attempt 503: event i came at
      // minute i-1 and its last retry 272 s later (3 s, 27 s, 242 s), before minute 10 for i <= 6
      assertThat(p.simulator.droppedEvents()).isEqualTo(6);
      assertThat(p.simulator.attempts())
          .filteredOn(a -> a.time().isAfter(outageStart))
          .isNotEmpty()
          .allMatch(a -> a.status() == 503);
      assertThat(p.simulator.replayRequests()).isEmpty();

      store.down = false;
      inbox.down = false;
      p.produce("after-1");
      run(p, instances, Duration.ofMinutes(6)); // the last retries, then the heartbeat's replay
      p.settle();
      await()
          .atMost(Duration.ofSeconds(8))
          .untilAsserted(
              () ->
                  assertThat(HeartbeatStore.file(dir.resolve("heartbeat")).read().job()).isNull());

      assertThat(p.simulator.replayRequests())
          .singleElement()
          .satisfies(
              r -> {
                // from the first refusal (the first outage event's first attempt), minus the
                // 2-minute margin, floored to the minute
                assertThat(r.from())
                    .isEqualTo(
                        outageStart.minus(Duration.ofMinutes(2)).truncatedTo(ChronoUnit.MINUTES));
              });
      Map<String, Integer> expected = new LinkedHashMap<>();
      for (int i = 1; i <= 3; i++) {
        expected.put("before-" + i, 1);
      }
      for (int i = 1; i <= 10; i++) {
        expected.put("outage-" + i, 1);
      }
      expected.put("after-1", 1);
      assertThat(handled()).containsExactlyInAnyOrderEntriesOf(expected);
      assertThat(p.simulator.attempts()).anyMatch(DeliveryAttempt::succeeded);
    }
  }
}
