package io.servicehooks.registration;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

/**
 * Fuzz targets for what the client reads from the platform's answers. Without {@code JAZZER_FUZZ}
 * they run as regression tests over {@code
 * src/test/resources/io/servicehooks/registration/ResponsesFuzzTestInputs/}; see {@code fuzz.sh} to
 * fuzz them.
 */
final class ResponsesFuzzTest {

  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-04-01T00:00:00Z"), ZoneOffset.UTC);

  /** Call signature of every success parser: the result or a {@link WebhookApiException}. */
  private interface Parse {
    Object apply(ApiResponse response) throws WebhookApiException;
  }

  private static final List<Parse> SUCCESS_PARSERS =
      List.of(
          Responses::parse,
          Responses::webhook,
          Responses::webhooks,
          Responses::validity,
          Responses::deleted,
          Responses::replayJob,
          Responses::subscription,
          Responses::subscriptions);

  /**
   * A 200 body of any shape gives a value or a {@link WebhookApiException}; an error body of any
   * shape, at any error status, gives a {@link WebhookApiException} that carries the status.
   */
  @FuzzTest
  void body(byte[] body) {
    ApiResponse ok = response(200, Map.of(), body);
    for (Parse parse : SUCCESS_PARSERS) {
      try {
        assertThat(parse.apply(ok)).isNotNull();
      } catch (WebhookApiException expected) {
        assertThat(expected.status()).isEqualTo(200);
        assertThat(expected.getMessage()).isNotBlank();
      }
    }
    assertThat(ApiErrors.parse(body)).isNotNull();
    for (int status : new int[] {400, 401, 403, 404, 409, 429, 500, 503}) {
      WebhookApiException e = ApiErrors.from(response(status, Map.of(), body), CLOCK);
      assertThat(e.status()).isEqualTo(status);
      assertThat(e.reason()).isNotNull();
      assertThat(e.getMessage()).isNotBlank();
      WebhookApiException userContext =
          ApiErrors.from(response(status, Map.of(), body), CLOCK, true);
      assertThat(userContext.reason()).isNotNull();
      assertThat(userContext.parameters()).doesNotContainNull();
    }
    // A post lookup's answer of any shape: records (each keeping JSON that parses) or an
    // IOException, nothing else.
    try {
      PostLookup lookup = PostLookup.parse(body);
      for (Post post : lookup.found()) {
        assertThat(post.raw()).isNotNull();
        if (post.author() != null) {
          assertThat(post.author().raw()).isNotNull();
        }
        post.media().forEach(media -> assertThat(media.raw()).isNotNull());
      }
      assertThat(lookup.notFound()).doesNotContainNull();
    } catch (java.io.IOException notAnAnswer) {
      // a body that is not a JSON object
    }
  }

  /**
   * Input: an {@code x-rate-limit-reset} value, a newline, a {@code Retry-After} value. A 429 or
   * 503 with any such headers gives a {@link WebhookApiException}, never a {@code
   * DateTimeException} or {@code ArithmeticException}.
   */
  @FuzzTest
  void rateLimitHeaders(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    int newline = text.indexOf('\n');
    String reset = newline < 0 ? text : text.substring(0, newline);
    String retryAfter = newline < 0 ? null : text.substring(newline + 1);
    Map<String, List<String>> headers = new java.util.HashMap<>();
    headers.put("x-rate-limit-reset", List.of(reset));
    if (retryAfter != null) {
      headers.put("retry-after", List.of(retryAfter));
    }
    byte[] body = "{\"title\":\"Too Many Requests\"}".getBytes(StandardCharsets.UTF_8);
    for (int status : new int[] {429, 503}) {
      ApiResponse response = response(status, headers, body);
      ApiErrors.resetTime(response, CLOCK);
      WebhookApiException e = ApiErrors.from(response, CLOCK);
      assertThat(e.status()).isEqualTo(status);
    }
  }

  private static ApiResponse response(int status, Map<String, List<String>> headers, byte[] body) {
    return new ApiResponse(
        "POST", "/2/webhooks", status, HttpHeaders.of(headers, (name, value) -> true), body);
  }
}
