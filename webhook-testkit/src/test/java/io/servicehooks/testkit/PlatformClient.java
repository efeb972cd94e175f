package io.servicehooks.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/** A bare {@link HttpClient} wrapper that talks to the simulator like a client under test would. */
final class PlatformClient {

  static final ObjectMapper MAPPER = new ObjectMapper();

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private final PlatformSimulator simulator;
  private String bearer;

  PlatformClient(PlatformSimulator simulator) {
    this.simulator = simulator;
  }

  static String basic(String key, String secret) {
    String pair =
        URLEncoder.encode(key, StandardCharsets.UTF_8)
            + ":"
            + URLEncoder.encode(secret, StandardCharsets.UTF_8);
    return "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8));
  }

  HttpResponse<String> form(String path, String authorization, String contentType, String body) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri(path))
            .timeout(Duration.ofSeconds(15))
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    if (contentType != null) {
      request.header("Content-Type", contentType);
    }
    return send(request.build());
  }

  HttpResponse<String> requestToken() {
    return form(
        "/oauth2/token",
        basic(simulator.apiKey(), simulator.apiSecret()),
        "application/x-www-form-urlencoded;charset=UTF-8",
        "grant_type=client_credentials");
  }

  String bearer() {
    if (bearer == null) {
      bearer = json(requestToken()).get("access_token").asText();
    }
    return bearer;
  }

  void forgetBearer() {
    bearer = null;
  }

  HttpResponse<String> call(String method, String path, String jsonBody) {
    return call(method, path, jsonBody, "Bearer " + bearer(), Duration.ofSeconds(15));
  }

  HttpResponse<String> call(
      String method, String path, String jsonBody, String authorization, Duration timeout) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri(path))
            .timeout(timeout)
            .method(
                method,
                jsonBody == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(jsonBody));
    if (jsonBody != null) {
      request.header("Content-Type", "application/json");
    }
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return send(request.build());
  }

  HttpResponse<String> createWebhook(String url) {
    return call("POST", "/2/webhooks", "{\"url\":" + quote(url) + "}");
  }

  /** Creates a webhook and returns its id, failing the test when the platform refuses. */
  String register(String url) {
    HttpResponse<String> response = createWebhook(url);
    if (response.statusCode() != 200) {
      throw new AssertionError(
          "registration failed: " + response.statusCode() + " " + response.body());
    }
    JsonNode body = json(response);
    return (body.has("data") ? body.get("data") : body).get("id").asText();
  }

  static JsonNode json(HttpResponse<String> response) {
    try {
      return MAPPER.readTree(response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode json(String text) {
    try {
      return MAPPER.readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The reason of a webhook API failure: the text before the first ':' of errors[0].message. */
  static String reason(HttpResponse<String> response) {
    String message = json(response).path("errors").path(0).path("message").asText();
    return message.substring(0, message.indexOf(':'));
  }

  static String quote(String text) {
    try {
      return MAPPER.writeValueAsString(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private URI uri(String path) {
    return simulator.baseUrl().resolve(path);
  }

  private HttpResponse<String> send(HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
