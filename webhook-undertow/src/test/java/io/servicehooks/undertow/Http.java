package io.servicehooks.undertow;

import io.servicehooks.testkit.TestSigner;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** A real java.net.http client and the testkit's signer, independent of the core. */
final class Http {

  static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  private Http() {}

  static String hmac(String secret, byte[] message) {
    return TestSigner.sign(secret, message);
  }

  static String hmac(String secret, String message) {
    return TestSigner.sign(secret, message);
  }

  static HttpResponse<String> get(URI uri) throws Exception {
    return CLIENT.send(
        HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static HttpRequest.Builder post(URI uri, String header, String signature, byte[] body) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri)
            .timeout(Duration.ofSeconds(20))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (signature != null) {
      b.header(header, signature);
    }
    return b;
  }

  static HttpResponse<String> postSigned(URI uri, String secret, String json) throws Exception {
    return send(
        post(
            uri,
            "x-service-webhooks-signature",
            hmac(secret, json),
            json.getBytes(StandardCharsets.UTF_8)));
  }

  static CompletableFuture<HttpResponse<String>> postSignedAsync(
      URI uri, String secret, String json) {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    return CLIENT.sendAsync(
        post(uri, "x-service-webhooks-signature", hmac(secret, body), body).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** A body of unknown length, so the client sends it chunked. */
  static HttpResponse<String> postChunked(URI uri, String signature, byte[] body) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(uri)
            .timeout(Duration.ofSeconds(20))
            .header("x-service-webhooks-signature", signature)
            .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)))
            .build();
    return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  static String envelope(String uuid, String type) {
    return "{\"data\":{\"event_uuid\":\""
        + uuid
        + "\",\"event_type\":\""
        + type
        + "\","
        + "\"filter\":{\"user_id\":\"2244994945\"},"
        + "\"payload\":{\"id\":\""
        + uuid
        + "\",\"text\":\"hello world\",\"author_id\":\"783214\"}}}";
  }
}
