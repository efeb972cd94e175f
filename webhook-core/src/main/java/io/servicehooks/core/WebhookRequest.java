package io.servicehooks.core;

import java.util.Map;
import java.util.Objects;

/**
 * One HTTP request as the core sees it, independent of the server that received it: the method, the
 * raw (still percent-encoded) query string, the headers and the raw body bytes.
 *
 * <p>Adapters build one per request and hand it to {@link WebhookConsumer#handle(WebhookRequest)}.
 * Header names are matched without regard to case. The body array is not copied: the caller hands
 * it over and must not change it afterwards.
 *
 * @param method the HTTP method, e.g. {@code GET} or {@code POST}
 * @param rawQuery the query string without the leading {@code ?}, or {@code null}
 * @param headers the request headers (a single value per name is enough for the core)
 * @param body the raw body bytes, empty for a body-less request
 */
public record WebhookRequest(
    String method, String rawQuery, Map<String, String> headers, byte[] body) {

  /** The header that carries a delivery's signature. */
  public static final String SIGNATURE_HEADER = "x-service-webhooks-signature";

  private static final byte[] NO_BODY = new byte[0];

  public WebhookRequest {
    Objects.requireNonNull(method, "method");
    headers = headers == null ? Map.of() : headers;
    body = body == null ? NO_BODY : body;
  }

  /** A CRC check: {@code GET} with the given raw query string. */
  public static WebhookRequest get(String rawQuery) {
    return new WebhookRequest("GET", rawQuery, Map.of(), NO_BODY);
  }

  /** A delivery: {@code POST} with the given signature header value (may be null) and body. */
  public static WebhookRequest post(String signature, byte[] body) {
    return new WebhookRequest(
        "POST", null, signature == null ? Map.of() : Map.of(SIGNATURE_HEADER, signature), body);
  }

  /** The value of the named header, whatever the case of its name, or {@code null}. */
  public String header(String name) {
    String exact = headers.get(name);
    if (exact != null) {
      return exact;
    }
    for (Map.Entry<String, String> e : headers.entrySet()) {
      if (e.getKey() != null && e.getKey().equalsIgnoreCase(name)) {
        return e.getValue();
      }
    }
    return null;
  }

  @Override
  public String toString() {
    // Never the body or the signature: both are for the verifier only.
    return "WebhookRequest[method=" + method + ", bodyBytes=" + body.length + "]";
  }

  @Override
  public boolean equals(Object o) {
    return this == o;
  }

  @Override
  public int hashCode() {
    return System.identityHashCode(this);
  }
}
