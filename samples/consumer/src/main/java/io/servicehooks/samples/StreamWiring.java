package io.servicehooks.samples;

import static io.servicehooks.samples.ConsumerVariables.*;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.stream.ActivityStream;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * {@code DELIVERY=stream|both}: the standalone consumer also (or only) receives the activity
 * stream, through the same consumer, listeners and dedup.
 *
 * <pre>
 * DELIVERY                 webhook (default), stream, or both
 * SERVICE_API_BASE_URL     the platform's API address (required for stream and both)
 * SERVICE_API_KEY, SERVICE_API_SECRET   the app's API key and secret (a token is fetched), or
 * SERVICE_BEARER_TOKEN     an app-only bearer token; as the CLI takes them (key and secret first)
 * STREAM_BACKFILL_MINUTES  1 to 5 (default 5): the most minutes a reconnect asks again
 * ALLOW_INSECURE_URL       true: accept an http SERVICE_API_BASE_URL that is not loopback
 * </pre>
 *
 * In {@code stream} mode no webhook is served: {@code PORT} answers only {@code /health} (503
 * {@code DOWN} once the stream has been down 60 s or the platform refused the token) and {@code
 * /metrics}. The API secret and the token are never printed.
 */
final class StreamWiring {

  /** How events arrive. */
  enum Delivery {
    WEBHOOK,
    STREAM,
    BOTH,
    /** No webhook, no stream: the listeners run from a Kafka topic ({@code KafkaWiring}). */
    KAFKA
  }

  /** The parsed settings; {@link #toString()} leaves every secret out. */
  record Config(
      Delivery delivery,
      URI baseUrl,
      String apiKey,
      String apiSecret,
      String bearerToken,
      int backfillMinutes,
      boolean allowInsecureUrl) {

    boolean streamOnly() {
      return delivery == Delivery.STREAM;
    }

    @Override
    public String toString() {
      return "StreamWiring.Config[delivery="
          + delivery
          + ", baseUrl="
          + baseUrl
          + ", auth="
          + (apiKey != null ? "client credentials" : "bearer token")
          + ", backfillMinutes="
          + backfillMinutes
          + "]";
    }
  }

  private StreamWiring() {}

  /** {@code DELIVERY} alone: webhook unless set. */
  static Delivery delivery(Map<String, String> env) throws ConsumerMain.ConfigException {
    String value = DELIVERY.rawOr(env, "webhook").strip().toLowerCase(Locale.ROOT);
    return switch (value) {
      case "", "webhook" -> Delivery.WEBHOOK;
      case "stream" -> Delivery.STREAM;
      case "both" -> Delivery.BOTH;
      case "kafka" -> Delivery.KAFKA;
      default ->
          throw new ConsumerMain.ConfigException(
              "DELIVERY must be 'webhook', 'stream', 'both' or 'kafka', was '" + value + "'");
    };
  }

  /** The settings, or {@code null} for {@code DELIVERY=webhook}. */
  static Config parse(Map<String, String> env) throws ConsumerMain.ConfigException {
    Delivery delivery = delivery(env);
    if (delivery == Delivery.WEBHOOK || delivery == Delivery.KAFKA) {
      if (STREAM_BACKFILL_MINUTES.value(env) != null) {
        throw new ConsumerMain.ConfigException(
            "STREAM_BACKFILL_MINUTES is set but DELIVERY is "
                + delivery.name().toLowerCase(Locale.ROOT)
                + " (set DELIVERY=stream or both)");
      }
      return null;
    }
    String mode = "DELIVERY=" + delivery.name().toLowerCase(Locale.ROOT);
    PlatformAccess platform = PlatformAccess.parse(env, mode);
    int backfill = ActivityStream.MAX_BACKFILL_MINUTES;
    String minutes = STREAM_BACKFILL_MINUTES.value(env);
    if (minutes != null) {
      try {
        backfill = Integer.parseInt(minutes);
      } catch (NumberFormatException e) {
        backfill = -1;
      }
      if (backfill == 0) {
        throw new ConsumerMain.ConfigException(
            "STREAM_BACKFILL_MINUTES=0 is refused: 0 would lose every event the consumer could not"
                + " take, with the lines read after it, and every event sent while the stream"
                + " reconnects (nothing would ask for them again); set 1 to 5");
      }
      if (backfill < 1 || backfill > ActivityStream.MAX_BACKFILL_MINUTES) {
        throw new ConsumerMain.ConfigException(
            "STREAM_BACKFILL_MINUTES must be a number from 1 to 5, was '" + minutes + "'");
      }
    }
    Config config =
        new Config(
            delivery,
            platform.baseUrl(),
            platform.apiKey(),
            platform.apiSecret(),
            platform.bearerToken(),
            backfill,
            platform.allowInsecureUrl());
    try {
      client(config);
    } catch (IllegalStateException e) {
      throw new ConsumerMain.ConfigException("SERVICE_API_BASE_URL: " + e.getMessage());
    }
    return config;
  }

  /** The client the stream connects with; key and secret win over a token, as in the CLI. */
  static WebhookClient client(Config config) {
    WebhookClient.Builder client =
        WebhookClient.builder()
            .baseUrl(config.baseUrl())
            .allowInsecureUrls(config.allowInsecureUrl())
            .connectTimeout(Duration.ofSeconds(3))
            .requestTimeout(Duration.ofSeconds(8));
    if (config.apiKey() != null && config.apiSecret() != null) {
      client.apiCredentials(config.apiKey(), config.apiSecret());
    } else {
      client.bearerToken(config.bearerToken());
    }
    return client.build();
  }

  /**
   * The one line a stream consumer says at start when its dedup is in memory: every start asks the
   * last minutes again, and without a memory that survives the restart their events run again.
   */
  static String inMemoryRestartLine(Config config) {
    return "Dedup is in memory: a restart re-runs the last "
        + config.backfillMinutes()
        + " minutes of events (backfill); set DEDUP_FILE=<path> (one process) or REDIS_URL for a"
        + " store that survives restarts";
  }

  /** Starts the stream into {@code consumer}, counting in {@code registry}. */
  static ActivityStream start(
      Config config, WebhookConsumer consumer, MeterRegistry registry, boolean webhookCatchUp) {
    return start(config, consumer, registry, ObservationRegistry.NOOP, webhookCatchUp);
  }

  /** As above, each event line observed in {@code observations} (traced with OTLP set). */
  static ActivityStream start(
      Config config,
      WebhookConsumer consumer,
      MeterRegistry registry,
      ObservationRegistry observations,
      boolean webhookCatchUp) {
    return ActivityStream.builder(consumer, client(config))
        .backfillMinutes(config.backfillMinutes())
        .webhookCatchUp(webhookCatchUp)
        .meterRegistry(registry)
        .observationRegistry(observations)
        .build()
        .start();
  }
}
