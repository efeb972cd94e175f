package io.servicehooks.registration;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

final class ApiErrorsTest {

  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-04-01T00:00:00Z"), ZoneOffset.UTC);

  private static ApiResponse answer(
      int status, String contentType, String body, Map<String, List<String>> more) {
    Map<String, List<String>> headers = new java.util.HashMap<>(more);
    headers.put("content-type", List.of(contentType));
    return new ApiResponse(
        "POST",
        "/2/webhooks",
        status,
        HttpHeaders.of(headers, (a, b) -> true),
        body.getBytes(StandardCharsets.UTF_8));
  }

  private static String invalidRequest(String message) {
    return "{\"errors\":[{\"message\":\""
        + message
        + "\"}],\"title\":\"Invalid Request\",\"detail\":\"One or"
        + " more parameters to your request was invalid.\",\"type\":\"https://api.example.com/2/problems/invalid-request\"}";
  }

  @ParameterizedTest
  @CsvSource({
    "CrcValidationFailed, CRC_VALIDATION_FAILED",
    "UrlValidationFailed, URL_VALIDATION_FAILED",
    "DuplicateUrlFailed, DUPLICATE_URL_FAILED",
    "WebhookLimitExceeded, WEBHOOK_LIMIT_EXCEEDED",
    "WebhookIdInvalid, WEBHOOK_ID_INVALID",
    "ReplayConflictError, REPLAY_CONFLICT",
    "SomethingNew, UNKNOWN"
  })
  void from_errorsMessageWithReason_mapsReasonAndKeepsName(
      String name, WebhookApiException.Reason reason) {
    String body = invalidRequest(name + ": details here");

    WebhookApiException e = ApiErrors.from(answer(400, "application/json", body, Map.of()), CLOCK);

    assertThat(e.status()).isEqualTo(400);
    assertThat(e.reason()).isEqualTo(reason);
    assertThat(e.reasonName()).contains(name);
    assertThat(e.platformMessage()).isEqualTo(name + ": details here");
    assertThat(e.body()).isEqualTo(body);
    assertThat(e.getMessage())
        .isEqualTo("POST /2/webhooks failed: HTTP 400 " + name + ": details here");
  }

  @Test
  void from_platformTextWithNewlineOrHuge_messageEscapedAndCut_rawTextKept() {
    String forged = "CrcValidationFailed: bad\\n12:00:00.000 INFO  forged line";
    String huge = "x".repeat(200_000);

    WebhookApiException newline =
        ApiErrors.from(answer(400, "application/json", invalidRequest(forged), Map.of()), CLOCK);
    WebhookApiException long_ =
        ApiErrors.from(
            answer(400, "application/json", invalidRequest("SomethingNew: " + huge), Map.of()),
            CLOCK);

    assertThat(newline.getMessage()).doesNotContain("\n").contains("bad\\n12:00:00.000");
    assertThat(newline.platformMessage()).contains("\n");
    assertThat(long_.getMessage()).hasSizeLessThan(400).endsWith("...");
    assertThat(long_.platformMessage()).hasSize("SomethingNew: ".length() + 200_000);
  }

  @Test
  void from_problemJson_usesTitleAndDetail() {
    String body =
        "{\"title\":\"Not Found Error\",\"detail\":\"Subscription 9 does not exist\",\"type\":\"x\"}";

    WebhookApiException e =
        ApiErrors.from(answer(404, "application/problem+json", body, Map.of()), CLOCK);

    assertThat(e.reason()).isEqualTo(WebhookApiException.Reason.UNKNOWN);
    assertThat(e.reasonName()).contains("Not Found Error");
    assertThat(e.platformMessage()).isEqualTo("Subscription 9 does not exist");
    assertThat(e.getMessage()).contains("HTTP 404").contains("Subscription 9 does not exist");
  }

  @Test
  void from_problemDetailWithReasonPrefix_mapsReason() {
    String body =
        "{\"title\":\"Invalid Request\",\"detail\":\"DuplicateUrlFailed: already there\",\"type\":\"x\"}";

    WebhookApiException e = ApiErrors.from(answer(400, "application/json", body, Map.of()), CLOCK);

    assertThat(e.reason()).isEqualTo(WebhookApiException.Reason.DUPLICATE_URL_FAILED);
  }

  @Test
  void from_429WithResetHeader_isRateLimitedWithResetTime() {
    String body =
        "{\"title\":\"Too Many Requests\",\"detail\":\"Too Many Requests\",\"type\":\"about:blank\"}";

    WebhookApiException e =
        ApiErrors.from(
            answer(
                429,
                "application/problem+json",
                body,
                Map.of("x-rate-limit-reset", List.of("1775001600"))),
            CLOCK);

    assertThat(e.reason()).isEqualTo(WebhookApiException.Reason.RATE_LIMITED);
    assertThat(e.rateLimitReset()).contains(Instant.ofEpochSecond(1775001600));
  }

  @Test
  void from_401Code89_isAuthentication() {
    String body = "{\"errors\":[{\"code\":89,\"message\":\"Invalid or expired token.\"}]}";

    WebhookApiException e = ApiErrors.from(answer(401, "application/json", body, Map.of()), CLOCK);

    assertThat(e.reason()).isEqualTo(WebhookApiException.Reason.AUTHENTICATION);
    assertThat(e.getMessage()).contains("code 89");
  }

  @Test
  void from_messageWithSentenceBeforeColon_hasNoReasonName() {
    String body = "{\"errors\":[{\"message\":\"Something went wrong: try later\"}]}";

    WebhookApiException e = ApiErrors.from(answer(500, "application/json", body, Map.of()), CLOCK);

    assertThat(e.reason()).isEqualTo(WebhookApiException.Reason.UNKNOWN);
    assertThat(e.reasonName()).isEmpty();
  }

  @Test
  void resetTime_retryAfterSeconds_isRelativeToClock() {
    ApiResponse response = answer(503, "application/json", "", Map.of("retry-after", List.of("7")));

    assertThat(ApiErrors.resetTime(response, CLOCK)).contains(CLOCK.instant().plusSeconds(7));
  }

  @Test
  void resetTime_rateWindowHeaderOn5xx_isIgnored() {
    ApiResponse response =
        answer(503, "application/json", "", Map.of("x-rate-limit-reset", List.of("1775001600")));

    assertThat(ApiErrors.resetTime(response, CLOCK)).isEmpty();
  }
}
