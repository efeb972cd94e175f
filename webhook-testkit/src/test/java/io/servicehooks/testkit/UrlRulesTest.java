package io.servicehooks.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

final class UrlRulesTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "https://example.com/webhook",
        "https://example.com",
        "https://a.example.com/x?y=1"
      })
  void violation_httpsWithoutPort_none(String url) {
    assertThat(UrlRules.violation(url, false)).isNull();
  }

  @Test
  void violation_exactly200Characters_none() {
    String url = "https://example.com/" + "a".repeat(180);

    assertThat(url).hasSize(200);
    assertThat(UrlRules.violation(url, false)).isNull();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "http://127.0.0.1:8080/webhook",
        "http://localhost:1/x",
        "https://localhost:8443/x",
        "http://127.0.0.1/webhook"
      })
  void violation_loopback_refusedStrictAcceptedLocal(String url) {
    assertThat(UrlRules.violation(url, false)).isNotNull();
    assertThat(UrlRules.violation(url, true)).isNull();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "http://10.0.0.1:8080/webhook",
        "http://example.com/webhook",
        "https://example.com:443/x"
      })
  void violation_localModeOtherHosts_stillStrict(String url) {
    assertThat(UrlRules.violation(url, true)).isNotNull();
  }

  @Test
  void violation_missing_named() {
    assertThat(UrlRules.violation(null, false)).contains("required");
  }
}
