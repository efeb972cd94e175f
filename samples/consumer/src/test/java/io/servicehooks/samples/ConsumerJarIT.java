package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.testkit.TestSigner;
import io.servicehooks.testsupport.JarProcesses;
import io.servicehooks.testsupport.Ports;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the packaged jar as a user would: {@code java -jar
 * samples/consumer/target/servicehooks-consumer.jar}.
 */
final class ConsumerJarIT {

  private static final Path JAR = Path.of("target/servicehooks-consumer.jar");
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @RegisterExtension final JarProcesses jars = new JarProcesses(JAR);

  private Process start(Path output, Map<String, String> env, String... args) throws IOException {
    return jars.launch()
        .without("SERVICE_CONSUMER_SECRET")
        .env(env)
        .args(args)
        .output(output)
        .start();
  }

  @Test
  void jar_withoutSecret_refusesToStartWithOneLine(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("out.txt");
    Process p = start(out, Map.of());
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isEqualTo(2);
    assertThat(Files.readAllLines(out))
        .singleElement()
        .asString()
        .contains("SERVICE_CONSUMER_SECRET");
  }

  @Test
  void jar_servesThenStopsCleanlyOnSigterm(@TempDir Path dir) throws Exception {
    int port = Ports.free();
    Path out = dir.resolve("out.txt");
    Process p =
        start(
            out,
            Map.of("SERVICE_CONSUMER_SECRET", "jar-secret,older", "PORT", String.valueOf(port)));
    try {
      String base = "http://127.0.0.1:" + port;
      await()
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .until(
              () ->
                  CLIENT
                          .send(
                              HttpRequest.newBuilder(URI.create(base + "/health")).build(),
                              HttpResponse.BodyHandlers.ofString())
                          .statusCode()
                      == 200);
      String json = "{\"data\":{\"event_uuid\":\"9\",\"event_type\":\"NewsNew\",\"payload\":{}}}";
      HttpResponse<String> r =
          CLIENT.send(
              HttpRequest.newBuilder(URI.create(base + "/webhooks"))
                  .header("X-Service-Webhooks-Signature", TestSigner.sign("older", json))
                  .POST(HttpRequest.BodyPublishers.ofString(json))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      String metrics =
          CLIENT
              .send(
                  HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      assertThat(metrics)
          .contains("webhook_events_total{outcome=\"dispatched\",type=\"news.new\"} 1.0");
    } finally {
      p.destroy(); // SIGTERM
    }
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String log = Files.readString(out, StandardCharsets.UTF_8);
    assertThat(log)
        .contains("Handled news.new event 9")
        .contains("Stopped")
        .doesNotContain("jar-secret");
    // Both test secrets are short: one WARN line for the build, naming positions, not values.
    assertThat(log.lines().filter(l -> l.contains("shorter than 32 characters")))
        .singleElement()
        .asString()
        .contains("WARN")
        .contains("index 0, 1")
        .doesNotContain("older");
  }

  @Test
  void jar_unresolvedPlaceholderSecret_refusesToStartWithOneLine(@TempDir Path dir)
      throws Exception {
    Path out = dir.resolve("out.txt");
    Process p = start(out, Map.of("SERVICE_CONSUMER_SECRET", "${SERVICE_CONSUMER_SECRET}"));
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isEqualTo(2);
    assertThat(Files.readAllLines(out))
        .singleElement()
        .asString()
        .contains("unresolved placeholder (${...})")
        .doesNotContain("${SERVICE_CONSUMER_SECRET}");
  }

  @Test
  void jar_demo_runsEndToEndAndExits0(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("out.txt");
    Process p = start(out, Map.of(), "--demo");
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String log = Files.readString(out, StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(log).isZero();
    assertThat(log)
        .contains("the platform's CRC check passed")
        .contains("saw profile.update.bio (arrived as ProfileBioUpdate)")
        .contains("saw follow.follow for user 2244994945")
        .contains("forged signature                  -> 401")
        .contains("-> 400 {\"error\":\"invalid_crc_token\"")
        .contains("re-checks the webhook: passed");
    // Delivered twice, dispatched once.
    assertThat(log.split("saw post 1876011200000000002", -1)).hasSize(2);
  }
}
