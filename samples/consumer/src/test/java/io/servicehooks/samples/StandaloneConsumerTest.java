package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.servicehooks.testkit.TestSigner;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

final class StandaloneConsumerTest {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  @Test
  void consumer_servesHealthMetricsAndLogsEachEvent() throws Exception {
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    ((Logger) LoggerFactory.getLogger("servicehooks.consumer")).addAppender(logs);
    StandaloneConsumer.Settings settings =
        new StandaloneConsumer.Settings(
            List.of("sec"), "127.0.0.1", 0, "/webhooks", false, true, 0, 0);
    try (StandaloneConsumer consumer = StandaloneConsumer.start(settings, b -> {})) {
      String base = "http://127.0.0.1:" + consumer.port();
      HttpResponse<String> health =
          CLIENT.send(
              HttpRequest.newBuilder(URI.create(base + "/health")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).isEqualTo(200);

      String json =
          "{\"data\":{\"event_uuid\":\"42\",\"event_type\":\"post.create\",\"payload\":{\"id\":\"42\"}}}";
      HttpResponse<String> delivered =
          CLIENT.send(
              HttpRequest.newBuilder(URI.create(base + "/webhooks"))
                  .header("x-service-webhooks-signature", TestSigner.sign("sec", json))
                  .POST(HttpRequest.BodyPublishers.ofString(json))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(delivered.statusCode()).isEqualTo(200);

      HttpResponse<String> metrics =
          CLIENT.send(
              HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.headers().firstValue("content-type"))
          .hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
      assertThat(metrics.body())
          .contains("webhook_events_total{outcome=\"dispatched\",type=\"post.create\"} 1.0")
          .contains("webhook_deliveries_total{outcome=\"accepted\"} 1.0")
          .contains("webhook_delivery_latency_seconds_count");
      assertThat(logs.list)
          .extracting(ILoggingEvent::getFormattedMessage)
          .contains("Handled post.create event 42");
    }
  }

  @Test
  void consumer_withManagementPort_servesHealthAndMetricsOnlyThere() throws Exception {
    StandaloneConsumer.Settings settings =
        new StandaloneConsumer.Settings(
            List.of("sec"), "127.0.0.1", 0, "/webhooks", false, false, 1, 2, "127.0.0.1", 0);
    try (StandaloneConsumer consumer = StandaloneConsumer.start(settings, b -> {})) {
      assertThat(consumer.managementPort()).isPositive().isNotEqualTo(consumer.port());
      String webhook = "http://127.0.0.1:" + consumer.port();
      String management = "http://127.0.0.1:" + consumer.managementPort();

      String json =
          "{\"data\":{\"event_uuid\":\"7\",\"event_type\":\"post.create\",\"payload\":{\"id\":\"7\"}}}";
      HttpResponse<String> delivered =
          CLIENT.send(
              HttpRequest.newBuilder(URI.create(webhook + "/webhooks"))
                  .header("x-service-webhooks-signature", TestSigner.sign("sec", json))
                  .POST(HttpRequest.BodyPublishers.ofString(json))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(delivered.statusCode()).isEqualTo(200);

      assertThat(get(management + "/health").statusCode()).isEqualTo(200);
      HttpResponse<String> metrics = get(management + "/metrics");
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.body()).contains("webhook_deliveries_total{outcome=\"accepted\"} 1.0");

      for (String path : List.of("/health", "/metrics")) {
        HttpResponse<String> onWebhookPort = get(webhook + path);
        assertThat(onWebhookPort.statusCode()).as(path).isEqualTo(404);
        assertThat(onWebhookPort.body()).as(path).doesNotContain("webhook_");
      }
      // The management port serves nothing else, the webhook least of all.
      assertThat(get(management + "/webhooks").statusCode()).isEqualTo(404);
    }
  }

  @Test
  void consumer_withoutManagementPort_hasNone() {
    StandaloneConsumer.Settings settings =
        new StandaloneConsumer.Settings(
            List.of("sec"), "127.0.0.1", 0, "/webhooks", false, false, 1, 2);
    assertThat(settings.managementPort()).isEqualTo(StandaloneConsumer.Settings.NO_MANAGEMENT_PORT);
    try (StandaloneConsumer consumer = StandaloneConsumer.start(settings, b -> {})) {
      assertThat(consumer.managementPort()).isEqualTo(-1);
    }
  }

  private static HttpResponse<String> get(String url) throws Exception {
    return CLIENT.send(
        HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void redaction_userInfoAndPassword_neverShown() {
    String url = "redis://app:pa55word@redis.internal:6379/0";
    assertThat(StandaloneConsumer.redacted(url)).isEqualTo("redis://***@redis.internal:6379/0");
    assertThat(StandaloneConsumer.withoutPassword("AUTH failed for pa55word", url))
        .isEqualTo("AUTH failed for ***");
    assertThat(StandaloneConsumer.withoutPassword("no password here", "redis://host:6379"))
        .isEqualTo("no password here");
  }
}
