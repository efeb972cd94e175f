package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.testkit.TestSigner;
import io.servicehooks.testsupport.JarProcesses;
import io.servicehooks.testsupport.Ports;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged jar with {@code OTEL_EXPORTER_OTLP_ENDPOINT} set exports its traces over OTLP
 * (HTTP/protobuf) to a receiver that decodes them, and its log line for the event carries the
 * event's trace id.
 */
final class TracingJarIT {

  private static final Path JAR = Path.of("target/servicehooks-consumer.jar");
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @RegisterExtension final JarProcesses jars = new JarProcesses(JAR);

  @Test
  void jar_withOtlpEndpoint_exportsDeliveryAndListenerSpans_andLogsTheTraceId(@TempDir Path dir)
      throws Exception {
    int port = Ports.free();
    Path out = dir.resolve("out.txt");
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      Process p =
          jars.launch()
              .without("OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_HEADERS")
              .env(
                  Map.of(
                      "SERVICE_CONSUMER_SECRET",
                      "jar-secret",
                      "PORT",
                      String.valueOf(port),
                      "OTEL_EXPORTER_OTLP_ENDPOINT",
                      receiver.endpoint(),
                      "OTEL_SERVICE_NAME",
                      "traced-bot"))
              .output(out)
              .start();
      try {
        String base = "http://127.0.0.1:" + port;
        JarProcesses.awaitHealthy(base, Duration.ofSeconds(30));
        String json =
            "{\"data\":{\"event_uuid\":\"77\",\"event_type\":\"post.create\",\"payload\":{}}}";
        HttpResponse<String> r =
            CLIENT.send(
                HttpRequest.newBuilder(URI.create(base + "/webhooks"))
                    .header("X-Service-Webhooks-Signature", TestSigner.sign("jar-secret", json))
                    .POST(HttpRequest.BodyPublishers.ofString(json))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
      } finally {
        p.destroy(); // SIGTERM: the shutdown exports what is still buffered
      }
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> receiver.spans().stream().anyMatch(s -> s.name().startsWith("listener")));

      List<OtlpReceiver.ReceivedSpan> spans = receiver.spans();
      assertThat(receiver.refused()).isEmpty();
      OtlpReceiver.ReceivedSpan delivery =
          spans.stream().filter(s -> s.name().equals("webhook delivery")).findFirst().orElseThrow();
      OtlpReceiver.ReceivedSpan listener =
          spans.stream().filter(s -> s.name().startsWith("listener")).findFirst().orElseThrow();
      assertThat(delivery.serviceName()).isEqualTo("traced-bot");
      assertThat(delivery.attribute("servicehooks.outcome")).isEqualTo("accepted");
      assertThat(delivery.attribute("servicehooks.event.type")).isEqualTo("post.create");
      assertThat(listener.traceId()).isEqualTo(delivery.traceId());
      assertThat(listener.parentSpanId()).isEqualTo(delivery.spanId());
      assertThat(listener.attribute("servicehooks.event.id")).isEqualTo("77");

      String handled =
          Files.readAllLines(out, StandardCharsets.UTF_8).stream()
              .filter(l -> l.contains("Handled post.create event 77"))
              .findFirst()
              .orElseThrow();
      assertThat(handled).contains(" [" + delivery.traceId() + "/" + listener.spanId() + "] - ");
      assertThat(Files.readAllLines(out, StandardCharsets.UTF_8))
          .as("lines logged outside a traced event carry no empty [/]")
          .noneMatch(l -> l.contains("[/]"))
          .noneMatch(l -> l.contains("|-WARN") || l.contains("|-ERROR"))
          .anyMatch(l -> l.contains(" INFO  consumer - ") && !l.contains("Handled"));
    }
  }
}
