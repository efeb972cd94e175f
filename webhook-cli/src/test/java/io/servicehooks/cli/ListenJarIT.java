package io.servicehooks.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testsupport.JarProcesses;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code servicehooks listen} from the packaged {@code servicehooks-cli.jar}, stopped as Ctrl-C
 * stops it: the JVM's shutdown hooks run (SIGTERM runs the same ones as SIGINT), the stream is
 * closed and the process ends within a bound.
 */
final class ListenJarIT {

  @RegisterExtension
  final JarProcesses jars = new JarProcesses(Path.of("target", "servicehooks-cli.jar"));

  private final PlatformSimulator platform =
      PlatformSimulator.builder().streamKeepAlive(Duration.ofMillis(200)).build().start();

  @TempDir Path dir;

  @AfterEach
  void stop() {
    platform.close();
  }

  private String output(Path log) throws Exception {
    return Files.readString(log, StandardCharsets.UTF_8);
  }

  @Test
  void shutdownHooks_whileListening_streamClosedAndProcessEndsWithin10s() throws Exception {
    Path log = dir.resolve("listen.log");
    Process listen =
        jars.launch()
            .env("SERVICE_API_BASE_URL", platform.baseUrl().toString())
            .env("SERVICE_API_KEY", platform.apiKey())
            .env("SERVICE_API_SECRET", platform.apiSecret())
            .without("SERVICE_BEARER_TOKEN")
            .args("listen")
            .output(log)
            .start();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> platform.openStreams().size() == 1 && output(log).contains("Listening on"));
    platform.deliverToStream(
        Events.activity("8801", "post.create", Map.of("user_id", "1"), "t", Map.of("id", "8801")));
    await().atMost(Duration.ofSeconds(10)).until(() -> output(log).contains("post.create  8801"));

    listen.destroy(); // SIGTERM: the shutdown hooks run, as on Ctrl-C

    assertThat(listen.waitFor(10, TimeUnit.SECONDS)).as("ended within 10 s").isTrue();
    assertThat(output(log)).contains("Activity stream closed");
    assertThat(output(log).strip()).endsWith("stopped listening");
    await().atMost(Duration.ofSeconds(10)).until(() -> platform.openStreams().isEmpty());
  }
}
