package io.servicehooks.testkit;

import static io.servicehooks.testkit.PlatformClient.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The platform's side of an outage, on the simulator's clock: the delivery history kept for the
 * replay reach, retries on the platform's schedule then the drop, and a replay that brings back
 * exactly the events of its window. The consumer is a real {@link ConsumerStub} over HTTP.
 */
final class DowntimeTest {

  private static final DateTimeFormatter REPLAY_DATE =
      DateTimeFormatter.ofPattern("yyyyMMddHHmm").withZone(ZoneOffset.UTC);
  private static final Instant START = Instant.parse("2026-05-01T12:00:30Z");
  // docs/protocol.md#deliveries-and-retries: the first attempt, then retries after about 3 s, 27 s
  // and 242 s.
  private static final List<Duration> PLATFORM_ATTEMPT_OFFSETS =
      List.of(
          Duration.ZERO, Duration.ofSeconds(3), Duration.ofSeconds(30), Duration.ofSeconds(272));

  /** The ways a consumer is down, as the platform sees them. */
  enum Down {
    CONNECTION_REFUSED,
    SERVER_ERROR,
    TIME_OUT
  }

  private final PlatformSimulator simulator =
      PlatformSimulator.builder()
          .localMode(true)
          .clock(Clock.fixed(START, ZoneOffset.UTC))
          .retriesOnSimulatorClock(true) // the default schedule: 3 s, 27 s, 242 s
          .deliveryTimeout(Duration.ofMillis(300))
          .build()
          .start();
  private final PlatformClient client = new PlatformClient(simulator);
  private final ConsumerStub consumer;
  private final String webhookId;

  DowntimeTest() throws IOException {
    consumer = ConsumerStub.start(simulator.consumerSecret());
    webhookId = client.register(consumer.url());
  }

  @AfterEach
  void close() {
    simulator.close();
    consumer.close();
  }

  // ------------------------------------------------------------------ history

  @Test
  void history_eventsProducedAtSimulatedTimes_keptWithThoseTimes() {
    String first = Events.postCreate("1", "10", "first");
    String second = Events.postCreate("1", "11", "second");

    simulator.deliver(first);
    simulator.advance(Duration.ofMinutes(90));
    simulator.deliver(second);

    assertThat(simulator.deliveryHistory(webhookId))
        .containsExactly(
            new HistoryEntry(webhookId, START, first),
            new HistoryEntry(webhookId, START.plus(Duration.ofMinutes(90)), second));
    assertThat(simulator.deliveryHistory("424242")).isEmpty();
  }

  @Test
  void history_olderThanTheReplayReach_pruned() {
    String old = Events.postCreate("1", "10", "old");
    String recent = Events.postCreate("1", "11", "recent");
    simulator.deliver(old);
    simulator.advance(Duration.ofHours(1));
    simulator.deliver(recent);

    // 24 h after 12:00:30 a replay may still name the 12:00 minute: the event is kept.
    simulator.advance(Duration.ofHours(23));
    assertThat(simulator.deliveryHistory(webhookId))
        .extracting(HistoryEntry::body)
        .containsExactly(old, recent);

    simulator.advance(Duration.ofMinutes(1));
    assertThat(simulator.deliveryHistory(webhookId))
        .extracting(HistoryEntry::body)
        .containsExactly(recent);

    simulator.advance(Duration.ofHours(1));
    assertThat(simulator.deliveryHistory(webhookId)).isEmpty();
  }

  @Test
  void history_duplicateCopies_oneEvent() {
    String event = Events.postCreate("1", "10", "twice");

    simulator.deliver(event, 2);
    simulator.advance(Duration.ZERO);

    assertThat(simulator.deliveryHistory(webhookId))
        .extracting(HistoryEntry::body)
        .containsExactly(event);
    assertThat(consumer.deliveryBodies()).containsExactly(event, event);
  }

  // ------------------------------------------------------------------ retries, then the drop

  @ParameterizedTest
  @EnumSource(Down.class)
  void consumerDown_retriedOnThePlatformScheduleThenDropped(Down down) {
    goDown(down);
    String event = Events.postCreate("1", "10", "lost");

    simulator.deliver(event);
    simulator.advance(Duration.ofSeconds(271));
    assertThat(simulator.attempts()).hasSize(3); // the last retry is not due yet
    assertThat(simulator.droppedEvents()).isZero();
    simulator.advance(Duration.ofSeconds(1));

    assertThat(simulator.awaitIdle(Duration.ofSeconds(5))).isTrue();
    List<DeliveryAttempt> attempts = simulator.attempts();
    assertThat(attempts).extracting(DeliveryAttempt::attempt).containsExactly(1, 2, 3, 4);
    assertThat(attempts).noneMatch(DeliveryAttempt::succeeded);
    assertThat(attempts)
        .extracting(a -> Duration.between(START, a.time()))
        .containsExactlyElementsOf(PLATFORM_ATTEMPT_OFFSETS);
    assertThat(attempts.get(0).failure()).isEqualTo(expectedFailure(down));
    assertThat(simulator.droppedEvents()).isEqualTo(1);
    assertThat(simulator.deliveryHistory(webhookId))
        .extracting(HistoryEntry::body)
        .containsExactly(event);

    simulator.advance(Duration.ofHours(1));
    assertThat(simulator.attempts()).hasSize(4); // dropped: never tried again
  }

  @Test
  void consumerBackBeforeTheLastRetry_delivered_notDropped() {
    goDown(Down.SERVER_ERROR);
    simulator.deliver(Events.postCreate("1", "10", "late"));
    simulator.advance(Duration.ofSeconds(30));

    consumer.deliveryStatus(200);
    simulator.advance(Duration.ofMinutes(5));

    assertThat(simulator.attempts())
        .extracting(DeliveryAttempt::status)
        .containsExactly(503, 503, 503, 200);
    assertThat(simulator.droppedEvents()).isZero();
  }

  // ------------------------------------------------------------------ 30 minutes down, then replay

  @Test
  void thirtyMinutesDown_allDropped_replayOfAWindowRedeliversExactlyItsEventsThenComplete() {
    String before = Events.postCreate("1", "1", "before the outage");
    simulator.deliver(before);
    simulator.advance(Duration.ofMinutes(1));
    goDown(Down.SERVER_ERROR);
    List<String> gap = new ArrayList<>();
    for (int minute = 1; minute <= 30; minute++) { // produced at 12:01:30 .. 12:30:30
      String event = Events.postCreate("1", Integer.toString(100 + minute), "minute " + minute);
      gap.add(event);
      simulator.deliver(event);
      simulator.advance(Duration.ofMinutes(1));
    }
    simulator.advance(Duration.ofMinutes(5));

    assertThat(simulator.droppedEvents()).isEqualTo(30);
    assertThat(simulator.attempts()).hasSize(1 + 30 * 4);
    assertThat(simulator.deliveryHistory(webhookId))
        .extracting(HistoryEntry::producedAt)
        .containsExactlyElementsOf(
            () ->
                java.util.stream.IntStream.rangeClosed(0, 30)
                    .mapToObj(m -> START.plus(Duration.ofMinutes(m)))
                    .iterator());
    int received = consumer.deliveries().size();

    consumer.deliveryStatus(200);
    HttpResponse<String> response = replay("202605011210", "202605011219");

    assertThat(response.statusCode()).isEqualTo(200);
    String jobId = json(response).get("data").get("job_id").asText();
    assertThat(simulator.awaitIdle(Duration.ofSeconds(10))).isTrue();
    List<String> replayed =
        consumer.deliveryBodies().subList(received, consumer.deliveries().size());
    assertThat(replayed).hasSize(11);
    assertThat(replayed.subList(0, 10)).containsExactlyElementsOf(gap.subList(9, 19));
    JsonNode status = readTree(replayed.get(10)).get("replay_job_status");
    assertThat(status.get("job_id").asText()).isEqualTo(jobId);
    assertThat(status.get("webhook_id").asText()).isEqualTo(webhookId);
    assertThat(status.get("job_state").asText()).isEqualTo("Complete");
    assertThat(simulator.replayRequests())
        .containsExactly(
            new ReplayRequest(
                jobId,
                webhookId,
                Instant.parse("2026-05-01T12:10:00Z"),
                Instant.parse("2026-05-01T12:19:00Z"),
                START.plus(Duration.ofMinutes(36))));
  }

  @Test
  void replay_consumerStillDown_retriedThenDroppedAndIncomplete_conflictWhileItRuns() {
    simulator.deliver(Events.postCreate("1", "10", "one"));
    simulator.advance(Duration.ofMinutes(1));
    consumer.answerDeliveriesWith(503, 503, 503, 503); // every attempt of the redelivery
    String minute = REPLAY_DATE.format(START);

    assertThat(replay(minute, minute).statusCode()).isEqualTo(200);
    simulator.advance(Duration.ofSeconds(30)); // the redelivery waits for its last retry

    WebhookApiTest.assertInvalidRequest(replay(minute, minute), "ReplayConflictError");
    assertThat(simulator.replayRequests()).hasSize(1);

    simulator.advance(Duration.ofSeconds(242));
    assertThat(simulator.awaitIdle(Duration.ofSeconds(5))).isTrue();
    List<DeliveryAttempt> redelivery = simulator.attempts().subList(1, 5);
    assertThat(redelivery).extracting(DeliveryAttempt::status).containsOnly(503);
    assertThat(redelivery)
        .extracting(a -> Duration.between(START.plus(Duration.ofMinutes(1)), a.time()))
        .containsExactlyElementsOf(PLATFORM_ATTEMPT_OFFSETS);
    assertThat(simulator.droppedEvents()).isEqualTo(1);
    String last = consumer.deliveryBodies().get(consumer.deliveries().size() - 1);
    assertThat(readTree(last).get("replay_job_status").get("job_state").asText())
        .isEqualTo("Incomplete");

    assertThat(replay(minute, minute).statusCode()).isEqualTo(200); // the job is over
  }

  @Test
  void failNextReplayJobs_oneJob_redeliversNothingAndIncompleteThenTheNextJobRuns() {
    String event = Events.postCreate("1", "10", "one");
    simulator.deliver(event);
    simulator.advance(Duration.ofMinutes(1));
    simulator.failNextReplayJobs(1);
    String minute = REPLAY_DATE.format(START);

    replay(minute, minute);
    assertThat(simulator.awaitIdle(Duration.ofSeconds(5))).isTrue();
    replay(minute, minute);
    assertThat(simulator.awaitIdle(Duration.ofSeconds(5))).isTrue();

    List<String> bodies = consumer.deliveryBodies();
    assertThat(bodies).hasSize(4);
    assertThat(readTree(bodies.get(1)).get("replay_job_status").get("job_state").asText())
        .isEqualTo("Incomplete");
    assertThat(bodies.get(2)).isEqualTo(event);
    assertThat(readTree(bodies.get(3)).get("replay_job_status").get("job_state").asText())
        .isEqualTo("Complete");
  }

  @Test
  void failNextReplayJobs_zero_refused() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> simulator.failNextReplayJobs(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jobs");
  }

  // ------------------------------------------------------------------ the replay reach

  @Test
  void replay_oldestMinuteOfTheReach_acceptedAndRedelivered_oneMinuteOlder_refused() {
    String event = Events.postCreate("1", "10", "a day ago");
    simulator.deliver(event);
    simulator.advance(Duration.ofHours(24)); // now 2026-05-02T12:00:30Z

    HttpResponse<String> tooOld = replay("202605011159", "202605011200");
    HttpResponse<String> oldest = replay("202605011200", "202605011200");

    assertThat(tooOld.statusCode()).isEqualTo(400);
    assertThat(json(tooOld).get("detail").asText()).contains("24 hours");
    assertThat(oldest.statusCode()).isEqualTo(200);
    assertThat(simulator.awaitIdle(Duration.ofSeconds(5))).isTrue();
    assertThat(consumer.deliveryBodies()).hasSize(3).element(1).isEqualTo(event);
  }

  @Test
  void replay_toDateInTheNextMinute_refused_currentMinute_accepted() {
    assertThat(replay("202605011200", "202605011201").statusCode()).isEqualTo(400);
    assertThat(replay("202605011200", "202605011200").statusCode()).isEqualTo(200);
  }

  private void goDown(Down down) {
    switch (down) {
      case CONNECTION_REFUSED -> consumer.close();
      case SERVER_ERROR -> consumer.deliveryStatus(503);
      case TIME_OUT -> consumer.holdDeliveries(Integer.MAX_VALUE);
    }
  }

  private static String expectedFailure(Down down) {
    return switch (down) {
      case CONNECTION_REFUSED -> "connection refused";
      case SERVER_ERROR -> null;
      case TIME_OUT -> "timed out after 300 ms";
    };
  }

  private HttpResponse<String> replay(String fromDate, String toDate) {
    return client.call(
        "POST",
        "/2/webhooks/replay",
        "{\"webhook_id\":\""
            + webhookId
            + "\",\"from_date\":\""
            + fromDate
            + "\",\"to_date\":\""
            + toDate
            + "\"}");
  }

  private static JsonNode readTree(String json) {
    try {
      return PlatformClient.MAPPER.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
