package io.servicehooks.core;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** Bodies and an HMAC computed with the JDK directly, independent of the code under test. */
final class Fixtures {

  static final String SECRET = "consumer-secret-current";
  static final String OLD_SECRET = "consumer-secret-previous";

  private Fixtures() {}

  static String envelope(String uuid, String type) {
    return "{\"data\":{\"event_uuid\":\""
        + uuid
        + "\",\"event_type\":\""
        + type
        + "\","
        + "\"filter\":{\"user_id\":\"2244994945\"},\"tag\":\"t\","
        + "\"payload\":{\"id\":\""
        + uuid
        + "\",\"text\":\"hello\",\"author_id\":\"2244994945\"}}}";
  }

  static String hmac(String secret, String message) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return "sha256="
          + Base64.getEncoder()
              .encodeToString(mac.doFinal(message.getBytes(StandardCharsets.UTF_8)));
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  static WebhookRequest signed(String secret, String json) {
    return WebhookRequest.post(hmac(secret, json), json.getBytes(StandardCharsets.UTF_8));
  }
}
