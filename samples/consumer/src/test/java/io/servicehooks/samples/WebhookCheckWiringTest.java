package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.servicehooks.registration.WebhookClient;
import io.servicehooks.registration.WebhookWatch;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testsupport.Ports;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code WEBHOOK_URL}: the standalone consumer registers its webhook and keeps it switched on; the
 * simulator switches it off as the platform does after failed CRC checks.
 */
final class WebhookCheckWiringTest {

  private static Map<String, String> env(String... pairs) {
    Map<String, String> env = new HashMap<>();
    env.put("SERVICE_API_BASE_URL", "http://127.0.0.1:9");
    env.put("SERVICE_API_KEY", "key-not-secret");
    env.put("SERVICE_API_SECRET", "SuperSecretApiSecretValue");
    env.put("WEBHOOK_URL", "https://hooks.example.org/service");
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }

  @Test
  void parse_withoutWebhookUrl_isOff_butItsSettingsAloneAreRefused() throws Exception {
    assertThat(WebhookCheckWiring.parse(Map.of())).isNull();
    assertThatThrownBy(() -> WebhookCheckWiring.parse(Map.of("WEBHOOK_CHECK_SILENCE_MS", "5000")))
        .isInstanceOf(ConsumerMain.ConfigException.class)
        .hasMessageContaining("WEBHOOK_CHECK_SILENCE_MS is set but WEBHOOK_URL is not");
  }

  @Test
  void parse_defaultsAsTheLibrary_andOneSecondAtLeast() throws Exception {
    WebhookCheckWiring.Config config = WebhookCheckWiring.parse(env());
    assertThat(config.interval()).isEqualTo(Duration.ofMillis(900_000));
    assertThat(config.interval()).isEqualTo(WebhookWatch.DEFAULT_CHECK_INTERVAL);
    assertThat(config.silence()).isEqualTo(Duration.ofMillis(4_500_000));
    assertThat(config.silence()).isEqualTo(WebhookWatch.DEFAULT_SILENCE);
    assertThat(WebhookCheckWiring.parse(env("WEBHOOK_CHECK_INTERVAL_MS", "1000")).interval())
        .isEqualTo(Duration.ofSeconds(1));
    assertThatThrownBy(() -> WebhookCheckWiring.parse(env("WEBHOOK_CHECK_INTERVAL_MS", "999")))
        .hasMessageContaining(
            "WEBHOOK_CHECK_INTERVAL_MS must be a number of milliseconds from 1000");
    assertThatThrownBy(() -> WebhookCheckWiring.parse(env("WEBHOOK_CHECK_SILENCE_MS", "soon")))
        .hasMessageContaining("WEBHOOK_CHECK_SILENCE_MS");
  }

  @Test
  void parse_missingPlatformOrCredentials_namesThem_secretsNeverShown() throws Exception {
    Map<String, String> noBase = env();
    noBase.remove("SERVICE_API_BASE_URL");
    assertThatThrownBy(() -> WebhookCheckWiring.parse(noBase))
        .hasMessageContaining("WEBHOOK_URL needs SERVICE_API_BASE_URL");
    Map<String, String> noSecret = env();
    noSecret.remove("SERVICE_API_SECRET");
    assertThatThrownBy(() -> WebhookCheckWiring.parse(noSecret))
        .hasMessageContaining("SERVICE_API_KEY and SERVICE_API_SECRET, or SERVICE_BEARER_TOKEN");
    assertThatThrownBy(
            () -> WebhookCheckWiring.parse(env("WEBHOOK_URL", "http://127.0.0.1:8080/webhooks")))
        .hasMessageContaining("WEBHOOK_URL");
    assertThat(WebhookCheckWiring.parse(env()).toString())
        .doesNotContain("SuperSecretApiSecretValue");
  }

  @Test
  void switchedOffByThePlatform_revalidatedHealthAndMetricsShowTheLastCrc() throws Exception {
    int port = Ports.free(); // the consumer comes back at the same address
    try (PlatformSimulator platform =
        PlatformSimulator.builder().localMode(true).retrySchedule(List.of()).build().start()) {
      String url = "http://127.0.0.1:" + port + "/webhooks";
      WebhookCheckWiring.Config config =
          WebhookCheckWiring.parse(
              env(
                  "SERVICE_API_BASE_URL",
                  platform.baseUrl().toString(),
                  "SERVICE_API_KEY",
                  platform.apiKey(),
                  "SERVICE_API_SECRET",
                  platform.apiSecret(),
                  "WEBHOOK_URL",
                  url,
                  "ALLOW_INSECURE_URL",
                  "true",
                  "WEBHOOK_CHECK_INTERVAL_MS",
                  "1000"));
      StandaloneConsumer.Settings settings =
          new StandaloneConsumer.Settings(
              List.of(platform.consumerSecret()),
              "127.0.0.1",
              port,
              "/webhooks",
              false,
              false,
              0,
              0);
      try (StandaloneConsumer consumer = StandaloneConsumer.start(settings, b -> {});
          WebhookWatch watch =
              WebhookCheckWiring.start(
                  config, consumer.webhookConsumer(), consumer.meterRegistry())) {
        // The first check registers the webhook: the platform's CRC check is answered.
        WebhookClient client =
            WebhookClient.builder()
                .baseUrl(platform.baseUrl())
                .apiCredentials(platform.apiKey(), platform.apiSecret())
                .allowInsecureUrls(true)
                .build();
        await().atMost(Duration.ofSeconds(20)).until(() -> client.list().size() == 1);
        String health = get(port, "/health");
        assertThat(health).contains("\"status\":\"UP\"", "\"crc_last_answered\":\"20");
        assertThat(consumer.scrape())
            .containsPattern("webhook_crc_last_answered_seconds \\d\\.\\d+E9");

        String id = client.list().get(0).id();
        platform.invalidateWebhook(id);
        assertThat(client.list().get(0).valid()).isFalse();

        await().atMost(Duration.ofSeconds(20)).until(() -> client.list().get(0).valid());
        await()
            .atMost(Duration.ofSeconds(10))
            .untilAsserted(
                () ->
                    assertThat(consumer.scrape())
                        .contains(
                            "webhook_registration_revalidations_total{outcome=\"revalidated\"}"));
      }
    }
  }

  private static String get(int port, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }
}
