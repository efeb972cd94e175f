package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.PlatformSimulator;
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
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged jar with {@code DELIVERY=stream} restarted against the platform simulator: each
 * start asks the last five minutes again (backfill). With {@code DEDUP_FILE} an event handled
 * before the restart does not run again; with the in-memory store it does, and the consumer said so
 * in one line at start.
 */
final class DedupFileJarIT {

  private static final Path JAR = Path.of("target/servicehooks-consumer.jar");
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private static final String IN_MEMORY_LINE =
      "Dedup is in memory: a restart re-runs the last 5 minutes of events (backfill); set"
          + " DEDUP_FILE=<path> (one process) or REDIS_URL for a store that survives restarts";

  @RegisterExtension final JarProcesses jars = new JarProcesses(JAR);

  private static String event(String id) {
    return Events.activity(id, "post.create", Map.of("user_id", "2244994945"), null, Map.of());
  }

  private static String log(Path out) throws IOException {
    return Files.readString(out, StandardCharsets.UTF_8);
  }

  private static int health(int port) throws Exception {
    return CLIENT
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health")).build(),
            HttpResponse.BodyHandlers.ofString())
        .statusCode();
  }

  /** Runs the jar until {@code until} is in its log, then stops it with SIGTERM. */
  private void run(Path out, Map<String, String> env, int port, String... until) throws Exception {
    Process p = jars.launch().without("SERVICE_CONSUMER_SECRET").env(env).output(out).start();
    try {
      await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> health(port) == 200);
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () -> {
                String log = log(out);
                for (String line : until) {
                  if (!log.contains(line)) {
                    return false;
                  }
                }
                return true;
              });
    } finally {
      p.destroy();
    }
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
  }

  private static Map<String, String> env(PlatformSimulator simulator, int port) {
    Map<String, String> env = new HashMap<>();
    env.put("DELIVERY", "stream");
    env.put("SERVICE_API_BASE_URL", simulator.baseUrl().toString());
    env.put("SERVICE_API_KEY", simulator.apiKey());
    env.put("SERVICE_API_SECRET", simulator.apiSecret());
    env.put("PORT", String.valueOf(port));
    env.put("HOST", "127.0.0.1");
    return env;
  }

  @Test
  void jar_streamMode_dedupFile_restartDoesNotReRunBackfilledEvents(@TempDir Path dir)
      throws Exception {
    try (PlatformSimulator simulator = PlatformSimulator.builder().build().start()) {
      int port = Ports.free();
      Map<String, String> env = env(simulator, port);
      env.put("DEDUP_FILE", dir.resolve("dedup.db").toString());
      simulator.deliverToStream(event("2001")); // in the history: the first start's backfill

      Path first = dir.resolve("first.txt");
      run(first, env, port, "Handled post.create event 2001", "Activity stream connected");
      Path second = dir.resolve("second.txt");
      simulator.deliverToStream(event("2002")); // while nobody listens: only the history has it
      run(second, env, port, "Handled post.create event 2002");

      assertThat(log(first)).contains("(DEDUP_FILE)").doesNotContain("Dedup is in memory");
      assertThat(log(second))
          .contains("backfill_minutes=5")
          .doesNotContain("Handled post.create event 2001"); // the file remembers it ran
    }
  }

  @Test
  void jar_streamMode_inMemory_saysSoAtStart_andARestartReRunsBackfilledEvents(@TempDir Path dir)
      throws Exception {
    try (PlatformSimulator simulator = PlatformSimulator.builder().build().start()) {
      int port = Ports.free();
      Map<String, String> env = env(simulator, port);
      simulator.deliverToStream(event("3001"));

      Path first = dir.resolve("first.txt");
      run(first, env, port, "Handled post.create event 3001");
      Path second = dir.resolve("second.txt");
      run(second, env, port, "Handled post.create event 3001");

      assertThat(log(first)).contains(IN_MEMORY_LINE);
      assertThat(log(first).lines().filter(l -> l.contains("Dedup is in memory"))).hasSize(1);
      assertThat(log(second)).contains(IN_MEMORY_LINE);
    }
  }
}
