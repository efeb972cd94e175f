package io.servicehooks.samples;

import static io.servicehooks.samples.ConsumerVariables.*;

import io.micrometer.core.instrument.MeterRegistry;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.registration.WebhookWatch;
import java.time.Duration;
import java.util.Map;

/**
 * {@code WEBHOOK_URL}: the standalone consumer registers its webhook and keeps it switched on with
 * a {@link WebhookWatch}, which reads the webhook's {@code valid} flag every {@code
 * WEBHOOK_CHECK_INTERVAL_MS} and at once after {@code WEBHOOK_CHECK_SILENCE_MS} without a CRC
 * check, and revalidates it when the platform switched it off. Needs {@code SERVICE_API_BASE_URL}
 * and the app's credentials, as catch-up does; secrets are never printed.
 */
final class WebhookCheckWiring {

  /** The parsed settings; {@link #toString()} leaves every secret out. */
  record Config(PlatformAccess platform, String webhookUrl, Duration interval, Duration silence) {
    @Override
    public String toString() {
      return "WebhookCheckWiring.Config["
          + platform
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
    PlatformAccess platform = PlatformAccess.parse(env, "WEBHOOK_URL");
    try {
      WebhookClient.checkWebhookUrl(webhookUrl, platform.allowInsecureUrl());
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
    return new Config(platform, webhookUrl, interval, silence);
  }

  /** Starts the watch of {@code config} over {@code consumer}, counting in {@code registry}. */
  static WebhookWatch start(Config config, WebhookConsumer consumer, MeterRegistry registry) {
    return WebhookWatch.builder()
        .client(config.platform().client())
        .webhookUrl(config.webhookUrl())
        .checkInterval(config.interval())
        .silence(config.silence())
        .lastCrcAnswered(consumer::lastCrcAnswered)
        .meterRegistry(registry)
        .build()
        .start();
  }
}
