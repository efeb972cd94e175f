package io.servicehooks.catchup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.servicehooks.registration.WebhookClient;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class CatchUpBuilderTest {

  private static final String SECRET = "ApiSecretThatMustNeverShow";

  @TempDir Path dir;

  private CatchUp.Builder valid() {
    return CatchUp.builder()
        .client(
            WebhookClient.builder()
                .baseUrl(URI.create("http://127.0.0.1:9"))
                .apiCredentials("key", SECRET)
                .build())
        .webhookId("1234567890")
        .store(HeartbeatStore.file(dir.resolve("hb")));
  }

  @Test
  void build_missingClient_namesIt() {
    assertThatThrownBy(
            () ->
                CatchUp.builder()
                    .webhookId("1")
                    .store(HeartbeatStore.file(dir.resolve("hb")))
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("client");
  }

  @Test
  void build_bothWebhookIdAndUrl_refused() {
    assertThatThrownBy(() -> valid().webhookUrl("https://hooks.example.org/x").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("exactly one of webhookId(...) and webhookUrl(...)");
  }

  @Test
  void build_thresholdNotAboveInterval_refused() {
    assertThatThrownBy(
            () ->
                valid()
                    .heartbeatInterval(Duration.ofMinutes(2))
                    .gapThreshold(Duration.ofMinutes(2))
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("gapThreshold");
  }

  @Test
  void webhookId_notDigits_refusedNamingTheValue() {
    assertThatThrownBy(() -> valid().webhookId("12a"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'12a'");
  }

  @Test
  void durations_zero_refused() {
    assertThatThrownBy(() -> valid().safetyMargin(Duration.ZERO))
        .hasMessageContaining("safetyMargin");
    assertThatThrownBy(() -> valid().maxAttempts(0)).hasMessageContaining("maxAttempts");
  }

  @Test
  void toString_leavesCredentialsOut() {
    try (CatchUp catchUp = valid().build()) {
      assertThat(catchUp.toString()).contains("1234567890").doesNotContain(SECRET);
      assertThat(valid().toString()).doesNotContain(SECRET);
    }
  }

  @Test
  void start_twice_refused() {
    try (CatchUp catchUp = valid().scheduled(false).build()) {
      catchUp.start(); // the platform is not there: logged, not thrown
      assertThatThrownBy(catchUp::start).isInstanceOf(IllegalStateException.class);
    }
  }
}
