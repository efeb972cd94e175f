package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testsupport.JarProcesses;
import io.servicehooks.testsupport.Ports;
import io.servicehooks.testsupport.TestRedis;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged jar with {@code DELIVERY=stream} against the platform simulator: no public URL, the
 * events come over the activity stream; killed and restarted within five minutes, the first
 * connect's backfill heals the gap, and Redis keeps what ran before from running again.
 */
final class StreamConsumerJarIT {

  private static final Path JAR = Path.of("target/servicehooks-consumer.jar");
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @RegisterExtension final JarProcesses jars = new JarProcesses(JAR);

  private Process start(Path output, Map<String, String> env) throws IOException {
    return jars.launch().without("SERVICE_CONSUMER_SECRET").env(env).output(output).start();
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return CLIENT.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String event(String id) {
    return Events.activity(id, "post.create", Map.of("user_id", "2244994945"), null, Map.of());
  }

  private static String log(Path out) throws IOException {
    return Files.readString(out, StandardCharsets.UTF_8);
  }

  @Test
  void jar_streamMode_killedAndRestartedWithinFiveMinutes_backfillHealsTheGap(@TempDir Path dir)
      throws Exception {
    try (PlatformSimulator simulator = PlatformSimulator.builder().build().start();
        TestRedis redis = TestRedis.shared()) {
      int port = Ports.free();
      Map<String, String> env = new HashMap<>();
      env.put("DELIVERY", "stream");
      env.put("SERVICE_API_BASE_URL", simulator.baseUrl().toString());
      env.put("SERVICE_API_KEY", simulator.apiKey());
      env.put("SERVICE_API_SECRET", simulator.apiSecret());
      env.put("PORT", String.valueOf(port));
      env.put("HOST", "127.0.0.1");
      env.put("REDIS_URL", redis.url);
      env.put("REDIS_PREFIX", redis.prefix);

      Path first = dir.resolve("first.txt");
      Process p = start(first, env);
      try {
        await()
            .atMost(Duration.ofSeconds(30))
            .ignoreExceptions()
            .until(() -> get(port, "/health").statusCode() == 200);
        await().atMost(Duration.ofSeconds(10)).until(() -> simulator.openStreams().size() == 1);
        assertThat(get(port, "/webhooks").statusCode()).isEqualTo(404); // no public URL
        simulator.deliverToStream(event("1001"));
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> log(first).contains("Handled post.create event 1001"));
      } finally {
        p.destroyForcibly(); // kill -9: no goodbye to the platform
      }
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();

      simulator.deliverToStream(event("1002")); // while nobody listens: only the history has it
      simulator.deliverToStream(event("1003"));

      Path second = dir.resolve("second.txt");
      Process restarted = start(second, env);
      try {
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    log(second).contains("Handled post.create event 1002")
                        && log(second).contains("Handled post.create event 1003"));
        assertThat(log(second))
            .contains("backfill_minutes=5")
            .doesNotContain("Handled post.create event 1001"); // Redis remembers it ran
        simulator.deliverToStream(event("1004"));
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> log(second).contains("Handled post.create event 1004"));
        HttpResponse<String> health = get(port, "/health");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(get(port, "/metrics").body())
            .contains("webhook_stream_connected 1.0")
            .contains("webhook_stream_events_total");
      } finally {
        restarted.destroy(); // SIGTERM
      }
      assertThat(restarted.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(log(second)).contains("Activity stream closed").contains("Stopped");
      assertThat(log(first) + log(second)).doesNotContain(simulator.apiSecret());
    }
  }

  @Test
  void jar_streamMode_refusedToken_healthDownWithOneErrorLine(@TempDir Path dir) throws Exception {
    try (PlatformSimulator simulator = PlatformSimulator.builder().build().start()) {
      int port = Ports.free();
      Path out = dir.resolve("out.txt");
      Process p =
          start(
              out,
              Map.of(
                  "DELIVERY", "stream",
                  "SERVICE_API_BASE_URL", simulator.baseUrl().toString(),
                  "SERVICE_BEARER_TOKEN", "AAAA-not-a-token",
                  "PORT", String.valueOf(port),
                  "HOST", "127.0.0.1"));
      try {
        await()
            .atMost(Duration.ofSeconds(30))
            .ignoreExceptions()
            .until(() -> get(port, "/health").statusCode() == 503);
        assertThat(get(port, "/health").body()).contains("DOWN").contains("REFUSED");
        assertThat(log(out).lines().filter(l -> l.contains("ERROR")))
            .singleElement()
            .asString()
            .contains("401")
            .doesNotContain("AAAA-not-a-token");
      } finally {
        p.destroy();
      }
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void jar_streamModeWithoutBaseUrl_refusesToStartWithOneLine(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("out.txt");
    Process p = start(out, Map.of("DELIVERY", "stream", "SERVICE_BEARER_TOKEN", "AAAA"));
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isEqualTo(2);
    assertThat(Files.readAllLines(out)).singleElement().asString().contains("SERVICE_API_BASE_URL");
  }
}
