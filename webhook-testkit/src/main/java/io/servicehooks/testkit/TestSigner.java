package io.servicehooks.testkit;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The tests' independent signer: signs a delivery body or answers a CRC token the way the platform
 * does ({@code sha256=<base64 HMAC-SHA256(consumer secret, message)>}), with the testkit's own HMAC
 * code rather than {@code webhook-core}'s, so a test's expected value never comes from the code
 * under test. Checked against the published vectors of docs/protocol.md#known-answers.
 *
 * <pre>{@code
 * String signature = TestSigner.sign("test", "{\"test_number\":1,\"test_string\":\"two\"}");
 * // sha256=YWHphPn/JFq43jkF0y4/w8R/SelmLjvpunhVFY8JhlI=
 * }</pre>
 */
public final class TestSigner {

  /** The header that carries a delivery's signature; header names are case-insensitive. */
  public static final String SIGNATURE_HEADER = Deliveries.SIGNATURE_HEADER;

  private TestSigner() {}

  /**
   * The value of {@link #SIGNATURE_HEADER} for these exact body bytes, {@code sha256=<base64>}.
   *
   * @throws IllegalArgumentException when the consumer secret is empty
   */
  public static String sign(String consumerSecret, byte[] body) {
    return hmac(consumerSecret).sign(Objects.requireNonNull(body, "body"));
  }

  /** {@link #sign(String, byte[])} of the body's UTF-8 bytes. */
  public static String sign(String consumerSecret, String body) {
    return sign(
        consumerSecret, Objects.requireNonNull(body, "body").getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The JSON body a correct consumer answers to {@code GET ?crc_token=<crcToken>}: {@code
   * {"response_token":"sha256=<base64>"}}.
   */
  public static String crcResponse(String consumerSecret, String crcToken) {
    return "{\"response_token\":\"" + sign(consumerSecret, crcToken) + "\"}";
  }

  private static Hmac hmac(String consumerSecret) {
    Objects.requireNonNull(consumerSecret, "consumerSecret");
    if (consumerSecret.isEmpty()) {
      throw new IllegalArgumentException("consumerSecret must not be empty");
    }
    return new Hmac(consumerSecret);
  }
}
