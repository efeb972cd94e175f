package io.servicehooks.registration;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.registration.WebhookApiException.Reason;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The OAuth 1.0a refusals, in the shapes the platform uses, become typed reasons. */
final class OAuthErrorsTest {

  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-04-01T00:00:00Z"), ZoneOffset.UTC);

  private static WebhookApiException from(
      String path, int status, String contentType, String body) {
    Map<String, List<String>> headers = new HashMap<>();
    headers.put("content-type", List.of(contentType));
    headers.put("date", List.of("Wed, 01 Apr 2026 00:07:00 GMT"));
    return ApiErrors.from(
        new ApiResponse(
            "POST",
            path,
            status,
            HttpHeaders.of(headers, (a, b) -> true),
            body.getBytes(StandardCharsets.UTF_8)),
        CLOCK);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "/oauth/request_token|403|{\"errors\":[{\"code\":415,\"message\":\"Callback URL not approved"
            + " for this client application.\"}]}|CALLBACK_NOT_APPROVED",
        "/oauth/request_token|401|{\"errors\":[{\"code\":32,\"message\":\"Could not authenticate"
            + " you.\"}]}|INVALID_SIGNATURE",
        "/oauth/request_token|401|{\"errors\":[{\"code\":135,\"message\":\"Timestamp out of"
            + " bounds.\"}]}|CLOCK_SKEW",
        "/2/activity/subscriptions|401|{\"errors\":[{\"code\":32,\"message\":\"Could not"
            + " authenticate you: the nonce was used already.\"}]}|NONCE_REUSED",
        "/oauth/access_token|401|{\"errors\":[{\"code\":89,\"message\":\"Invalid or expired"
            + " token.\"}]}|AUTHENTICATION",
        "/2/activity/subscriptions|403|{\"title\":\"Unsupported Authentication\",\"detail\":\"user"
            + " context needed\",\"type\":\"https://api.example.com/2/problems/unsupported-authentication\"}"
            + "|USER_CONTEXT_REQUIRED",
      })
  void from_jsonOAuthRefusals_typedReason(String path, int status, String body, Reason reason) {
    WebhookApiException e = from(path, status, "application/json", body);

    assertThat(e.reason()).isEqualTo(reason);
    assertThat(e.status()).isEqualTo(status);
    assertThat(e.platformMessage()).isNotEmpty();
  }

  @ParameterizedTest
  @CsvSource({"/oauth/access_token", "/1.1/oauth/invalidate_token"})
  void from_plainTextVerifierError_invalidVerifierWithTheText(String path) {
    WebhookApiException e =
        from(
            path,
            401,
            "text/plain",
            "Error processing your OAuth request: Invalid oauth_verifier parameter");

    assertThat(e.reason()).isEqualTo(Reason.INVALID_VERIFIER);
    assertThat(e.platformMessage())
        .isEqualTo("Error processing your OAuth request: Invalid oauth_verifier parameter");
  }

  @Test
  void from_plainTextOutsideOAuth_notTakenAsMessage() {
    WebhookApiException e = from("/2/webhooks", 502, "text/html", "<html>bad gateway</html>");

    assertThat(e.platformMessage()).isEmpty();
    assertThat(e.reason()).isEqualTo(Reason.UNKNOWN);
  }

  @Test
  void from_clockSkew_messageNamesBothClocks() {
    WebhookApiException e =
        from(
            "/oauth/request_token",
            401,
            "application/json",
            "{\"errors\":[{\"code\":135,\"message\":\"Timestamp out of bounds.\"}]}");

    assertThat(e.getMessage())
        .contains("Wed, 1 Apr 2026 00:00:00 GMT", "Wed, 01 Apr 2026 00:07:00 GMT");
  }
}
