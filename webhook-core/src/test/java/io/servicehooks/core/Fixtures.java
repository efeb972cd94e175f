package io.servicehooks.core;

import io.servicehooks.testkit.TestSigner;
import java.nio.charset.StandardCharsets;

/**
 * Bodies and signatures from the testkit's {@link TestSigner}, independent of the code under test.
 */
final class Fixtures {

  static final String SECRET = "consumer-secret-current";
  static final String OLD_SECRET = "consumer-secret-previous";

  private Fixtures() {}

  /**
   * An envelope for the subscribed user {@code 2244994945} whose post is by another user ({@code
   * 783214}): the consumer skips the subscribed user's own events by default.
   */
  static String envelope(String uuid, String type) {
    return "{\"data\":{\"event_uuid\":\""
        + uuid
        + "\",\"event_type\":\""
        + type
        + "\","
        + "\"filter\":{\"user_id\":\"2244994945\"},\"tag\":\"t\","
        + "\"payload\":{\"id\":\""
        + uuid
        + "\",\"text\":\"hello\",\"author_id\":\"783214\"}}}";
  }

  static String hmac(String secret, String message) {
    return TestSigner.sign(secret, message);
  }

  static WebhookRequest signed(String secret, String json) {
    return WebhookRequest.post(hmac(secret, json), json.getBytes(StandardCharsets.UTF_8));
  }
}
