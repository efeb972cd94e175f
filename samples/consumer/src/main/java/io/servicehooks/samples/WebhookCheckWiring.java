package io.servicehooks.samples;

import static io.servicehooks.samples.ConsumerVariables.*;

import io.micrometer.core.instrument.MeterRegistry;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.registration.WebhookWatch;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * {@code WEBHOOK_URL}: the standalone consumer registers its webhook and keeps it switched on with
 * a {@link WebhookWatch}, which reads the webhook's {@code valid} flag every {@code
 * WEBHOOK_CHECK_INTERVAL_MS} and at once after {@code WEBHOOK_CHECK_SILENCE_MS} without a CRC
 * check, and revalidates it when the platform switched it off. Needs {@code SERVICE_API_BASE_URL}
 * and the app's credentials, as catch-up does; secrets are never printed.
 */
final class WebhookCheckWiring {

  /**
   * The parsed settings; {@link #toString()} leaves every secret out.
   *
   * @param bearerToken the app-only token, or null when the key and secret fetch one
   */
  record Config(
      URI baseUrl,
      String apiKey,
      String apiSecret,
      String bearerToken,
      String webhookUrl,
      boolean allowInsecureUrl,
      Duration interval,
      Duration silence) {
    @Override
    public String toString() {
      return "WebhookCheckWiring.Config[baseUrl="
          + baseUrl
          + ", webhook="
          + webhookUrl
          + ", every "
          + interval
          + ", silence "
          + silence
          + "]";
    }
  }

  private WebhookCheckWiring() {}

  /** The settings, or {@code null} when {@code WEBHOOK_URL} is not set. */
  static Config parse(Map<String, String> env) throws ConsumerMain.ConfigException {
    String webhookUrl = WEBHOOK_URL.value(env);
    if (webhookUrl == null) {
      for (Variable unused : new Variable[] {WEBHOOK_CHECK_INTERVAL_MS, WEBHOOK_CHECK_SILENCE_MS}) {
        if (unused.value(env) != null) {
          throw new ConsumerMain.ConfigException(
              unused + " is set but WEBHOOK_URL is not: there is no webhook to check");
        }
      }
      return null;
    }
    String base = SERVICE_API_BASE_URL.value(env);
    if (base == null) {
      throw new ConsumerMain.ConfigException(
          "WEBHOOK_URL needs SERVICE_API_BASE_URL (the platform's API address) to register and"
              + " check the webhook");
    }
    URI baseUrl;
    try {
      baseUrl = URI.create(base);
      WebhookClient.builder().baseUrl(baseUrl); // the client's own check
    } catch (IllegalArgumentException e) {
      throw new ConsumerMain.ConfigException(
          "SERVICE_API_BASE_URL must be an absolute http(s) URL without user information");
    }
    String key = SERVICE_API_KEY.value(env);
    String secret = SERVICE_API_SECRET.value(env);
    String token = SERVICE_BEARER_TOKEN.value(env);
    if (token == null && (key == null || secret == null)) {
      throw new ConsumerMain.ConfigException(
          "WEBHOOK_URL needs SERVICE_API_KEY and SERVICE_API_SECRET, or SERVICE_BEARER_TOKEN, in"
              + " the environment to register and check the webhook");
    }
    String insecure = ALLOW_INSECURE_URL.rawOr(env, "false").strip().toLowerCase(Locale.ROOT);
    if (!insecure.equals("true") && !insecure.equals("false")) {
      throw new ConsumerMain.ConfigException(
          "ALLOW_INSECURE_URL must be 'true' or 'false', was '" + insecure + "'");
    }
    try {
      WebhookClient.checkWebhookUrl(webhookUrl, insecure.equals("true"));
    } catch (IllegalArgumentException e) {
      throw new ConsumerMain.ConfigException("WEBHOOK_URL: " + e.getMessage());
    }
    long day = Duration.ofDays(1).toMillis();
    Duration interval =
        CatchUpWiring.millis(
            env, WEBHOOK_CHECK_INTERVAL_MS, WebhookWatch.DEFAULT_CHECK_INTERVAL, 1000, day);
    Duration silence =
        CatchUpWiring.millis(
            env, WEBHOOK_CHECK_SILENCE_MS, WebhookWatch.DEFAULT_SILENCE, 1000, day);
    return new Config(
        baseUrl, key, secret, token, webhookUrl, insecure.equals("true"), interval, silence);
  }

  /** Starts the watch of {@code config} over {@code consumer}, counting in {@code registry}. */
  static WebhookWatch start(Config config, WebhookConsumer consumer, MeterRegistry registry) {
    WebhookClient.Builder client =
        WebhookClient.builder()
            .baseUrl(config.baseUrl())
            .allowInsecureUrls(config.allowInsecureUrl())
            .connectTimeout(Duration.ofSeconds(3))
            .requestTimeout(Duration.ofSeconds(8));
    if (config.bearerToken() != null) {
      client.bearerToken(config.bearerToken());
    } else {
      client.apiCredentials(config.apiKey(), config.apiSecret());
    }
    return WebhookWatch.builder()
        .client(client.build())
        .webhookUrl(config.webhookUrl())
        .checkInterval(config.interval())
        .silence(config.silence())
        .lastCrcAnswered(consumer::lastCrcAnswered)
        .meterRegistry(registry)
        .build()
        .start();
  }
}
