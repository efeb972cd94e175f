package io.servicehooks.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

final class TestSignerTest {

  // docs/protocol.md#known-answers, consumer secret "test".
  @Test
  void sign_publishedJsonVector_matches() {
    assertThat(TestSigner.sign("test", "{\"test_number\":1,\"test_string\":\"two\"}"))
        .isEqualTo("sha256=YWHphPn/JFq43jkF0y4/w8R/SelmLjvpunhVFY8JhlI=");
  }

  @Test
  void sign_publishedFormVectorAsBytes_matches() {
    assertThat(TestSigner.sign("test", "test=1&other_test=2".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo("sha256=25Cu3iwbbiqBTwQRzcKJZwisjf736V2Q8UaTlkfLSoc=");
  }

  @Test
  void crcResponse_token_isTheJsonBodyOfTheSignedToken() {
    assertThat(TestSigner.crcResponse("test", "test=1&other_test=2"))
        .isEqualTo("{\"response_token\":\"sha256=25Cu3iwbbiqBTwQRzcKJZwisjf736V2Q8UaTlkfLSoc=\"}");
  }

  @Test
  void sign_emptySecret_isRefused() {
    assertThatThrownBy(() -> TestSigner.sign("", "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("consumerSecret");
  }

  @Test
  void signatureHeader_isThePlatformsHeader() {
    assertThat(TestSigner.SIGNATURE_HEADER).isEqualTo("x-service-webhooks-signature");
  }
}
