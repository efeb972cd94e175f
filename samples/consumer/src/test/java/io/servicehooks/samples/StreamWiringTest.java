package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code DELIVERY}, {@code STREAM_BACKFILL_MINUTES} and the credentials, as the CLI takes them. */
final class StreamWiringTest {

  private static Map<String, String> env(String... pairs) {
    Map<String, String> env = new HashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }

  @Test
  void parse_deliveryUnset_isWebhookWithoutStream() throws Exception {
    assertThat(StreamWiring.parse(env())).isNull();
    assertThat(StreamWiring.delivery(env())).isEqualTo(StreamWiring.Delivery.WEBHOOK);
  }

  @Test
  void parse_stream_keyAndSecretWinOverToken_backfillDefault5() throws Exception {
    StreamWiring.Config config =
        StreamWiring.parse(
            env(
                "DELIVERY", "Stream",
                "SERVICE_API_BASE_URL", "https://api.example.com",
                "SERVICE_API_KEY", "key",
                "SERVICE_API_SECRET", "api-secret-never-printed",
                "SERVICE_BEARER_TOKEN", "token-never-printed"));
    assertThat(config.delivery()).isEqualTo(StreamWiring.Delivery.STREAM);
    assertThat(config.backfillMinutes()).isEqualTo(5);
    assertThat(StreamWiring.client(config).toString()).contains("client credentials");
    assertThat(config.toString())
        .doesNotContain("api-secret-never-printed")
        .doesNotContain("token-never-printed");
  }

  @Test
  void parse_both_bearerTokenAndBackfill1() throws Exception {
    StreamWiring.Config config =
        StreamWiring.parse(
            env(
                "DELIVERY", "both",
                "SERVICE_API_BASE_URL", "https://api.example.com",
                "SERVICE_BEARER_TOKEN", "token",
                "STREAM_BACKFILL_MINUTES", "1"));
    assertThat(config.delivery()).isEqualTo(StreamWiring.Delivery.BOTH);
    assertThat(config.backfillMinutes()).isEqualTo(1);
    assertThat(StreamWiring.client(config).toString()).contains("bearer token");
  }

  @Test
  void parse_badSettings_oneLineNamingTheVariable() {
    String base = "https://api.example.com";
    assertThatThrownBy(() -> StreamWiring.parse(env("DELIVERY", "socket")))
        .hasMessageContaining("DELIVERY must be 'webhook', 'stream', 'both' or 'kafka'");
    assertThatThrownBy(
            () -> StreamWiring.parse(env("DELIVERY", "stream", "SERVICE_BEARER_TOKEN", "t")))
        .hasMessageContaining("SERVICE_API_BASE_URL");
    assertThatThrownBy(
            () -> StreamWiring.parse(env("DELIVERY", "stream", "SERVICE_API_BASE_URL", base)))
        .hasMessageContaining("SERVICE_API_KEY and SERVICE_API_SECRET, or SERVICE_BEARER_TOKEN");
    assertThatThrownBy(
            () ->
                StreamWiring.parse(
                    env(
                        "DELIVERY",
                        "stream",
                        "SERVICE_API_BASE_URL",
                        base,
                        "SERVICE_API_KEY",
                        "k")))
        .hasMessageContaining("SERVICE_API_SECRET is not set");
    for (String minutes : new String[] {"6", "-1", "five"}) {
      assertThatThrownBy(
              () ->
                  StreamWiring.parse(
                      env(
                          "DELIVERY",
                          "stream",
                          "SERVICE_API_BASE_URL",
                          base,
                          "SERVICE_BEARER_TOKEN",
                          "t",
                          "STREAM_BACKFILL_MINUTES",
                          minutes)))
          .as(minutes)
          .hasMessageContaining("STREAM_BACKFILL_MINUTES must be a number from 1 to 5");
    }
    assertThatThrownBy(
            () ->
                StreamWiring.parse(
                    env(
                        "DELIVERY",
                        "stream",
                        "SERVICE_API_BASE_URL",
                        base,
                        "SERVICE_BEARER_TOKEN",
                        "t",
                        "STREAM_BACKFILL_MINUTES",
                        "0")))
        .hasMessageContaining("STREAM_BACKFILL_MINUTES=0 is refused")
        .hasMessageContaining("would lose every event the consumer could not take")
        .hasMessageNotContaining("\n");
    assertThatThrownBy(() -> StreamWiring.parse(env("STREAM_BACKFILL_MINUTES", "3")))
        .hasMessageContaining("DELIVERY is webhook");
    assertThatThrownBy(
            () ->
                StreamWiring.parse(
                    env(
                        "DELIVERY", "stream",
                        "SERVICE_API_BASE_URL", "http://api.example.com",
                        "SERVICE_BEARER_TOKEN", "t")))
        .hasMessageContaining("https");
  }

  @Test
  void parse_streamWithoutConsumerSecret_isAccepted_webhookStillNeedsIt() throws Exception {
    ConsumerMain.Command command =
        ConsumerMain.parse(new String[0], env("DELIVERY", "stream", "PORT", "0"));
    assertThat(command.settings().consumerSecrets()).hasSize(1);
    assertThatThrownBy(() -> ConsumerMain.parse(new String[0], env("DELIVERY", "both")))
        .hasMessageContaining("SERVICE_CONSUMER_SECRET is not set");
  }
}
