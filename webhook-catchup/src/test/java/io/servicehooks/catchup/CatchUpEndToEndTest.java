package io.servicehooks.catchup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.servicehooks.testkit.ReplayRequest;
import io.servicehooks.undertow.WebhookServer;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

/**
 * Catch-up end to end on the simulator's clock: a real consumer on a real server, the simulator
 * dropping what it could not deliver, and a catch-up that heals the gap with one replay.
 */
final class CatchUpEndToEndTest {

  private static final Duration AT_MOST = Duration.ofSeconds(8);

  /** Heartbeat when the consumer stopped: a minute after the start, after five handled posts. */
  private static final Instant LAST_HEARTBEAT = Platform.START.plusSeconds(60);

  /**
   * A consumer with catch-up handles five posts, records its last heartbeat and stops; the
   * simulator then produces a post a minute for 30 minutes and drops each after its retries.
   */
  private static void runThenStopThenDrop(Platform p, HeartbeatPlace place, int minutes)
      throws Exception {
    CatchUp before = p.catchUp(place.open()).build();
    WebhookServer server = p.serve(p.consumer(before));
    before.start(); // registers the URL and records the first heartbeat
    p.register();
    for (int i = 1; i <= 5; i++) {
      p.produce("before-" + i);
      p.advance(Duration.ofSeconds(10));
    }
    p.settle();
    p.advance(Duration.ofSeconds(10));
    before.check();
    assertThat(place.open().read().heartbeat()).isEqualTo(LAST_HEARTBEAT);
    server.close();
    before.close();

    for (int i = 1; i <= minutes; i++) {
      p.advance(Duration.ofMinutes(1));
      p.produce("gap-" + i);
    }
    p.advance(Duration.ofMinutes(5)); // the last retries (3 s, 27 s, 242 s) fail too
    assertThat(p.simulator.droppedEvents()).isGreaterThanOrEqualTo(minutes);
    assertThat(p.handled()).containsOnlyKeys(expected(5, 0).keySet());
  }

  /** Each post {@code before-1..n} and {@code gap-1..m} handled exactly once. */
  private static Map<String, Integer> expected(int before, int gap) {
    Map<String, Integer> out = new LinkedHashMap<>();
    for (int i = 1; i <= before; i++) {
      out.put("before-" + i, 1);
    }
    for (int i = 1; i <= gap; i++) {
      out.put("gap-" + i, 1);
    }
    return out;
  }

  @Test
  void restartAfterOutage_gapReplayedOnce_eachEventHandledExactlyOnce() throws Exception {
    try (Platform p = new Platform();
        HeartbeatPlace place = HeartbeatPlace.of(HeartbeatPlace.Kind.FILE)) {
      runThenStopThenDrop(p, place, 30);
      Instant restart = p.simulator.now();

      try (CatchUp after = p.catchUp(place.open()).build();
          WebhookServer server = p.serve(p.consumer(after))) {
        after.start();
        p.settle();

        assertThat(p.simulator.replayRequests())
            .singleElement()
            .satisfies(
                r -> {
                  // last heartbeat minus the 2-minute margin, to the minute of the restart
                  assertThat(r.from()).isEqualTo(LAST_HEARTBEAT.minus(Duration.ofMinutes(2)));
                  assertThat(r.to()).isEqualTo(restart.truncatedTo(ChronoUnit.MINUTES));
                });
        await().atMost(AT_MOST).untilAsserted(() -> assertThat(place.open().read().job()).isNull());
        assertThat(p.handled()).containsExactlyInAnyOrderEntriesOf(expected(5, 30));
        // the window reached back before the outage: before-1..5 were accepted twice (once live,
        // once in the replay) yet handled once: the shared deduplicator absorbed the overlap
        for (int i = 1; i <= 5; i++) {
          String post = "\"id\":\"before-" + i + "\"";
          assertThat(p.simulator.attempts())
              .filteredOn(a -> a.succeeded() && a.body().contains(post))
              .hasSize(2);
        }
        assertThat(place.open().read().heartbeat()).isEqualTo(restart);
        assertThat(p.counter("webhook.catchup.replays.asked")).isEqualTo(1);
        assertThat(p.counter("webhook.catchup.replays.completed")).isEqualTo(1);
        assertThat(p.counter("webhook.catchup.replays.failed")).isZero();

        p.advance(Duration.ofMinutes(1));
        after.check(); // serving since: no new gap, the heartbeat moves on
        assertThat(place.open().read().heartbeat()).isEqualTo(restart.plusSeconds(60));
        assertThat(p.simulator.replayRequests()).hasSize(1);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(HeartbeatPlace.Kind.class)
  void twoInstancesStartedTogether_askForOneJobBetweenThem(HeartbeatPlace.Kind kind)
      throws Exception {
    try (Platform p = new Platform();
        HeartbeatPlace place = HeartbeatPlace.of(kind)) {
      runThenStopThenDrop(p, place, 30);

      try (CatchUp a = p.catchUp(place.open()).build();
          CatchUp b = p.catchUp(place.open()).build();
          WebhookServer server = p.serve(p.consumer(a))) {
        p.consumer(b); // b's listener is installed too; the deliveries reach a's server
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> starts = new ArrayList<>();
        for (CatchUp instance : List.of(a, b)) {
          Thread t =
              new Thread(
                  () -> {
                    try {
                      go.await(5, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                    instance.start();
                  });
          t.start();
          starts.add(t);
        }
        go.countDown();
        for (Thread t : starts) {
          t.join(AT_MOST.toMillis());
          assertThat(t.isAlive()).isFalse();
        }
        p.settle();
        a.check(); // a status that came before its id was recorded is taken up here
        b.check();

        assertThat(p.simulator.replayRequests()).hasSize(1);
        await().atMost(AT_MOST).untilAsserted(() -> assertThat(place.open().read().job()).isNull());
        assertThat(p.handled()).containsExactlyInAnyOrderEntriesOf(expected(5, 30));
        assertThat(p.counter("webhook.catchup.replays.asked")).isEqualTo(1);
        assertThat(p.counter("webhook.catchup.replays.completed")).isEqualTo(1);
      }
    }
  }

  @Test
  void thirtyHourOutage_asksForTheLast24Hours_reportsTheRest() throws Exception {
    Logger logger = (Logger) LoggerFactory.getLogger(CatchUp.class);
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    logger.addAppender(lines);
    try (Platform p = new Platform();
        HeartbeatPlace place = HeartbeatPlace.of(HeartbeatPlace.Kind.FILE)) {
      runThenStopThenDrop(p, place, 0);
      for (int h = 1; h <= 30; h++) {
        p.advance(Duration.ofHours(1)); // the hourly CRC check fails: the webhook turns invalid
        p.produce("gap-" + h);
      }
      p.advance(Duration.ofMinutes(5));
      Instant restart = p.simulator.now();
      Instant reachable = restart.minus(Duration.ofHours(24));
      Instant wanted = LAST_HEARTBEAT.minus(Duration.ofMinutes(2));

      // by URL: the restart revalidates the webhook, as an application does at start-up
      try (CatchUp after =
              CatchUp.builder()
                  .client(p.client)
                  .webhookUrl(p.url())
                  .store(place.open())
                  .clock(p.clock)
                  .meterRegistry(p.meters)
                  .scheduled(false)
                  .build();
          WebhookServer server = p.serve(p.consumer(after))) {
        after.start();
        p.settle();

        assertThat(p.simulator.replayRequests())
            .singleElement()
            .satisfies(
                r -> {
                  assertThat(r.from()).isEqualTo(reachable);
                  assertThat(r.to()).isEqualTo(restart);
                });
        long unhealable = Duration.between(wanted, reachable).toMinutes();
        // stop at START+1 min, margin 2 min; restart at START+30 h 11 min: 6 h 12 min out of reach
        assertThat(unhealable).isEqualTo(6 * 60 + 12);
        assertThat(p.counter("webhook.catchup.minutes.unhealable")).isEqualTo(unhealable);
        assertThat(lines.list)
            .filteredOn(e -> e.getLevel() == Level.WARN)
            .singleElement()
            .satisfies(
                e ->
                    assertThat(e.getFormattedMessage())
                        .contains(unhealable + " minutes")
                        .contains("from " + wanted + " to " + reachable));
        await().atMost(AT_MOST).untilAsserted(() -> assertThat(place.open().read().job()).isNull());
        // posts produced 1 to 6 hours after the stop are older than the reach: lost, reported
        Map<String, Integer> healed = expected(5, 0);
        for (int h = 7; h <= 30; h++) {
          healed.put("gap-" + h, 1);
        }
        assertThat(p.handled()).containsExactlyInAnyOrderEntriesOf(healed);
        // the asked line and the outcome line show the window as the request carried it
        java.time.format.DateTimeFormatter minute =
            java.time.format.DateTimeFormatter.ofPattern("yyyyMMddHHmm")
                .withZone(java.time.ZoneOffset.UTC);
        String window =
            "from_date "
                + minute.format(reachable)
                + " to_date "
                + minute.format(restart)
                + " (through "
                + restart.truncatedTo(java.time.temporal.ChronoUnit.MINUTES).plusSeconds(60)
                + ")";
        assertThat(lines.list)
            .filteredOn(e -> e.getLevel() == Level.INFO)
            .extracting(ILoggingEvent::getFormattedMessage)
            .hasSize(2)
            .allSatisfy(line -> assertThat(line).contains(window))
            .anySatisfy(line -> assertThat(line).contains("asked replay job"))
            .anySatisfy(line -> assertThat(line).contains("Complete"));
      }
    } finally {
      logger.detachAppender(lines);
    }
  }

  @Test
  void crashAfterRecordingTheJob_restartDoesNotAskAgain() throws Exception {
    try (Platform p = new Platform();
        HeartbeatPlace place = HeartbeatPlace.of(HeartbeatPlace.Kind.FILE)) {
      runThenStopThenDrop(p, place, 30);
      Instant restart = p.simulator.now();

      // An instance asks, the job is recorded with its id, and the process dies before any of
      // the replay reached it (its server is not up: the deliveries wait for their retries).
      CatchUp crashing = p.catchUp(place.open()).build();
      crashing.start();
      CatchUpJob recorded = place.open().read().job();
      assertThat(recorded).isNotNull();
      assertThat(recorded.jobId()).isEqualTo(p.simulator.replayRequests().get(0).jobId());
      crashing.close();

      try (CatchUp again = p.catchUp(place.open()).build();
          WebhookServer server = p.serve(p.consumer(again))) {
        again.start();
        assertThat(p.simulator.replayRequests()).hasSize(1);
        assertThat(place.open().read().job()).isEqualTo(recorded);

        p.advance(Duration.ofMinutes(1)); // the replay's retries now reach the restarted consumer
        p.settle();
        again.check();

        assertThat(p.simulator.replayRequests()).hasSize(1);
        await().atMost(AT_MOST).untilAsserted(() -> assertThat(place.open().read().job()).isNull());
        assertThat(p.handled()).containsExactlyInAnyOrderEntriesOf(expected(5, 30));
        assertThat(place.open().read().heartbeat()).isEqualTo(restart.plusSeconds(60));
      }
    }
  }

  @Test
  void incompleteJob_retriedWithBackoff_sameWindowThenComplete() throws Exception {
    try (Platform p = new Platform();
        HeartbeatPlace place = HeartbeatPlace.of(HeartbeatPlace.Kind.FILE)) {
      runThenStopThenDrop(p, place, 30);
      p.simulator.failNextReplayJobs(1);

      try (CatchUp after = p.catchUp(place.open()).build();
          WebhookServer server = p.serve(p.consumer(after))) {
        after.start();
        p.settle();
        CatchUpJob waiting = place.open().read().job();
        assertThat(waiting.retryAt()).isEqualTo(waiting.askedAt().plus(Duration.ofMinutes(1)));
        assertThat(p.handled()).containsOnlyKeys(expected(5, 0).keySet());

        p.advance(Duration.ofSeconds(30));
        after.check(); // not due yet
        assertThat(p.simulator.replayRequests()).hasSize(1);
        p.advance(Duration.ofSeconds(30));
        after.check();
        p.settle();

        List<ReplayRequest> asked = p.simulator.replayRequests();
        assertThat(asked).hasSize(2);
        assertThat(asked.get(1).from()).isEqualTo(asked.get(0).from());
        assertThat(asked.get(1).to()).isEqualTo(asked.get(0).to());
        await().atMost(AT_MOST).untilAsserted(() -> assertThat(place.open().read().job()).isNull());
        assertThat(p.handled()).containsExactlyInAnyOrderEntriesOf(expected(5, 30));
        assertThat(p.counter("webhook.catchup.replays.failed")).isEqualTo(1);
        assertThat(p.counter("webhook.catchup.replays.completed")).isEqualTo(1);
      }
    }
  }

  @Test
  void replayConflict_retriedAfterTheRunningJob() throws Exception {
    try (Platform p = new Platform();
        HeartbeatPlace place = HeartbeatPlace.of(HeartbeatPlace.Kind.FILE)) {
      runThenStopThenDrop(p, place, 30);
      Instant now = p.simulator.now();
      // someone's replay is running: with the consumer down its deliveries wait for retries
      p.client.replay(p.webhookId(), now.minus(Duration.ofMinutes(10)), now);

      try (CatchUp after = p.catchUp(place.open()).build();
          WebhookServer server = p.serve(p.consumer(after))) {
        after.start();
        CatchUpJob waiting = place.open().read().job();
        assertThat(waiting.jobId()).isNull();
        assertThat(waiting.retryAt()).isNotNull();
        assertThat(p.counter("webhook.catchup.replays.failed")).isEqualTo(1);

        p.advance(Duration.ofMinutes(1)); // the other job finishes
        p.settle();
        after.check();
        p.settle();

        assertThat(p.simulator.replayRequests()).hasSize(2);
        await().atMost(AT_MOST).untilAsserted(() -> assertThat(place.open().read().job()).isNull());
        assertThat(p.handled()).containsExactlyInAnyOrderEntriesOf(expected(5, 30));
        assertThat(p.counter("webhook.catchup.replays.asked")).isEqualTo(1);
      }
    }
  }
}
