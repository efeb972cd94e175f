package io.servicehooks.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Known answers from the published vectors of docs/protocol.md#known-answers. */
final class WebhookSignerTest {

  @Test
  void sign_publishedJsonVector_matches() {
    byte[] body = "{\"test_number\":1,\"test_string\":\"two\"}".getBytes(StandardCharsets.UTF_8);
    assertThat(WebhookSigner.sign("test", body))
        .isEqualTo("sha256=YWHphPn/JFq43jkF0y4/w8R/SelmLjvpunhVFY8JhlI=");
  }

  @Test
  void sign_publishedFormVector_matches() {
    byte[] body = "test=1&other_test=2".getBytes(StandardCharsets.UTF_8);
    assertThat(WebhookSigner.sign("test", body))
        .isEqualTo("sha256=25Cu3iwbbiqBTwQRzcKJZwisjf736V2Q8UaTlkfLSoc=");
  }

  @Test
  void crcResponseToken_sameConstructionAsBody_matchesVector() {
    // The CRC answer is HMAC(secret, token): a token equal to the vector body gives its signature.
    assertThat(WebhookSigner.crcResponseToken("test", "test=1&other_test=2"))
        .isEqualTo("sha256=25Cu3iwbbiqBTwQRzcKJZwisjf736V2Q8UaTlkfLSoc=");
  }

  @Test
  void signedDelivery_carriesHeaderAndBody_verifiesAgainstVector() {
    WebhookRequest request =
        WebhookSigner.signedDelivery("test", "{\"test_number\":1,\"test_string\":\"two\"}");
    assertThat(request.method()).isEqualTo("POST");
    assertThat(request.header("X-Service-Webhooks-Signature"))
        .isEqualTo("sha256=YWHphPn/JFq43jkF0y4/w8R/SelmLjvpunhVFY8JhlI=");
    assertThat(request.toString()).doesNotContain("sha256=").doesNotContain("test_string");
  }

  @Test
  void sign_emptySecret_isRefused() {
    assertThatThrownBy(() -> WebhookSigner.sign("", new byte[0]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("consumer secret");
  }
}
