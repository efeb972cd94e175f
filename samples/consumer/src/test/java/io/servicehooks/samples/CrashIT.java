package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.registration.WebhookClient;
import io.servicehooks.testkit.DeliveryAttempt;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testsupport.JarProcesses;
import io.servicehooks.testsupport.Ports;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills the packaged consumer jar with SIGKILL in the middle of a stream of deliveries, restarts it
 * on the same port, and checks what the platform was told against what the listeners did.
 *
 * <p>The far side is the testkit's {@link PlatformSimulator}, retrying on a compressed schedule.
 * The consumer runs in synchronous mode with a 50 ms listener ({@code LISTENER_DELAY_MS}), so
 * several deliveries are inside listeners when the kill lands.
 *
 * <p>What a listener did is read from each process's {@code Handled <type> event <id>} lines. That
 * reading is sound for two reasons. The line is logged by the last listener of the event ({@link
 * StandaloneConsumer} registers it after every other one, and listeners run in registration order),
 * so it means every listener finished; in synchronous mode that happens before the answer is sent.
 * And the line is on disk before the 200 leaves: logback's console appender flushes after every
 * event ({@code immediateFlush} defaults to true), and the process's stdout is redirected straight
 * to a file, so each line is a completed {@code write(2)} into the page cache, which a SIGKILL of
 * the writer does not lose. A 200 for an event with no line would therefore be a 200 sent before
 * its listeners finished.
 */
final class CrashIT {

  private static final Path JAR = Path.of("target/servicehooks-consumer.jar");
  private static final int EVENTS = 150;
  private static final Duration PACE = Duration.ofMillis(10);
  private static final int HANDLED_BEFORE_KILL = 40;
  private static final Pattern HANDLED =
      Pattern.compile("Handled post\\.create event (crash-\\d{4})$");
  private static final Pattern EVENT_UUID = Pattern.compile("\"event_uuid\":\"([^\"]+)\"");
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @RegisterExtension final JarProcesses jars = new JarProcesses(JAR);

  private Process start(Path output, Map<String, String> env) throws IOException {
    return jars.launch().env(env).output(output).start();
  }

  @Test
  void consumer_killedMidStreamAndRestarted_dispatchesEveryEventAndNever200sUnfinished(
      @TempDir Path dir) throws Exception {
    long began = System.nanoTime();
    int port = Ports.free();
    Path firstOut = dir.resolve("first.txt");
    Path secondOut = dir.resolve("second.txt");
    ScheduledExecutorService feeder = Executors.newSingleThreadScheduledExecutor();
    Process first = null;
    Process second = null;
    try (PlatformSimulator platform =
        PlatformSimulator.builder()
            .localMode(true)
            // 200 ms, 500 ms, 1 s, then every 2 s: about 40 s in all, enough to outlast a JVM
            // restart on a loaded machine (the first start took 8 s on 2 busy cores).
            .retrySchedule(retrySchedule())
            .deliveryTimeout(Duration.ofSeconds(5))
            .build()
            .start()) {
      Map<String, String> env =
          Map.of(
              "SERVICE_CONSUMER_SECRET", platform.consumerSecret(),
              "PORT", String.valueOf(port),
              "HOST", "127.0.0.1",
              "LISTENER_DELAY_MS", "50",
              "WORKER_THREADS", "4");
      first = start(firstOut, env);
      JarProcesses.awaitHealthy("http://127.0.0.1:" + port, Duration.ofSeconds(30));
      WebhookClient.builder()
          .baseUrl(platform.baseUrl())
          .apiCredentials(platform.apiKey(), platform.apiSecret())
          .allowInsecureUrls(true)
          .build()
          .ensureRegistered("http://127.0.0.1:" + port + "/webhooks");

      // A steady stream, faster than four 50 ms listeners drain it, so a backlog builds.
      AtomicInteger sent = new AtomicInteger();
      feeder.scheduleAtFixedRate(
          () -> {
            int i = sent.get();
            if (i < EVENTS) {
              platform.deliver(event(i));
              sent.incrementAndGet();
            }
          },
          0,
          PACE.toNanos(),
          TimeUnit.NANOSECONDS);

      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> handled(firstOut).size() >= HANDLED_BEFORE_KILL);
      // Every 200 known before the kill was answered by the first process.
      List<DeliveryAttempt> beforeKill = platform.attempts();
      Instant killedAt = Instant.now(); // the simulator's clock is the system clock here
      int sentBeforeKill = sent.get();
      first.destroyForcibly(); // SIGKILL on Linux: no shutdown hook, no drain
      assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();

      second = start(secondOut, env);
      await().atMost(Duration.ofSeconds(30)).until(() -> sent.get() >= EVENTS);
      assertThat(platform.awaitIdle(Duration.ofSeconds(60)))
          .as("every delivery answered 200 or out of retries")
          .isTrue();
      List<DeliveryAttempt> attempts = platform.attempts();
      second.destroy(); // SIGTERM: a clean stop, so its output is complete
      assertThat(second.waitFor(30, TimeUnit.SECONDS)).isTrue();

      List<String> byFirst = handled(firstOut);
      List<String> bySecond = handled(secondOut);
      Set<String> dispatched = new TreeSet<>(byFirst);
      dispatched.addAll(bySecond);
      Set<String> delivered = new TreeSet<>();
      IntStream.range(0, EVENTS).forEach(i -> delivered.add(id(i)));

      assertThat(idsOf(attempts, false)).as("events the simulator delivered").isEqualTo(delivered);
      assertThat(idsOf(attempts, true)).as("events answered 200 at last").isEqualTo(delivered);
      assertThat(dispatched).as("events dispatched by either process").containsAll(delivered);
      assertThat(new TreeSet<>(byFirst))
          .as("events the first process answered 200 before the kill")
          .containsAll(idsOf(beforeKill, true));
      assertThat(dispatched)
          .as("events answered 200 by either process")
          .containsAll(idsOf(attempts, true));
      assertThat(byFirst).as("the first process dispatches an event once").doesNotHaveDuplicates();
      assertThat(bySecond)
          .as("the second process dispatches an event once")
          .doesNotHaveDuplicates();
      // The kill landed mid-stream: both processes dispatched, and attempts the first process had
      // taken got no answer.
      assertThat(byFirst).isNotEmpty();
      assertThat(bySecond).isNotEmpty();
      List<DeliveryAttempt> cut =
          attempts.stream()
              .filter(a -> a.failure() != null && a.time().isBefore(killedAt))
              .toList();
      assertThat(cut).as("attempts in flight at the kill").isNotEmpty();

      Set<String> twice = new TreeSet<>(byFirst);
      twice.retainAll(new TreeSet<>(bySecond));
      long retried = attempts.stream().filter(a -> a.attempt() > 1).count();
      System.out.printf(
          "CrashIT: %d events (%d sent before the kill), %d attempts (%d retries, %d cut by the"
              + " kill), dispatched %d by the first process and %d by the second, %d twice %s,"
              + " %.1f s%n",
          EVENTS,
          sentBeforeKill,
          attempts.size(),
          retried,
          cut.size(),
          byFirst.size(),
          bySecond.size(),
          twice.size(),
          twice,
          (System.nanoTime() - began) / 1e9);
    } finally {
      feeder.shutdownNow();
      for (Process p : new Process[] {first, second}) {
        if (p != null && p.isAlive()) {
          p.destroyForcibly();
          p.waitFor(10, TimeUnit.SECONDS);
        }
      }
    }
  }

  private static List<Duration> retrySchedule() {
    List<Duration> schedule =
        new ArrayList<>(
            List.of(Duration.ofMillis(200), Duration.ofMillis(500), Duration.ofSeconds(1)));
    for (int i = 0; i < 19; i++) {
      schedule.add(Duration.ofSeconds(2));
    }
    return schedule;
  }

  private static String id(int i) {
    return String.format("crash-%04d", i);
  }

  private static String event(int i) {
    return Events.activity(
        id(i),
        "post.create",
        Map.of("user_id", "2244994945"),
        null,
        Map.of("id", String.valueOf(1876011300000000000L + i), "text", "crash test " + i));
  }

  /** Event ids of the attempts, only of those answered 2xx when {@code succeededOnly}. */
  private static Set<String> idsOf(List<DeliveryAttempt> attempts, boolean succeededOnly) {
    Set<String> ids = new TreeSet<>();
    for (DeliveryAttempt a : attempts) {
      if (!succeededOnly || a.succeeded()) {
        Matcher m = EVENT_UUID.matcher(a.body());
        assertThat(m.find()).as(a.body()).isTrue();
        ids.add(m.group(1));
      }
    }
    return ids;
  }

  /** The event ids of a process's complete {@code Handled} lines, in order, repeats kept. */
  private static List<String> handled(Path output) throws IOException {
    return JarProcesses.matches(output, HANDLED);
  }
}
