package io.servicehooks.core;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;

/**
 * Signs bodies the way the platform does, for users' own tests and local rehearsals: build a signed
 * delivery, hand it to a consumer (or POST it to one) and see what the listeners do.
 *
 * <pre>{@code
 * WebhookRequest delivery = WebhookSigner.signedDelivery("my-consumer-secret", json);
 * WebhookResponse response = consumer.handle(delivery).join();
 * }</pre>
 */
public final class WebhookSigner {

  private WebhookSigner() {}

  /**
   * The signature header value the platform would send with {@code body}: {@code
   * sha256=<base64(HMAC-SHA256(consumer secret, body))>}.
   */
  public static String sign(String consumerSecret, byte[] body) {
    Objects.requireNonNull(body, "body");
    return new Hmac(consumerSecret).sign(body);
  }

  /** The {@code response_token} a correct CRC answer for {@code crcToken} carries. */
  public static String crcResponseToken(String consumerSecret, String crcToken) {
    Objects.requireNonNull(crcToken, "crcToken");
    return new Hmac(consumerSecret).sign(crcToken.getBytes(StandardCharsets.UTF_8));
  }

  /** A {@code POST} carrying {@code json} (UTF-8) and its correct signature header. */
  public static WebhookRequest signedDelivery(String consumerSecret, String json) {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    return new WebhookRequest(
        "POST",
        null,
        Map.of(
            WebhookRequest.SIGNATURE_HEADER,
            sign(consumerSecret, body),
            "Content-Type",
            "application/json"),
        body);
  }
}
