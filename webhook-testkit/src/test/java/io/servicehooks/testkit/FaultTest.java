package io.servicehooks.testkit;

import static io.servicehooks.testkit.PlatformClient.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

final class FaultTest {

  private final PlatformSimulator simulator =
      PlatformSimulator.builder().localMode(true).build().start();
  private final PlatformClient client = new PlatformClient(simulator);
  private final ConsumerStub consumer;

  FaultTest() throws IOException {
    consumer = ConsumerStub.start(simulator.consumerSecret());
  }

  @AfterEach
  void close() {
    simulator.close();
    consumer.close();
  }

  @Test
  void rateLimited_nextCall_429WithResetThenNormal() {
    client.bearer();
    Instant reset = Instant.parse("2030-01-01T00:00:00Z");
    simulator.enqueueFault(Fault.rateLimited(reset));

    HttpResponse<String> limited = client.call("GET", "/2/webhooks", null);

    assertThat(limited.statusCode()).isEqualTo(429);
    assertThat(limited.headers().firstValue("x-rate-limit-limit")).isPresent();
    assertThat(limited.headers().firstValue("x-rate-limit-remaining")).hasValue("0");
    assertThat(limited.headers().firstValue("x-rate-limit-reset"))
        .hasValue(Long.toString(reset.getEpochSecond()));
    assertThat(client.call("GET", "/2/webhooks", null).statusCode()).isEqualTo(200);
  }

  @Test
  void serverError_create_answeredWithStatusAndNotApplied() {
    client.bearer();
    simulator.enqueueFault(Fault.serverError(500));

    HttpResponse<String> response = client.createWebhook(consumer.url());

    assertThat(response.statusCode()).isEqualTo(500);
    assertThat(response.headers().firstValue("x-rate-limit-remaining")).isPresent();
    assertThat(json(client.call("GET", "/2/webhooks", null)).get("data")).isEmpty();
    assertThat(consumer.crcRequests()).isZero();
  }

  @Test
  void faults_several_consumedInOrderOnePerCall() {
    client.bearer();
    simulator.enqueueFault(Fault.serverError(502), Fault.serverError(503));

    assertThat(client.call("GET", "/2/webhooks", null).statusCode()).isEqualTo(502);
    assertThat(client.call("GET", "/2/webhooks", null).statusCode()).isEqualTo(503);
    assertThat(client.call("GET", "/2/webhooks", null).statusCode()).isEqualTo(200);
  }

  @Test
  void faults_tokenEndpoint_doesNotConsumeFault() {
    simulator.enqueueFault(Fault.serverError(500));

    assertThat(client.requestToken().statusCode()).isEqualTo(200);
    assertThat(client.call("GET", "/2/webhooks", null).statusCode()).isEqualTo(500);
  }

  @Test
  void delay_clientTimesOut_callStillApplied() {
    client.bearer();
    simulator.enqueueFault(Fault.delay(Duration.ofMinutes(5)));

    assertThatThrownBy(
            () ->
                client.call(
                    "POST",
                    "/2/webhooks",
                    "{\"url\":\"" + consumer.url() + "\"}",
                    "Bearer " + client.bearer(),
                    Duration.ofSeconds(1)))
        .isInstanceOf(UncheckedIOException.class)
        .hasCauseInstanceOf(HttpTimeoutException.class);
    assertThat(
            json(client.call("GET", "/2/webhooks", null)).get("meta").get("result_count").asInt())
        .isEqualTo(1);
  }

  @Test
  void delay_callArrivingWhileTheDelayedCallApplies_servedOnlyAfterTheApply() throws Exception {
    client.bearer();
    simulator.enqueueFault(Fault.delay(Duration.ofMinutes(5)));
    consumer.holdCrcAnswersUntil(2); // the create's CRC check waits for a second check
    CompletableFuture.runAsync(() -> client.createWebhook(consumer.url())).exceptionally(e -> null);
    await().until(() -> consumer.crcRequests() == 1);

    CompletableFuture<HttpResponse<String>> list =
        CompletableFuture.supplyAsync(() -> client.call("GET", "/2/webhooks", null));
    // A second check releases the held one, so the create completes its apply.
    HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create(consumer.url() + "?crc_token=release")).build(),
            HttpResponse.BodyHandlers.discarding());

    assertThat(json(list.get()).get("meta").get("result_count").asInt()).isEqualTo(1);
  }

  @Test
  void dropResponseAfterApplying_create_503ButWebhookExists() {
    client.bearer();
    simulator.enqueueFault(Fault.dropResponseAfterApplying());

    HttpResponse<String> response = client.createWebhook(consumer.url());

    assertThat(response.statusCode()).isEqualTo(503);
    assertThat(json(client.call("GET", "/2/webhooks", null)).get("data").get(0).get("url").asText())
        .isEqualTo(consumer.url());
    WebhookApiTest.assertInvalidRequest(client.createWebhook(consumer.url()), "DuplicateUrlFailed");
  }

  @Test
  void closeConnectionAfterApplying_create_ioExceptionButWebhookExists() {
    client.bearer();
    simulator.enqueueFault(Fault.closeConnectionAfterApplying());

    assertThatThrownBy(() -> client.createWebhook(consumer.url()))
        .isInstanceOf(UncheckedIOException.class);
    assertThat(
            json(client.call("GET", "/2/webhooks", null)).get("meta").get("result_count").asInt())
        .isEqualTo(1);
  }

  @Test
  void fault_badArguments_rejectedAtOnce() {
    assertThatThrownBy(() -> Fault.serverError(200)).hasMessageContaining("200");
    assertThatThrownBy(() -> Fault.delay(Duration.ofSeconds(-1))).hasMessageContaining("PT-1S");
    assertThat(Fault.rateLimited(Instant.EPOCH))
        .hasToString("Fault.rateLimited(1970-01-01T00:00:00Z)");
  }
}
