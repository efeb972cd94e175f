package io.servicehooks.testkit;

import static io.servicehooks.testkit.PlatformClient.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

final class ReplayTest {

  private static final DateTimeFormatter REPLAY_DATE =
      DateTimeFormatter.ofPattern("yyyyMMddHHmm").withZone(ZoneOffset.UTC);

  private final PlatformSimulator simulator =
      PlatformSimulator.builder()
          .localMode(true)
          // A fixed clock keeps "the current minute" from rolling over between a delivery and its
          // replay.
          .clock(Clock.fixed(Instant.parse("2026-05-01T12:00:30Z"), ZoneOffset.UTC))
          .retrySchedule(List.of(Duration.ofMillis(50)))
          // Generous: no test here waits for it, and a held delivery is released explicitly.
          .deliveryTimeout(Duration.ofSeconds(10))
          .build()
          .start();
  private final PlatformClient client = new PlatformClient(simulator);
  private final ConsumerStub consumer;
  private final String webhookId;

  ReplayTest() throws IOException {
    consumer = ConsumerStub.start(simulator.consumerSecret());
    webhookId = client.register(consumer.url());
  }

  @AfterEach
  void close() {
    simulator.close();
    consumer.close();
  }

  @Test
  void replay_window_redeliversEventsThenJobStatus() {
    String first = Events.postCreate("1", "10", "one");
    String second = Events.accountFavorite("1", "fav", "10");
    simulator.deliver(first);
    simulator.deliver(second);
    await().until(() -> consumer.deliveries().size() == 2);

    HttpResponse<String> response =
        replay(simulator.now().minus(Duration.ofHours(1)), simulator.now());

    assertThat(response.statusCode()).isEqualTo(200);
    String jobId = json(response).get("data").get("job_id").asText();
    assertThat(jobId).matches("[0-9]+");
    assertThat(json(response).get("data").has("created_at")).isTrue();
    await().until(() -> consumer.deliveries().size() == 5);
    assertThat(consumer.deliveryBodies().subList(2, 4)).containsExactly(first, second);
    JsonNode status =
        PlatformClient.MAPPER
            .valueToTree(readTree(consumer.deliveryBodies().get(4)))
            .get("replay_job_status");
    assertThat(status.get("webhook_id").asText()).isEqualTo(webhookId);
    assertThat(status.get("job_id").asText()).isEqualTo(jobId);
    assertThat(status.get("job_state").asText()).isEqualTo("Complete");
    assertThat(status.get("job_state_description").asText()).isNotBlank();
  }

  @Test
  void replay_redeliveryFails_jobStatusIncomplete() {
    simulator.deliver(Events.postCreate("1", "10", "one"));
    assertThat(simulator.awaitIdle(Duration.ofSeconds(5))).isTrue();
    consumer.answerDeliveriesWith(500, 500);

    replay(simulator.now(), simulator.now());

    assertThat(simulator.awaitIdle(Duration.ofSeconds(5))).isTrue();
    String last = consumer.deliveryBodies().get(consumer.deliveries().size() - 1);
    assertThat(readTree(last).get("replay_job_status").get("job_state").asText())
        .isEqualTo("Incomplete");
  }

  @Test
  void replay_eventsOutsideWindow_notRedelivered() {
    String old = Events.postCreate("1", "10", "old");
    simulator.deliver(old);
    simulator.advance(Duration.ofHours(2));
    String recent = Events.postCreate("1", "11", "recent");
    simulator.deliver(recent);
    await().until(() -> consumer.deliveries().size() == 2);

    replay(simulator.now().minus(Duration.ofMinutes(30)), simulator.now());

    await().until(() -> consumer.deliveries().size() == 4);
    assertThat(consumer.deliveryBodies().get(2)).isEqualTo(recent);
    assertThat(consumer.deliveryBodies().get(3)).contains("replay_job_status");
  }

  @Test
  void replay_whileJobRuns_replayConflictError() {
    simulator.deliver(Events.postCreate("1", "10", "one"));
    assertThat(simulator.awaitIdle(Duration.ofSeconds(5))).isTrue();
    consumer.holdDeliveries(1);
    assertThat(replay(simulator.now(), simulator.now()).statusCode()).isEqualTo(200);

    WebhookApiTest.assertInvalidRequest(
        replay(simulator.now(), simulator.now()), "ReplayConflictError");

    consumer.releaseDeliveries(); // the job cannot finish before this, however slow the machine
    assertThat(simulator.awaitIdle(Duration.ofSeconds(10))).isTrue();
    assertThat(replay(simulator.now(), simulator.now()).statusCode()).isEqualTo(200);
  }

  @Test
  void replay_fromOlderThan24Hours_400() {
    HttpResponse<String> response =
        replay(simulator.now().minus(Duration.ofHours(25)), simulator.now());

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(json(response).get("detail").asText()).contains("24 hours");
  }

  @Test
  void replay_toInFuture_400() {
    assertThat(replay(simulator.now(), simulator.now().plus(Duration.ofHours(1))).statusCode())
        .isEqualTo(400);
  }

  @Test
  void replay_fromAfterTo_400() {
    assertThat(replay(simulator.now(), simulator.now().minus(Duration.ofHours(1))).statusCode())
        .isEqualTo(400);
  }

  @Test
  void replay_badDateFormat_400() {
    HttpResponse<String> response =
        client.call(
            "POST",
            "/2/webhooks/replay",
            "{\"webhook_id\":\""
                + webhookId
                + "\",\"from_date\":\"2026-05-01T12:00\",\"to_date\":\"202605011200\"}");

    assertThat(response.statusCode()).isEqualTo(400);
  }

  @Test
  void replay_unknownWebhook_webhookIdInvalid() {
    String now = REPLAY_DATE.format(simulator.now());

    WebhookApiTest.assertInvalidRequest(
        client.call(
            "POST",
            "/2/webhooks/replay",
            "{\"webhook_id\":\"1\",\"from_date\":\"" + now + "\",\"to_date\":\"" + now + "\"}"),
        "WebhookIdInvalid");
  }

  private HttpResponse<String> replay(Instant from, Instant to) {
    return client.call(
        "POST",
        "/2/webhooks/replay",
        "{\"webhook_id\":\""
            + webhookId
            + "\",\"from_date\":\""
            + REPLAY_DATE.format(from)
            + "\",\"to_date\":\""
            + REPLAY_DATE.format(to)
            + "\"}");
  }

  private static JsonNode readTree(String json) {
    try {
      return PlatformClient.MAPPER.readTree(json);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
