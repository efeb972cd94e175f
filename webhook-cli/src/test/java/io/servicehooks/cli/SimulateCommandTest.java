package io.servicehooks.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code servicehooks simulate}: prints paste-able exports, serves until stopped. */
final class SimulateCommandTest {

  @Test
  void simulate_running_printsExportsThatOtherCommandsCanUse() throws Exception {
    StringWriter out = new StringWriter();
    CommandLine commandLine = ServicehooksCli.commandLine(Map.of());
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(new StringWriter(), true));
    AtomicReference<Thread> runner = new AtomicReference<>();
    CompletableFuture<Integer> exit =
        CompletableFuture.supplyAsync(
            () -> {
              runner.set(Thread.currentThread());
              return commandLine.execute("simulate", "--port", "0");
            });
    try {
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> out.toString().contains("SERVICE_CONSUMER_SECRET"));
      Map<String, String> exported = new HashMap<>();
      for (String line : out.toString().split("\\R")) {
        if (line.startsWith("export ")) {
          String[] pair = line.substring(7).split("=", 2);
          exported.put(pair[0], pair[1]);
        }
      }
      assertThat(exported)
          .containsKeys(
              "SERVICE_API_BASE_URL",
              "SERVICE_API_KEY",
              "SERVICE_API_SECRET",
              "SERVICE_CONSUMER_SECRET");
      assertThat(exported.get("SERVICE_API_BASE_URL")).matches("http://127\\.0\\.0\\.1:[0-9]+");

      Cli.Run list = Cli.run(exported, "webhooks", "list");

      assertThat(list.exitCode()).as(list.toString()).isZero();
      assertThat(list.out()).contains("No webhooks registered.");
    } finally {
      await().atMost(Duration.ofSeconds(5)).until(() -> runner.get() != null);
      runner.get().interrupt();
    }
    assertThat(exit.get(10, TimeUnit.SECONDS)).isZero();
  }

  @Test
  void simulate_badRetries_exits2() {
    Cli.Run run = Cli.run(Map.of(), "simulate", "--retries", "3 seconds");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("3s,27s,242s");
  }

  @Test
  void retriesConverter_unitsAndNone_parsed() {
    SimulateCommand.RetriesConverter converter = new SimulateCommand.RetriesConverter();

    assertThat(converter.convert("3s,27s,242s"))
        .containsExactly(Duration.ofSeconds(3), Duration.ofSeconds(27), Duration.ofSeconds(242));
    assertThat(converter.convert("100ms, 2m,1h"))
        .containsExactly(Duration.ofMillis(100), Duration.ofMinutes(2), Duration.ofHours(1));
    assertThat(converter.convert("none")).isEmpty();
    assertThat(SimulateCommand.RetriesConverter.format(converter.convert("250ms,1s")))
        .isEqualTo("250ms,1s");
  }

  @Test
  void simulate_compressedRetries_triggeredEventRetriedThenDropped() throws Exception {
    StringWriter out = new StringWriter();
    CommandLine commandLine = ServicehooksCli.commandLine(Map.of());
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(new StringWriter(), true));
    AtomicReference<Thread> runner = new AtomicReference<>();
    CompletableFuture<Integer> exit =
        CompletableFuture.supplyAsync(
            () -> {
              runner.set(Thread.currentThread());
              return commandLine.execute("simulate", "--retries", "100ms,200ms");
            });
    try (io.servicehooks.testkit.ConsumerStub consumer =
        io.servicehooks.testkit.ConsumerStub.start("DemoApiSecret4servicehooksNotForProduction")) {
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> out.toString().contains("SERVICE_CONSUMER_SECRET"));
      assertThat(out.toString()).contains("/_sim/", "retries after 100ms,200ms");
      Map<String, String> exported = new HashMap<>();
      for (String line : out.toString().split("\\R")) {
        if (line.startsWith("export ")) {
          String[] pair = line.substring(7).split("=", 2);
          exported.put(pair[0], pair[1]);
        }
      }
      assertThat(
              Cli.run(exported, "webhooks", "create", consumer.url("/w"), "--allow-insecure-url")
                  .exitCode())
          .isZero();
      consumer.deliveryStatus(500);

      Cli.Run trigger = Cli.run(exported, "trigger", "post.create");

      assertThat(trigger.exitCode()).as(trigger.toString()).isZero();
      await().atMost(Duration.ofSeconds(10)).until(() -> consumer.deliveries().size() == 3);
      Cli.Run state =
          Cli.run(exported, "webhooks", "list"); // the simulator still answers after the drop
      assertThat(state.exitCode()).isZero();
    } finally {
      await().atMost(Duration.ofSeconds(5)).until(() -> runner.get() != null);
      runner.get().interrupt();
    }
    assertThat(exit.get(10, TimeUnit.SECONDS)).isZero();
  }

  @Test
  void simulate_badPort_exits2() {
    Cli.Run run = Cli.run(Map.of(), "simulate", "--port", "70000");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--port");
  }
}
