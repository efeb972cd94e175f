package io.servicehooks.core;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;

/**
 * The answer the core gives to one {@link WebhookRequest}: a status, headers and a short JSON body.
 * Adapters copy it onto their server's response unchanged, so every transport answers alike.
 *
 * @param status the HTTP status code
 * @param headers response headers, always including {@code Content-Type}
 * @param body the body bytes (UTF-8 JSON); common answers share one array, so never modify it
 */
public record WebhookResponse(int status, Map<String, String> headers, byte[] body) {

  public WebhookResponse {
    headers = Map.copyOf(Objects.requireNonNull(headers, "headers"));
    Objects.requireNonNull(body, "body");
  }

  static WebhookResponse json(int status, String json) {
    return new WebhookResponse(
        status, Map.of("Content-Type", "application/json"), json.getBytes(StandardCharsets.UTF_8));
  }

  static WebhookResponse error(int status, String code, String message) {
    return json(
        status, "{\"error\":\"" + quote(code) + "\",\"message\":\"" + quote(message) + "\"}");
  }

  private static String quote(String s) {
    return new String(JsonStringEncoder.getInstance().quoteAsString(s));
  }

  /** The body decoded as UTF-8. */
  public String bodyAsString() {
    return new String(body, StandardCharsets.UTF_8);
  }

  /** The {@code Content-Type} header. */
  public String contentType() {
    return headers.get("Content-Type");
  }

  @Override
  public String toString() {
    return "WebhookResponse[status=" + status + ", body=" + bodyAsString() + "]";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WebhookResponse r
        && r.status == status
        && r.headers.equals(headers)
        && java.util.Arrays.equals(r.body, body);
  }

  @Override
  public int hashCode() {
    return 31 * Integer.hashCode(status) + java.util.Arrays.hashCode(body);
  }
}
