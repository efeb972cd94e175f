package io.servicehooks.testkit;

import static io.servicehooks.testkit.PlatformClient.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

final class RecheckTest {

  private static final Instant START = Instant.parse("2026-05-01T12:00:00Z");

  private final PlatformSimulator simulator =
      PlatformSimulator.builder()
          .localMode(true)
          .clock(Clock.fixed(START, ZoneOffset.UTC))
          .retrySchedule(List.of())
          .build()
          .start();
  private final PlatformClient client = new PlatformClient(simulator);
  private final ConsumerStub consumer;
  private final String webhookId;

  RecheckTest() throws IOException {
    consumer = ConsumerStub.start(simulator.consumerSecret());
    webhookId = client.register(consumer.url());
  }

  @AfterEach
  void close() {
    simulator.close();
    consumer.close();
  }

  @Test
  void advance_lessThanInterval_noCheck() {
    simulator.advance(Duration.ofMinutes(59));

    assertThat(consumer.crcRequests()).isEqualTo(1);
  }

  @Test
  void advance_oneHour_checkRunsOnSimulatorClock() {
    simulator.advance(Duration.ofHours(1));

    assertThat(consumer.crcRequests()).isEqualTo(2);
    assertThat(simulator.now()).isEqualTo(START.plus(Duration.ofHours(1)));
    assertThat(valid()).isTrue();
  }

  @Test
  void createdAt_fixedClock_usesSimulatorTime() {
    assertThat(
            json(client.call("GET", "/2/webhooks", null))
                .get("data")
                .get(0)
                .get("created_at")
                .asText())
        .isEqualTo("2026-05-01T12:00:00.000Z");
  }

  @Test
  void recheck_failsThenPutPasses_deliveriesStopAndResume() {
    consumer.crcAnswer(ConsumerStub.CrcAnswer.WRONG_TOKEN);
    simulator.advance(Duration.ofHours(1));

    assertThat(valid()).isFalse();
    assertThat(simulator.deliver(Events.postCreate("1", "2", "lost"))).isZero();
    assertThat(simulator.awaitIdle(Duration.ofSeconds(1))).isTrue();
    assertThat(consumer.deliveries()).isEmpty();
    assertThat(simulator.attempts()).isEmpty();

    consumer.crcAnswer(ConsumerStub.CrcAnswer.CORRECT);
    assertThat(client.call("PUT", "/2/webhooks/" + webhookId, null).body())
        .isEqualTo("{\"data\":{\"valid\":true}}");
    String body = Events.postCreate("1", "3", "back");
    assertThat(simulator.deliver(body)).isEqualTo(1);

    await().until(() -> consumer.deliveryBodies().equals(List.of(body)));
    assertThat(valid()).isTrue();
  }

  @Test
  void runScheduledChecks_serverError_invalid() {
    consumer.crcAnswer(ConsumerStub.CrcAnswer.SERVER_ERROR);

    simulator.runScheduledChecks();

    assertThat(valid()).isFalse();
  }

  @Test
  void runScheduledChecks_redirect_invalid() {
    consumer.crcAnswer(ConsumerStub.CrcAnswer.REDIRECT);

    simulator.runScheduledChecks();

    assertThat(valid()).isFalse();
  }

  @Test
  void runScheduledChecks_timeout_invalid() throws IOException {
    // A short CRC time-out only here, where the consumer never answers, so it always fires.
    try (PlatformSimulator impatient =
            PlatformSimulator.builder()
                .localMode(true)
                .clock(Clock.fixed(START, ZoneOffset.UTC))
                .crcTimeout(Duration.ofMillis(500))
                .build()
                .start();
        ConsumerStub hanging = ConsumerStub.start(impatient.consumerSecret())) {
      PlatformClient impatientClient = new PlatformClient(impatient);
      impatientClient.register(hanging.url());
      hanging.crcAnswer(ConsumerStub.CrcAnswer.HANG);

      impatient.runScheduledChecks();

      assertThat(valid(impatientClient)).isFalse();
    }
  }

  @Test
  void recheck_invalidThenPassingCheck_validAgain() {
    consumer.crcAnswer(ConsumerStub.CrcAnswer.WRONG_TOKEN);
    simulator.runScheduledChecks();
    consumer.crcAnswer(ConsumerStub.CrcAnswer.CORRECT);

    simulator.advance(Duration.ofHours(1));

    assertThat(valid()).isTrue();
  }

  @Test
  void recheckEvery_backgroundScheduler_invalidatesWithoutTestDrivingIt() throws IOException {
    try (PlatformSimulator background =
            PlatformSimulator.builder()
                .localMode(true)
                .recheckEvery(Duration.ofMillis(100))
                .build()
                .start();
        ConsumerStub other = ConsumerStub.start(background.consumerSecret())) {
      new PlatformClient(background).register(other.url());
      other.crcAnswer(ConsumerStub.CrcAnswer.WRONG_TOKEN);

      await().atMost(Duration.ofSeconds(5)).until(() -> background.deliver("{}") == 0);
      assertThat(other.crcRequests()).isGreaterThanOrEqualTo(2);
    }
  }

  private boolean valid() {
    return valid(client);
  }

  private static boolean valid(PlatformClient client) {
    return json(client.call("GET", "/2/webhooks", null))
        .get("data")
        .get(0)
        .get("valid")
        .asBoolean();
  }
}
