package io.servicehooks.registration;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * URLs the platform would refuse fail before any call: the client points at a closed port, so a
 * call would surface as an {@code IOException}, never as the {@code IllegalArgumentException}
 * expected here.
 */
final class WebhookUrlRulesTest {

  private final WebhookClient client =
      WebhookClient.builder()
          .baseUrl(URI.create("http://127.0.0.1:9"))
          .bearerToken("not-used")
          .build();

  @Test
  void create_httpUrl_isRefusedNamingHttps() {
    assertThatThrownBy(() -> client.create("http://hooks.example.org/x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must use https");
  }

  @Test
  void create_urlWithPort_isRefusedNamingPort() {
    assertThatThrownBy(() -> client.create("https://hooks.example.org:8443/x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not have a port");
  }

  @Test
  void create_urlOver200Characters_isRefusedNamingLength() {
    String url = "https://hooks.example.org/" + "a".repeat(200 - 26 + 1);

    assertThatThrownBy(() -> client.create(url))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most 200 characters");
  }

  @Test
  void create_urlOfExactly200Characters_passesTheRules() {
    String url = "https://hooks.example.org/" + "a".repeat(200 - 26);

    assertThatCode(() -> WebhookClient.checkWebhookUrl(url, false)).doesNotThrowAnyException();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "hooks.example.org/x",
        "https://exa mple.org/x",
        "https:///x",
        "https://user:pw@hooks.example.org/x",
        "https://hooks.example.org/x#frag",
        "ftp://hooks.example.org/x",
        "mailto:a@b.c",
        ""
      })
  void ensureRegistered_malformedUrl_isRefusedBeforeAnyCall(String url) {
    assertThatThrownBy(() -> client.ensureRegistered(url))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("webhook URL");
  }

  @Test
  void checkWebhookUrl_insecureAllowed_permitsHttpAndPort() {
    assertThatCode(() -> WebhookClient.checkWebhookUrl("http://127.0.0.1:8080/hook", true))
        .doesNotThrowAnyException();
  }

  @Test
  void revalidate_idNotDigits_isRefused() {
    assertThatThrownBy(() -> client.revalidate("../oauth2/token"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("string of digits");
  }

  @Test
  void replay_windowEndingBeforeItStarts_isRefused() {
    Instant now = Instant.parse("2026-04-01T10:00:00Z");

    assertThatThrownBy(() -> client.replay("1", now, now.minusSeconds(60)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must start before it ends");
  }

  @Test
  void build_httpBaseUrlForRemoteHost_isRefused() {
    WebhookClient.Builder builder =
        WebhookClient.builder().baseUrl(URI.create("http://api.example.com")).bearerToken("t");

    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("must use https");
  }

  @Test
  void build_withoutCredentials_namesWhatIsMissing() {
    WebhookClient.Builder builder =
        WebhookClient.builder().baseUrl(URI.create("https://api.example.com"));

    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("bearerToken or apiCredentials");
  }
}
