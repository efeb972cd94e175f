package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.OLD_SECRET;
import static io.servicehooks.core.Fixtures.SECRET;
import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.servicehooks.testkit.TestSigner;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

/**
 * Fuzz targets for the signature header. Without {@code JAZZER_FUZZ} they run as regression tests
 * over {@code src/test/resources/io/servicehooks/core/SignatureVerifierFuzzTestInputs/}; see {@code
 * fuzz.sh} to fuzz them.
 */
final class SignatureVerifierFuzzTest {

  private static final SignatureVerifier VERIFIER =
      new SignatureVerifier(
          List.of(SECRET, OLD_SECRET),
          new RefusalLog(System::nanoTime, WebhookConsumer.DEFAULT_REFUSAL_LOG_INTERVAL));

  /** Any header value decodes to 32 bytes or to null; nothing is thrown. */
  @FuzzTest
  void decode(byte[] header) {
    byte[] mac = Hmac.decodeSignature(new String(header, StandardCharsets.UTF_8));
    if (mac != null) {
      assertThat(mac).hasSize(32);
    }
  }

  /**
   * Input: a header value, a newline, then the body. A delivery is accepted only when the header
   * carries the HMAC of the body under one of the secrets, as the testkit computes it.
   */
  @FuzzTest
  void verify(byte[] input) {
    int newline = indexOf(input, (byte) '\n');
    String header = newline < 0 ? null : new String(input, 0, newline, StandardCharsets.UTF_8);
    byte[] body = newline < 0 ? input : Arrays.copyOfRange(input, newline + 1, input.length);

    WebhookResponse refusal = VERIFIER.refusal(body, header);

    if (refusal == null) {
      byte[] claimed = Hmac.decodeSignature(header);
      assertThat(claimed).isNotNull();
      assertThat(
              Arrays.equals(claimed, mac(SECRET, body))
                  || Arrays.equals(claimed, mac(OLD_SECRET, body)))
          .as("accepted header %s", header)
          .isTrue();
    } else {
      assertThat(refusal.status()).isEqualTo(401);
      assertThat(refusal.bodyAsString()).contains("\"error\":\"invalid_signature\"");
    }
  }

  private static byte[] mac(String secret, byte[] body) {
    return Base64.getDecoder().decode(TestSigner.sign(secret, body).substring("sha256=".length()));
  }

  private static int indexOf(byte[] bytes, byte b) {
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }
}
