package io.servicehooks.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

final class DeliveryTest {

  private static final List<Duration> FAST_RETRIES =
      List.of(Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(300));
  private static final Instant START = Instant.parse("2026-05-01T12:00:00Z");

  private final PlatformSimulator simulator =
      PlatformSimulator.builder()
          .localMode(true)
          .webhookLimit(2)
          .consumerSecret("test")
          .retrySchedule(FAST_RETRIES)
          // Generous, so an answering consumer never races it; the time-out test has its own.
          .deliveryTimeout(Duration.ofSeconds(10))
          .build()
          .start();
  private final PlatformClient client = new PlatformClient(simulator);
  private final ConsumerStub consumer;
  private final String webhookId;

  DeliveryTest() throws IOException {
    consumer = ConsumerStub.start("test");
    webhookId = client.register(consumer.url());
  }

  @AfterEach
  void close() {
    simulator.close();
    consumer.close();
  }

  @Test
  void deliver_publishedJsonVector_signatureMatches() {
    String body = "{\"test_number\":1,\"test_string\":\"two\"}";

    assertThat(simulator.deliver(body)).isEqualTo(1);

    await().until(() -> consumer.deliveries().size() == 1);
    ConsumerStub.Delivery received = consumer.deliveries().get(0);
    assertThat(received.bodyText()).isEqualTo(body);
    assertThat(received.signature())
        .isEqualTo("sha256=YWHphPn/JFq43jkF0y4/w8R/SelmLjvpunhVFY8JhlI=");
  }

  @Test
  void deliver_publishedFormVector_rawBytesSignedAsGiven() {
    simulator.deliver("test=1&other_test=2".getBytes(StandardCharsets.UTF_8));

    await().until(() -> consumer.deliveries().size() == 1);
    assertThat(consumer.deliveries().get(0).signature())
        .isEqualTo("sha256=25Cu3iwbbiqBTwQRzcKJZwisjf736V2Q8UaTlkfLSoc=");
  }

  @Test
  void deliver_consumerAnswers200_oneSuccessfulAttemptRecorded() {
    String body = Events.postCreate("2244994945", "1876", "hello");

    simulator.deliver(body);

    assertThat(simulator.awaitIdle(Duration.ofSeconds(5))).isTrue();
    assertThat(simulator.attempts())
        .singleElement()
        .satisfies(
            attempt -> {
              assertThat(attempt.webhookId()).isEqualTo(webhookId);
              assertThat(attempt.body()).isEqualTo(body);
              assertThat(attempt.attempt()).isEqualTo(1);
              assertThat(attempt.status()).isEqualTo(200);
              assertThat(attempt.failure()).isNull();
              assertThat(attempt.succeeded()).isTrue();
              assertThat(attempt.time()).isNotNull();
            });
  }

  @Test
  void deliver_bothPayloadFamilies_signedIndependentlyVerifiable() {
    List<String> bodies =
        List.of(
            Events.postCreate("1", "2", "text with \"quotes\" and ünïcode"),
            Events.profileUpdate("ProfileBioUpdate", "1", "old", "new"),
            Events.accountPostCreate("1", "hi", "10", "11"),
            Events.userRevoke("1", "99"),
            Events.replayJobStatus(webhookId, "5", "Complete", "done"));

    bodies.forEach(simulator::deliver);

    await().until(() -> consumer.deliveries().size() == bodies.size());
    assertThat(consumer.deliveryBodies()).containsExactlyInAnyOrderElementsOf(bodies);
    for (ConsumerStub.Delivery received : consumer.deliveries()) {
      assertThat(received.signature()).isEqualTo(TestSigner.sign("test", received.body()));
    }
  }

  @Test
  void deliver_failuresThenSuccess_retriedOnCompressedSchedule() throws IOException {
    // The retries wait on the simulator's clock: the test moves it across each gap, no real timer.
    try (PlatformSimulator stepped =
            PlatformSimulator.builder()
                .localMode(true)
                .consumerSecret("test")
                .clock(Clock.fixed(START, ZoneOffset.UTC))
                .retrySchedule(FAST_RETRIES)
                .retriesOnSimulatorClock(true)
                .deliveryTimeout(Duration.ofSeconds(10))
                .build()
                .start();
        ConsumerStub failing = ConsumerStub.start("test")) {
      new PlatformClient(stepped).register(failing.url());
      failing.answerDeliveriesWith(500, 503);
      String body = Events.postDelete("1", "2");

      stepped.deliver(body);
      await().until(() -> stepped.attempts().size() == 1);
      stepped.advance(Duration.ofMillis(99));
      assertThat(stepped.attempts()).hasSize(1); // the first gap is not over yet
      stepped.advance(Duration.ofMillis(1));
      await().until(() -> stepped.attempts().size() == 2);
      stepped.advance(Duration.ofMillis(199));
      assertThat(stepped.attempts()).hasSize(2);
      stepped.advance(Duration.ofMillis(1));

      assertThat(stepped.awaitIdle(Duration.ofSeconds(5))).isTrue();
      List<DeliveryAttempt> attempts = stepped.attempts();
      assertThat(attempts).extracting(DeliveryAttempt::attempt).containsExactly(1, 2, 3);
      assertThat(attempts).extracting(DeliveryAttempt::status).containsExactly(500, 503, 200);
      assertThat(attempts)
          .extracting(DeliveryAttempt::deliveryId)
          .containsOnly(attempts.get(0).deliveryId());
      assertThat(attempts).extracting(DeliveryAttempt::body).containsOnly(body);
      assertThat(Duration.between(attempts.get(0).time(), attempts.get(1).time()))
          .isGreaterThanOrEqualTo(Duration.ofMillis(100))
          .isEqualTo(Duration.ofMillis(100));
      assertThat(Duration.between(attempts.get(1).time(), attempts.get(2).time()))
          .isGreaterThanOrEqualTo(Duration.ofMillis(200))
          .isEqualTo(Duration.ofMillis(200));
    }
  }

  @Test
  void deliver_retriesOnSimulatorClock_clockNotMoved_noRetryAndNotIdle() throws IOException {
    try (PlatformSimulator stepped =
            PlatformSimulator.builder()
                .localMode(true)
                .consumerSecret("test")
                .retrySchedule(FAST_RETRIES)
                .retriesOnSimulatorClock(true)
                .build()
                .start();
        ConsumerStub failing = ConsumerStub.start("test")) {
      new PlatformClient(stepped).register(failing.url());
      failing.answerDeliveriesWith(500);

      stepped.deliver(Events.postDelete("1", "2"));
      await().until(() -> stepped.attempts().size() == 1);

      assertThat(stepped.awaitIdle(Duration.ofMillis(50))).isFalse();
      assertThat(stepped.attempts()).hasSize(1);
      stepped.advance(Duration.ofMillis(100));
      assertThat(stepped.awaitIdle(Duration.ofSeconds(5))).isTrue();
      assertThat(stepped.attempts()).extracting(DeliveryAttempt::status).containsExactly(500, 200);
    }
  }

  @Test
  void deliver_alwaysFailing_droppedAfterThreeRetries() {
    consumer.answerDeliveriesWith(500, 500, 500, 500, 500);

    simulator.deliver(Events.postDelete("1", "2"));

    assertThat(simulator.awaitIdle(Duration.ofSeconds(5))).isTrue();
    assertThat(simulator.attempts())
        .extracting(DeliveryAttempt::attempt)
        .containsExactly(1, 2, 3, 4);
    assertThat(simulator.attempts()).noneMatch(DeliveryAttempt::succeeded);
    assertThat(consumer.deliveries()).hasSize(4);
  }

  @Test
  void deliver_consumerTooSlow_timedOutAndRetried() throws IOException {
    // The first answer is held until the consumer closes, so the time-out always fires; it is
    // only as short as an answering consumer (the retry) can safely beat.
    try (PlatformSimulator impatient =
            PlatformSimulator.builder()
                .localMode(true)
                .consumerSecret("test")
                .retrySchedule(FAST_RETRIES)
                .deliveryTimeout(Duration.ofSeconds(2))
                .build()
                .start();
        ConsumerStub slow = ConsumerStub.start("test")) {
      new PlatformClient(impatient).register(slow.url());
      slow.holdDeliveries(1);

      impatient.deliver(Events.postDelete("1", "2"));

      assertThat(impatient.awaitIdle(Duration.ofSeconds(10))).isTrue();
      List<DeliveryAttempt> attempts = impatient.attempts();
      assertThat(attempts).hasSize(2);
      assertThat(attempts.get(0).status()).isZero();
      assertThat(attempts.get(0).failure()).contains("timed out");
      assertThat(attempts.get(1).succeeded()).isTrue();
    }
  }

  @Test
  void deliver_consumerGone_connectionFailureRecorded() {
    consumer.close();

    simulator.deliver(Events.postDelete("1", "2"));

    assertThat(simulator.awaitIdle(Duration.ofSeconds(5))).isTrue();
    assertThat(simulator.attempts())
        .hasSize(4)
        .allSatisfy(
            a -> {
              assertThat(a.status()).isZero();
              assertThat(a.failure()).isNotBlank();
            });
  }

  @Test
  void deliver_duplicates_sameBodySentEachTime() {
    String body = Events.postCreate("1", "2", "dup");

    assertThat(simulator.deliver(body, 3)).isEqualTo(3);

    await().until(() -> consumer.deliveries().size() == 3);
    assertThat(consumer.deliveryBodies()).containsOnly(body);
    assertThat(simulator.awaitIdle(Duration.ofSeconds(5))).isTrue();
    assertThat(simulator.attempts())
        .extracting(DeliveryAttempt::deliveryId)
        .doesNotHaveDuplicates();
  }

  @Test
  void deliver_twoWebhooks_eachReceives() throws IOException {
    try (ConsumerStub second = ConsumerStub.start("test")) {
      String secondId = client.register(second.url());

      assertThat(simulator.deliver(Events.oauthRevoke("1", "2"))).isEqualTo(2);

      await().until(() -> consumer.deliveries().size() == 1 && second.deliveries().size() == 1);
      assertThat(simulator.awaitIdle(Duration.ofSeconds(5))).isTrue();
      assertThat(simulator.attempts())
          .extracting(DeliveryAttempt::webhookId)
          .containsExactlyInAnyOrder(webhookId, secondId);
    }
  }

  @Test
  void deliver_deletedWebhook_nothingSent() {
    client.call("DELETE", "/2/webhooks/" + webhookId, null);

    assertThat(simulator.deliver(Events.postDelete("1", "2"))).isZero();

    assertThat(simulator.awaitIdle(Duration.ofSeconds(1))).isTrue();
    assertThat(simulator.attempts()).isEmpty();
  }
}
