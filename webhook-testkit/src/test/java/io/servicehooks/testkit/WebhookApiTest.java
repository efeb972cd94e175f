package io.servicehooks.testkit;

import static io.servicehooks.testkit.PlatformClient.json;
import static io.servicehooks.testkit.PlatformClient.reason;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

final class WebhookApiTest {

  private final PlatformSimulator simulator =
      // The default CRC time-out (10 s): a correct answer never races it on a loaded machine.
      PlatformSimulator.builder().localMode(true).build().start();
  private final PlatformClient client = new PlatformClient(simulator);
  private final ConsumerStub consumer = newConsumer();

  @AfterEach
  void close() {
    simulator.close();
    consumer.close();
  }

  @Test
  void create_crcPasses_validWebhookUnderData() {
    HttpResponse<String> response = client.createWebhook(consumer.url());

    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode data = json(response).get("data");
    assertThat(data.get("id").asText()).matches("[0-9]+");
    assertThat(data.get("url").asText()).isEqualTo(consumer.url());
    assertThat(data.get("valid").asBoolean()).isTrue();
    assertThat(data.get("created_at").asText())
        .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
    assertThat(consumer.crcRequests()).isEqualTo(1);
  }

  @Test
  void create_wrongCrcToken_crcValidationFailedAndNotCreated() {
    consumer.crcAnswer(ConsumerStub.CrcAnswer.WRONG_TOKEN);

    HttpResponse<String> response = client.createWebhook(consumer.url());

    assertInvalidRequest(response, "CrcValidationFailed");
    assertThat(
            json(client.call("GET", "/2/webhooks", null)).get("meta").get("result_count").asInt())
        .isZero();
  }

  @Test
  void create_crcServerError_crcValidationFailed() {
    consumer.crcAnswer(ConsumerStub.CrcAnswer.SERVER_ERROR);

    assertInvalidRequest(client.createWebhook(consumer.url()), "CrcValidationFailed");
  }

  @Test
  void create_crcRedirect_crcValidationFailed() {
    consumer.crcAnswer(ConsumerStub.CrcAnswer.REDIRECT);

    assertInvalidRequest(client.createWebhook(consumer.url()), "CrcValidationFailed");
    assertThat(consumer.crcRequests()).isEqualTo(1);
  }

  @Test
  void create_crcTimesOut_crcValidationFailed() {
    // A short time-out is safe here: the consumer never answers, so it always fires.
    try (PlatformSimulator impatient =
        PlatformSimulator.builder()
            .localMode(true)
            .crcTimeout(Duration.ofMillis(500))
            .build()
            .start()) {
      consumer.crcAnswer(ConsumerStub.CrcAnswer.HANG);

      HttpResponse<String> response = new PlatformClient(impatient).createWebhook(consumer.url());

      assertInvalidRequest(response, "CrcValidationFailed");
      assertThat(json(response).get("errors").get(0).get("message").asText()).contains("500 ms");
    }
  }

  @Test
  void create_sameUrlTwice_duplicateUrlFailed() {
    try (PlatformSimulator roomy =
        PlatformSimulator.builder().localMode(true).webhookLimit(5).build().start()) {
      PlatformClient roomyClient = new PlatformClient(roomy);
      roomyClient.register(consumer.url());

      assertInvalidRequest(roomyClient.createWebhook(consumer.url()), "DuplicateUrlFailed");
    }
  }

  @Test
  void create_beyondDefaultLimitOfOne_webhookLimitExceeded() throws IOException {
    client.register(consumer.url());
    try (ConsumerStub second = ConsumerStub.start(simulator.consumerSecret())) {
      assertInvalidRequest(client.createWebhook(second.url()), "WebhookLimitExceeded");
      assertThat(second.crcRequests()).isZero();
    }
  }

  @Test
  void create_configuredLimit_allowsThatMany() throws IOException {
    try (PlatformSimulator roomy =
            PlatformSimulator.builder().localMode(true).webhookLimit(2).build().start();
        ConsumerStub second = ConsumerStub.start(roomy.consumerSecret());
        ConsumerStub third = ConsumerStub.start(roomy.consumerSecret())) {
      PlatformClient roomyClient = new PlatformClient(roomy);
      roomyClient.register(consumer.url() + "?first");
      roomyClient.register(second.url());

      assertInvalidRequest(roomyClient.createWebhook(third.url()), "WebhookLimitExceeded");
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "http://example.com/webhook",
        "https://example.com:8443/webhook",
        "ftp://example.com/webhook",
        "https://exa mple.com/webhook",
        "/webhook",
        "https://user@example.com/webhook",
      })
  void create_strictModeBadUrl_urlValidationFailed(String url) {
    try (PlatformSimulator strict = PlatformSimulator.builder().build().start()) {
      assertInvalidRequest(new PlatformClient(strict).createWebhook(url), "UrlValidationFailed");
    }
  }

  @Test
  void create_strictModeLoopbackWithPort_urlValidationFailed() {
    try (PlatformSimulator strict = PlatformSimulator.builder().build().start()) {
      assertInvalidRequest(
          new PlatformClient(strict).createWebhook(consumer.url()), "UrlValidationFailed");
      assertThat(consumer.crcRequests()).isZero();
    }
  }

  @Test
  void create_urlOver200Characters_urlValidationFailed() {
    String url = "https://example.com/" + "a".repeat(181);
    assertThat(url).hasSize(201);

    assertInvalidRequest(client.createWebhook(url), "UrlValidationFailed");
  }

  @Test
  void create_strictModeWellFormedHttps_passesUrlRulesThenRunsCrc() {
    // No port and https: the URL rules pass; nothing answers on 127.0.0.1:443, so the CRC fails.
    try (PlatformSimulator strict =
        PlatformSimulator.builder().crcTimeout(Duration.ofSeconds(1)).build().start()) {
      assertInvalidRequest(
          new PlatformClient(strict).createWebhook("https://127.0.0.1/webhook"),
          "CrcValidationFailed");
    }
  }

  @Test
  void create_localModeLocalhost_accepted() {
    String url = consumer.url().replace("127.0.0.1", "localhost");

    assertThat(client.createWebhook(url).statusCode()).isEqualTo(200);
  }

  @Test
  void create_missingUrl_urlValidationFailed() {
    assertInvalidRequest(client.call("POST", "/2/webhooks", "{}"), "UrlValidationFailed");
  }

  @Test
  void create_bodyNotJson_400Problem() {
    HttpResponse<String> response = client.call("POST", "/2/webhooks", "url=x");

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(json(response).get("title").asText()).isEqualTo("Invalid Request");
  }

  @Test
  void list_none_emptyDataAndZeroCount() {
    JsonNode body = json(client.call("GET", "/2/webhooks", null));

    assertThat(body.get("data").isArray()).isTrue();
    assertThat(body.get("data")).isEmpty();
    assertThat(body.get("meta").get("result_count").asInt()).isZero();
  }

  @Test
  void list_afterCreate_showsWebhook() {
    String id = client.register(consumer.url());

    JsonNode body = json(client.call("GET", "/2/webhooks", null));

    assertThat(body.get("meta").get("result_count").asInt()).isEqualTo(1);
    JsonNode webhook = body.get("data").get(0);
    assertThat(webhook.get("id").asText()).isEqualTo(id);
    assertThat(webhook.get("url").asText()).isEqualTo(consumer.url());
    assertThat(webhook.get("valid").asBoolean()).isTrue();
    assertThat(webhook.has("created_at")).isTrue();
  }

  @Test
  void revalidate_crcPasses_validTrue() {
    String id = client.register(consumer.url());

    HttpResponse<String> response = client.call("PUT", "/2/webhooks/" + id, null);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).isEqualTo("{\"data\":{\"valid\":true}}");
    assertThat(consumer.crcRequests()).isEqualTo(2);
  }

  @Test
  void revalidate_crcFails_validFalseAndWebhookInvalid() {
    String id = client.register(consumer.url());
    consumer.crcAnswer(ConsumerStub.CrcAnswer.WRONG_TOKEN);

    HttpResponse<String> response = client.call("PUT", "/2/webhooks/" + id, null);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).isEqualTo("{\"data\":{\"valid\":false}}");
    assertThat(
            json(client.call("GET", "/2/webhooks", null))
                .get("data")
                .get(0)
                .get("valid")
                .asBoolean())
        .isFalse();
  }

  @Test
  void revalidate_unknownId_webhookIdInvalid() {
    assertInvalidRequest(client.call("PUT", "/2/webhooks/123456", null), "WebhookIdInvalid");
  }

  @Test
  void revalidate_idNotDigits_webhookIdInvalid() {
    assertInvalidRequest(client.call("PUT", "/2/webhooks/abc", null), "WebhookIdInvalid");
  }

  @Test
  void delete_existing_deletedTrueAndGone() {
    String id = client.register(consumer.url());

    HttpResponse<String> response = client.call("DELETE", "/2/webhooks/" + id, null);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).isEqualTo("{\"data\":{\"deleted\":true}}");
    assertThat(
            json(client.call("GET", "/2/webhooks", null)).get("meta").get("result_count").asInt())
        .isZero();
    assertThat(client.createWebhook(consumer.url()).statusCode()).isEqualTo(200);
  }

  @Test
  void delete_unknownId_webhookIdInvalid() {
    assertInvalidRequest(client.call("DELETE", "/2/webhooks/42", null), "WebhookIdInvalid");
  }

  @Test
  void api_everyAnswer_carriesRateLimitHeaders() {
    HttpResponse<String> ok = client.call("GET", "/2/webhooks", null);
    HttpResponse<String> error = client.call("DELETE", "/2/webhooks/42", null);

    for (HttpResponse<String> response : java.util.List.of(ok, error)) {
      assertThat(response.headers().firstValue("x-rate-limit-limit")).hasValue("450");
      assertThat(response.headers().firstValue("x-rate-limit-remaining")).isPresent();
      assertThat(response.headers().firstValueAsLong("x-rate-limit-reset").orElseThrow())
          .isGreaterThan(simulator.now().getEpochSecond());
    }
    assertThat(error.headers().firstValueAsLong("x-rate-limit-remaining").orElseThrow())
        .isEqualTo(ok.headers().firstValueAsLong("x-rate-limit-remaining").orElseThrow() - 1);
  }

  @Test
  void api_rateLimitExhausted_429UntilWindowEnds() {
    try (PlatformSimulator limited = PlatformSimulator.builder().rateLimit(2).build().start()) {
      PlatformClient limitedClient = new PlatformClient(limited);
      limitedClient.call("GET", "/2/webhooks", null);
      limitedClient.call("GET", "/2/webhooks", null);

      HttpResponse<String> refused = limitedClient.call("GET", "/2/webhooks", null);
      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(refused.headers().firstValue("x-rate-limit-remaining")).hasValue("0");

      limited.advance(Duration.ofMinutes(15));
      assertThat(limitedClient.call("GET", "/2/webhooks", null).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void api_unknownPath_404Problem() {
    HttpResponse<String> response = client.call("GET", "/2/nothing", null);

    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(json(response).has("title")).isTrue();
  }

  static void assertInvalidRequest(HttpResponse<String> response, String expectedReason) {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
    JsonNode body = json(response);
    assertThat(reason(response)).isEqualTo(expectedReason);
    assertThat(body.get("errors").get(0).get("message").asText()).startsWith(expectedReason + ": ");
    assertThat(body.get("title").asText()).isEqualTo("Invalid Request");
    assertThat(body.get("detail").asText()).isNotBlank();
    assertThat(body.get("type").asText())
        .isEqualTo("https://api.example.com/2/problems/invalid-request");
  }

  private ConsumerStub newConsumer() {
    try {
      return ConsumerStub.start(simulator.consumerSecret());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
