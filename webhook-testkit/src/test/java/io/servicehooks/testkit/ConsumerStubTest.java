package io.servicehooks.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The stub on its own, driven by a real {@code java.net.http} client. */
final class ConsumerStubTest {

  private static final String BODY = "{\"test_number\":1,\"test_string\":\"two\"}";
  private static final String SIGNATURE = "sha256=YWHphPn/JFq43jkF0y4/w8R/SelmLjvpunhVFY8JhlI=";

  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final ConsumerStub consumer;

  ConsumerStubTest() throws Exception {
    consumer = ConsumerStub.start("test");
  }

  @AfterEach
  void close() {
    consumer.close();
  }

  private HttpResponse<String> get(String query) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(consumer.url() + query))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest post(String signature) {
    return HttpRequest.newBuilder(URI.create(consumer.url("/webhook/other")))
        .timeout(Duration.ofSeconds(10))
        .header("Content-Type", "application/json")
        .header("X-Service-Webhooks-Signature", signature)
        .POST(HttpRequest.BodyPublishers.ofString(BODY))
        .build();
  }

  @Test
  void crc_correct_answersThePublishedHmacOfTheToken() throws Exception {
    HttpResponse<String> response = get("?crc_token=test%3D1%26other_test%3D2&nonce=n");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body())
        .isEqualTo("{\"response_token\":\"sha256=25Cu3iwbbiqBTwQRzcKJZwisjf736V2Q8UaTlkfLSoc=\"}");
    assertThat(consumer.crcRequests()).isEqualTo(1);
  }

  @Test
  void crc_wrongToken_answersAnotherToken() throws Exception {
    consumer.crcAnswer(ConsumerStub.CrcAnswer.WRONG_TOKEN);

    HttpResponse<String> response = get("?crc_token=abc");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body())
        .startsWith("{\"response_token\":\"sha256=")
        .isNotEqualTo(TestSigner.crcResponse("test", "abc"));
  }

  @Test
  void crc_withoutToken_is400AndNotCounted() throws Exception {
    assertThat(get("").statusCode()).isEqualTo(400);
    assertThat(consumer.crcRequests()).isZero();
  }

  @Test
  void deliver_signedAndForged_recordedWithVerification() throws Exception {
    HttpResponse<String> good = http.send(post(SIGNATURE), HttpResponse.BodyHandlers.ofString());
    http.send(post("sha256=forged"), HttpResponse.BodyHandlers.ofString());

    assertThat(good.statusCode()).isEqualTo(200);
    assertThat(good.body()).isEqualTo("{\"received\":true}");
    assertThat(consumer.deliveryBodies()).containsExactly(BODY, BODY);
    assertThat(consumer.deliveries())
        .extracting(ConsumerStub.Delivery::signatureValid)
        .containsExactly(true, false);
    assertThat(consumer.deliveries().get(0).contentType()).isEqualTo("application/json");
  }

  @Test
  void deliver_queuedThenDefaultStatus_answeredInOrder() throws Exception {
    consumer.answerDeliveriesWith(500, 503);
    consumer.deliveryStatus(401);

    assertThat(http.send(post(SIGNATURE), HttpResponse.BodyHandlers.discarding()).statusCode())
        .isEqualTo(500);
    assertThat(http.send(post(SIGNATURE), HttpResponse.BodyHandlers.discarding()).statusCode())
        .isEqualTo(503);
    assertThat(http.send(post(SIGNATURE), HttpResponse.BodyHandlers.discarding()).statusCode())
        .isEqualTo(401);
  }

  @Test
  void deliver_held_answeredOnlyAfterRelease() throws Exception {
    consumer.holdDeliveries(1);

    CompletableFuture<HttpResponse<Void>> held =
        http.sendAsync(post(SIGNATURE), HttpResponse.BodyHandlers.discarding());
    await().until(() -> consumer.deliveries().size() == 1);

    assertThat(held).isNotDone();
    assertThat(http.send(post(SIGNATURE), HttpResponse.BodyHandlers.discarding()).statusCode())
        .isEqualTo(200); // only the first was held
    assertThat(held).isNotDone();
    consumer.releaseDeliveries();
    assertThat(held.get().statusCode()).isEqualTo(200);
  }

  @Test
  void holdCrcAnswersUntil_twoChecks_neitherAnsweredAlone() throws Exception {
    consumer.holdCrcAnswersUntil(2);
    HttpRequest check =
        HttpRequest.newBuilder(URI.create(consumer.url() + "?crc_token=abc"))
            .timeout(Duration.ofSeconds(10))
            .build();

    CompletableFuture<HttpResponse<String>> first =
        http.sendAsync(check, HttpResponse.BodyHandlers.ofString());
    await().until(() -> consumer.crcRequests() == 1);
    assertThat(first).isNotDone();
    HttpResponse<String> second = http.send(check, HttpResponse.BodyHandlers.ofString());

    assertThat(second.body()).isEqualTo(TestSigner.crcResponse("test", "abc"));
    assertThat(first.get().body()).isEqualTo(TestSigner.crcResponse("test", "abc"));
  }

  @Test
  void toString_neverShowsTheSecret() throws Exception {
    try (ConsumerStub secretive = ConsumerStub.start("very-secret-value")) {
      assertThat(secretive.toString()).doesNotContain("very-secret-value");
    }
  }
}
