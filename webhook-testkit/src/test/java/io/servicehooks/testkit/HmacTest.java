package io.servicehooks.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

final class HmacTest {

  // docs/protocol.md#known-answers, consumer secret "test".
  private final Hmac hmac = new Hmac("test");

  @Test
  void sign_publishedJsonVector_matches() {
    assertThat(hmac.sign("{\"test_number\":1,\"test_string\":\"two\"}"))
        .isEqualTo("sha256=YWHphPn/JFq43jkF0y4/w8R/SelmLjvpunhVFY8JhlI=");
  }

  @Test
  void sign_publishedFormVector_matches() {
    assertThat(hmac.sign("test=1&other_test=2"))
        .isEqualTo("sha256=25Cu3iwbbiqBTwQRzcKJZwisjf736V2Q8UaTlkfLSoc=");
  }

  @Test
  void matches_rightAndWrongAnswers() {
    assertThat(
            hmac.matches(
                "test=1&other_test=2", "sha256=25Cu3iwbbiqBTwQRzcKJZwisjf736V2Q8UaTlkfLSoc="))
        .isTrue();
    assertThat(
            hmac.matches(
                "test=1&other_test=3", "sha256=25Cu3iwbbiqBTwQRzcKJZwisjf736V2Q8UaTlkfLSoc="))
        .isFalse();
    assertThat(hmac.matches("test=1&other_test=2", "25Cu3iwbbiqBTwQRzcKJZwisjf736V2Q8UaTlkfLSoc="))
        .isFalse();
    assertThat(hmac.matches("x", null)).isFalse();
  }

  @Test
  void toString_noKey() {
    assertThat(hmac.toString()).doesNotContain("test");
  }
}
