package io.servicehooks.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/**
 * The bearer token of {@code servicehooks listen}: the one given, or one fetched with the API key
 * and secret ({@code POST /oauth2/token}), kept until {@link #forget()} after a 401.
 */
final class StreamToken {

  /** How long the whole token answer may take, status, headers and body. */
  static final Duration ANSWER_BUDGET = Duration.ofSeconds(9);

  private static final int MAX_ANSWER_BYTES = 64 * 1024;

  /** The API key and secret, or the token, were refused: retrying will not help. */
  static final class Refused extends IOException {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message);
    }
  }

  /**
   * No token this time (the platform busy or rate-limiting, the answer lost or late): retrying
   * later may help, and the credentials are not to blame.
   */
  static final class Unavailable extends IOException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String rateLimitReset;

    /**
     * @param status the answer's status, 0 when none came
     * @param rateLimitReset the answer's {@code x-rate-limit-reset}, or null
     */
    Unavailable(String message, int status, String rateLimitReset) {
      super(message);
      this.status = status;
      this.rateLimitReset = rateLimitReset;
    }

    int status() {
      return status;
    }

    String rateLimitReset() {
      return rateLimitReset;
    }
  }

  private final URI baseUri;
  private final String fixedToken;
  private final String apiKey;
  private final String apiSecret;
  private final HttpClient http;
  private String token;

  StreamToken(URI baseUri, String fixedToken, String apiKey, String apiSecret, HttpClient http) {
    this.baseUri = baseUri;
    this.fixedToken = fixedToken;
    this.apiKey = apiKey;
    this.apiSecret = apiSecret;
    this.http = http;
  }

  /** Whether a refused token can be replaced: only one fetched with the key and secret. */
  boolean renewable() {
    return fixedToken == null;
  }

  /** Drops a fetched token (revoked): the next {@link #get()} fetches a new one. */
  void forget() {
    token = null;
  }

  /**
   * The token: the given one, or the one fetched before, or a new one fetched now.
   *
   * @throws Refused when the platform refused the API key and secret (401, 403)
   * @throws Unavailable when no token came this time: another status, or no complete answer
   */
  String get() throws IOException, InterruptedException {
    if (fixedToken != null) {
      return fixedToken;
    }
    if (token == null) {
      token = fetch();
    }
    return token;
  }

  private String fetch() throws IOException, InterruptedException {
    String pair =
        URLEncoder.encode(apiKey, StandardCharsets.UTF_8)
            + ":"
            + URLEncoder.encode(apiSecret, StandardCharsets.UTF_8);
    HttpRequest request =
        HttpRequest.newBuilder(baseUri.resolve("/oauth2/token"))
            .timeout(ANSWER_BUDGET)
            .header(
                "Authorization",
                "Basic "
                    + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)))
            .header("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8")
            .header("User-Agent", "servicehooks-cli")
            .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials"))
            .build();
    BoundedAnswer.Answer answer;
    try {
      answer = BoundedAnswer.exchange(http, request, ANSWER_BUDGET, MAX_ANSWER_BYTES);
    } catch (IOException e) {
      throw new Unavailable(
          "token request failed ("
              + e.getClass().getSimpleName()
              + (e.getMessage() == null ? "" : ": " + Printable.of(e.getMessage()))
              + ")",
          0,
          null);
    }
    int status = answer.status();
    if (status == 401 || status == 403) {
      throw new Refused(
          "the platform refused the API key and secret (HTTP "
              + status
              + ")"
              + platformMessage(answer.text()));
    }
    if (status != 200) {
      throw new Unavailable(
          "token request answered HTTP " + status + platformMessage(answer.text()),
          status,
          answer.headers().firstValue("x-rate-limit-reset").orElse(null));
    }
    JsonNode body;
    try {
      body = StreamTap.JSON.readTree(answer.body());
    } catch (IOException e) {
      body = null;
    }
    String value = body == null ? null : body.path("access_token").asText(null);
    if (value == null || value.isBlank()) {
      // never echo this body: it may hold a token
      throw new Unavailable("token request answered HTTP 200 without an access_token", 200, null);
    }
    return value;
  }

  /** The platform's message in an error body, as {@code ": message"}, or empty. */
  static String platformMessage(String body) {
    try {
      JsonNode node = StreamTap.JSON.readTree(body);
      if (node == null) {
        return "";
      }
      String message = node.path("errors").path(0).path("message").asText("");
      if (message.isEmpty()) {
        message = node.path("detail").asText("");
      }
      String issue = node.path("connection_issue").asText("");
      if (!issue.isEmpty()) {
        message = issue + (message.isEmpty() ? "" : ": " + message);
      }
      return message.isEmpty() ? "" : ": " + Printable.of(message);
    } catch (IOException e) {
      return "";
    }
  }
}
