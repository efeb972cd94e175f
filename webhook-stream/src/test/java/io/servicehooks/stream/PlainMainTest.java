package io.servicehooks.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.PlatformSimulator;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A stream started from a plain {@code main} that returns at once, in a JVM of its own: the stream
 * keeps that JVM running and handling events until it is closed (here by SIGTERM through a shutdown
 * hook), and lets it exit by itself once the platform refused the credentials.
 */
final class PlainMainTest {

  /** The bot under test: starts the stream, adds a shutdown hook, and returns from main. */
  public static final class Bot {
    public static void main(String[] args) {
      WebhookConsumer consumer =
          WebhookConsumer.builder()
              .consumerSecrets(args[3])
              .onAny(
                  event -> {
                    System.out.println("Handled " + event.type() + " event " + event.id());
                    System.out.flush();
                  })
              .build();
      WebhookClient client =
          WebhookClient.builder()
              .baseUrl(URI.create(args[0]))
              .apiCredentials(args[1], args[2])
              .build();
      ActivityStream stream = ActivityStream.builder(consumer, client).build().start();
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    stream.close();
                    consumer.close();
                    System.out.println("stopped: " + stream.state());
                    System.out.flush();
                  }));
      System.out.println("main returned");
      System.out.flush();
    }
  }

  private PlatformSimulator simulator;
  private Process process;
  private final List<String> output = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() throws Exception {
    if (process != null && process.isAlive()) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    if (simulator != null) {
      simulator.close();
    }
  }

  private Process bot(String apiSecret) throws Exception {
    Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
    process =
        new ProcessBuilder(
                java.toString(),
                "-cp",
                System.getProperty("java.class.path"),
                Bot.class.getName(),
                simulator.baseUrl().toString(),
                simulator.apiKey(),
                apiSecret,
                simulator.consumerSecret())
            .redirectErrorStream(true)
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .start();
    Thread pump =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                  output.add(line);
                }
              } catch (Exception ignored) {
                // the process ended
              }
            });
    pump.setDaemon(true);
    pump.start();
    return process;
  }

  @Test
  void mainReturns_theStreamKeepsTheJvmHandlingEvents_untilSigterm() throws Exception {
    simulator = PlatformSimulator.builder().build().start();
    Process bot = bot(simulator.apiSecret());

    await().atMost(Duration.ofSeconds(60)).until(() -> simulator.openStreams().size() == 1);
    assertThat(output).contains("main returned");
    simulator.deliverToStream(
        Events.activity("71", "post.create", Map.of("user_id", "2244994945"), null, Map.of()));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> output.contains("Handled post.create event 71"));
    assertThat(bot.isAlive()).isTrue();

    // SIGTERM, through the handle: Process.destroy() would also close the pipe being read.
    bot.toHandle().destroy();
    assertThat(bot.waitFor(30, TimeUnit.SECONDS)).isTrue();
    // The pump reads the last lines after the exit.
    await().atMost(Duration.ofSeconds(10)).until(() -> output.contains("stopped: CLOSED"));
    assertThat(output).anyMatch(line -> line.contains("Activity stream closed"));
  }

  @Test
  void refusedCredentials_theJvmExitsByItself() throws Exception {
    simulator = PlatformSimulator.builder().build().start();
    Process bot = bot("not-the-secret-of-the-app");

    assertThat(bot.waitFor(60, TimeUnit.SECONDS)).isTrue();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                output.stream()
                    .anyMatch(line -> line.contains("Activity stream refused, not retrying")));
  }
}
