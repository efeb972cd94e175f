package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static io.servicehooks.core.Fixtures.envelope;
import static io.servicehooks.core.Fixtures.signed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A copy of an event still running here waits a bounded time, then is answered 503 {@code
 * in_flight} with {@code Retry-After}, so the platform retries instead of timing out.
 */
final class InFlightWaitTest {

  @Test
  void copyOfRunningEvent_originalOutlastsTheWait_is503InFlightThenDuplicateAfterIt()
      throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .inFlightWait(Duration.ofMillis(200))
            .on(
                "post.create",
                e -> {
                  entered.countDown();
                  release.await(10, TimeUnit.SECONDS);
                })
            .build();
    WebhookRequest delivery = signed(SECRET, envelope("held", "post.create"));
    CompletableFuture<WebhookResponse> original =
        CompletableFuture.supplyAsync(() -> consumer.handle(delivery).join());
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

    WebhookResponse copy;
    try (LogCapture logs = new LogCapture()) {
      copy = consumer.handle(delivery).get(5, TimeUnit.SECONDS);
      // the WARN names the event, so the operator can follow it
      assertThat(logs.messages(ch.qos.logback.classic.Level.WARN))
          .anySatisfy(
              line ->
                  assertThat(line)
                      .startsWith(
                          "Refused a delivery: post.create event held is still being handled"));
    }
    assertThat(copy.status()).isEqualTo(503);
    assertThat(copy.bodyAsString()).contains("\"error\":\"in_flight\"");
    assertThat(copy.headers()).containsKey("Retry-After");
    assertThat(original).isNotDone();

    release.countDown();
    assertThat(original.get(10, TimeUnit.SECONDS).status()).isEqualTo(200);
    WebhookResponse later = consumer.handle(delivery).get(5, TimeUnit.SECONDS);
    assertThat(later.status()).isEqualTo(200);
    assertThat(later.bodyAsString()).contains("\"status\":\"duplicate\"");
  }

  @Test
  void copyOfRunningEvent_defaultWait_isBelowThePlatformsTenSeconds() {
    assertThat(WebhookConsumer.DEFAULT_IN_FLIGHT_WAIT).isPositive();
    assertThat(WebhookConsumer.DEFAULT_IN_FLIGHT_WAIT).isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void inFlightWait_notPositive_isRefusedNamingTheValue() {
    assertThatThrownBy(() -> WebhookConsumer.builder().inFlightWait(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("inFlightWait")
        .hasMessageContaining("PT0S");
    assertThatThrownBy(() -> WebhookConsumer.builder().inFlightWait(null))
        .isInstanceOf(NullPointerException.class);
  }
}
