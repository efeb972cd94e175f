package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.testsupport.Ports;
import io.servicehooks.testsupport.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Durable mode's {@code /health}: UP while the inbox's threads run, 503 DOWN naming the thread once
 * one is gone (here the marker, stopped from outside as a fault would), so an orchestrator replaces
 * an instance that would answer 200 but never mark what it ran.
 */
final class DurableHealthTest {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  @Test
  void health_inboxThreadGone_downWith503NamingIt() throws Exception {
    try (TestDatabase.Schema schema = TestDatabase.schemaToBeCreated()) {
      DatabaseSettings database =
          DatabaseSettings.fromEnvironment(
              Map.of("DATABASE_URL", TestDatabase.url(), "DATABASE_SCHEMA", schema.name));
      StandaloneConsumer.Settings settings =
          new StandaloneConsumer.Settings(
              List.of("sec"), "127.0.0.1", 0, "/webhooks", false, false, 0, 0);
      try (StandaloneConsumer consumer = StandaloneConsumer.start(settings, database, b -> {})) {
        HttpRequest health =
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + consumer.port() + "/health"))
                .timeout(Duration.ofSeconds(2))
                .build();
        HttpResponse<String> up = CLIENT.send(health, HttpResponse.BodyHandlers.ofString());
        assertThat(up.statusCode()).isEqualTo(200);
        assertThat(up.body()).isEqualTo("{\"status\":\"UP\",\"crc_last_answered\":null}");

        Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.getName().equals("servicehooks-inbox-marker"))
            .forEach(Thread::interrupt);

        await()
            .atMost(Duration.ofSeconds(5))
            .untilAsserted(
                () -> {
                  HttpResponse<String> down =
                      CLIENT.send(health, HttpResponse.BodyHandlers.ofString());
                  assertThat(down.statusCode()).isEqualTo(503);
                  assertThat(down.body())
                      .startsWith("{\"status\":\"DOWN\"")
                      .contains("servicehooks-inbox-marker is gone");
                });
      }
    }
  }

  @Test
  void durableMode_withRedisUrl_opensNoRedisDedupStore_startsWithRedisDown() throws Exception {
    // The inbox is the dedup in durable mode, so REDIS_URL must not be
    // connected for dedup (before, an unreachable Redis here failed start-up, and a reachable one
    // was connected and never written).
    try (TestDatabase.Schema schema = TestDatabase.schemaToBeCreated()) {
      DatabaseSettings database =
          DatabaseSettings.fromEnvironment(
              Map.of("DATABASE_URL", TestDatabase.url(), "DATABASE_SCHEMA", schema.name));
      StandaloneConsumer.Settings settings =
          new StandaloneConsumer.Settings(
              List.of("sec"),
              "127.0.0.1",
              0,
              "/webhooks",
              false,
              false,
              0,
              0,
              "127.0.0.1",
              StandaloneConsumer.Settings.NO_MANAGEMENT_PORT,
              "redis://127.0.0.1:" + Ports.free(),
              null);
      try (StandaloneConsumer consumer = StandaloneConsumer.start(settings, database, b -> {})) {
        HttpRequest health =
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + consumer.port() + "/health"))
                .timeout(Duration.ofSeconds(2))
                .build();
        assertThat(CLIENT.send(health, HttpResponse.BodyHandlers.ofString()).statusCode())
            .isEqualTo(200);
      }
    }
  }
}
