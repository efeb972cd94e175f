package io.servicehooks.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the challenge-response check: {@code GET <url>?crc_token=<random>} and compares the answer's
 * {@code response_token} with the simulator's own HMAC of the token.
 */
final class CrcCheck {

  /** The outcome of one check; {@code detail} says why it failed (never the token or secret). */
  record Outcome(boolean passed, String detail) {}

  private static final Logger log = LoggerFactory.getLogger(CrcCheck.class);

  private final HttpClient client;
  private final Hmac hmac;
  private final Duration timeout;
  private final SecureRandom random = new SecureRandom();

  CrcCheck(HttpClient client, Hmac hmac, Duration timeout) {
    this.client = client;
    this.hmac = hmac;
    this.timeout = timeout;
  }

  Outcome check(String url) {
    String token = newToken();
    URI uri =
        URI.create(
            url
                + (url.contains("?") ? "&" : "?")
                + "crc_token="
                + URLEncoder.encode(token, StandardCharsets.UTF_8));
    HttpRequest request =
        HttpRequest.newBuilder(uri)
            .timeout(timeout)
            .header("Accept", "application/json")
            .GET()
            .build();
    Outcome outcome;
    // The request time-out covers the headers only; the whole answer must come within it too.
    CompletableFuture<HttpResponse<byte[]>> answer =
        client.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray());
    try {
      HttpResponse<byte[]> response = answer.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      outcome = judge(token, response);
    } catch (ExecutionException e) {
      outcome =
          e.getCause() instanceof HttpTimeoutException
              ? new Outcome(
                  false, "no answer to the CRC request within " + timeout.toMillis() + " ms")
              : new Outcome(
                  false,
                  "the CRC request failed (" + e.getCause().getClass().getSimpleName() + ")");
    } catch (TimeoutException e) {
      answer.cancel(true);
      outcome =
          new Outcome(false, "no answer to the CRC request within " + timeout.toMillis() + " ms");
    } catch (InterruptedException e) {
      answer.cancel(true);
      Thread.currentThread().interrupt();
      outcome = new Outcome(false, "the CRC request was interrupted");
    }
    log.debug("CRC check of {}: {}", url, outcome.passed() ? "passed" : outcome.detail());
    return outcome;
  }

  private Outcome judge(String token, HttpResponse<byte[]> response) {
    int status = response.statusCode();
    if (status < 200 || status > 299) {
      return new Outcome(false, "the webhook answered the CRC request with HTTP " + status);
    }
    JsonNode body = Json.parseOrNull(response.body());
    String answer = Json.text(body, "response_token");
    if (answer == null) {
      return new Outcome(false, "the CRC answer has no response_token");
    }
    if (!hmac.matches(token, answer)) {
      return new Outcome(false, "the CRC answer has a wrong response_token");
    }
    return new Outcome(true, "passed");
  }

  // Base64url without padding: short, opaque and free of characters a hardened consumer refuses.
  private String newToken() {
    byte[] bytes = new byte[24];
    random.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }
}
