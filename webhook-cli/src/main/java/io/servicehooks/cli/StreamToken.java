package io.servicehooks.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/**
 * The bearer token of {@code servicehooks listen}: the one given, or one fetched with the API key
 * and secret ({@code POST /oauth2/token}), kept until {@link #forget()} after a 401.
 */
final class StreamToken {

  /** The API key and secret, or the token, were refused: retrying will not help. */
  static final class Refused extends IOException {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message);
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

  String get() throws IOException, InterruptedException {
    if (fixedToken != null) {
      return fixedToken;
    }
    if (token == null) {
      String pair =
          URLEncoder.encode(apiKey, StandardCharsets.UTF_8)
              + ":"
              + URLEncoder.encode(apiSecret, StandardCharsets.UTF_8);
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(baseUri.resolve("/oauth2/token"))
                  .timeout(Duration.ofSeconds(9))
                  .header(
                      "Authorization",
                      "Basic "
                          + Base64.getEncoder()
                              .encodeToString(pair.getBytes(StandardCharsets.UTF_8)))
                  .header("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8")
                  .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials"))
                  .build(),
              HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      JsonNode body = null;
      try {
        body = StreamTap.JSON.readTree(response.body());
      } catch (IOException e) {
        // handled below as a refusal without a token
      }
      String value = body == null ? null : body.path("access_token").asText(null);
      if (response.statusCode() != 200 || value == null) {
        throw new Refused(
            "the platform refused the API key and secret (HTTP "
                + response.statusCode()
                + ")"
                + platformMessage(response.body()));
      }
      token = value;
    }
    return token;
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
      return message.isEmpty() ? "" : ": " + message;
    } catch (IOException e) {
      return "";
    }
  }
}
