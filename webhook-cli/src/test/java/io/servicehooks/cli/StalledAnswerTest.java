package io.servicehooks.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * A command facing an answer that stops halfway (headers sent, 5 of 200 body bytes, then silence)
 * ends with one line, exit 1, within 35 s in all. The three run side by side: each waits on its own
 * fake platform's silence.
 */
@Execution(ExecutionMode.CONCURRENT)
final class StalledAnswerTest {

  private static Map<String, String> env(String baseUrl) {
    Map<String, String> env = new HashMap<>();
    env.put("SERVICE_API_BASE_URL", baseUrl);
    env.put("SERVICE_API_KEY", "key");
    env.put("SERVICE_API_SECRET", "secret-of-the-app");
    env.put("SERVICE_CONSUMER_SECRET", "consumer-secret-of-the-app-0123456789");
    return env;
  }

  @Test
  void stalledTokenAnswer_webhooksList_endsWithOneLineWithin35Seconds() throws Exception {
    try (FakePlatform stalling = FakePlatform.start()) {
      stalling.on("/oauth2/token", FakePlatform.stalledBody(200, 200, "{\"tok"));
      Map<String, String> toStalling = env(stalling.baseUrl().toString());

      CompletableFuture<Cli.Run> run =
          CompletableFuture.supplyAsync(() -> Cli.run(toStalling, "webhooks", "list"));

      Cli.Run ended = run.get(35, TimeUnit.SECONDS);
      assertThat(ended.exitCode()).as(ended.toString()).isEqualTo(1);
      assertThat(ended.err().strip().split("\\R")).as(ended.toString()).hasSize(1);
    }
  }

  @Test
  void stalledDeleteAnswer_repeatedOnce_endsWithOneLineWithin35Seconds() throws Exception {
    try (FakePlatform stalling = FakePlatform.start()) {
      stalling.on("/oauth2/token", FakePlatform.token("t"));
      stalling.on("/2/webhooks/1800000000000000001", FakePlatform.stalledBody(200, 200, "{\"da"));
      Map<String, String> toStalling = env(stalling.baseUrl().toString());

      CompletableFuture<Cli.Run> run =
          CompletableFuture.supplyAsync(
              () -> Cli.run(toStalling, "webhooks", "delete", "1800000000000000001"));

      Cli.Run ended = run.get(35, TimeUnit.SECONDS);
      assertThat(ended.exitCode()).as(ended.toString()).isEqualTo(1);
      assertThat(ended.err().strip().split("\\R")).as(ended.toString()).hasSize(1);
    }
  }

  @Test
  void stalledConsumerAnswer_send_endsWithOneLineWithin35Seconds() throws Exception {
    try (FakePlatform consumer = FakePlatform.start()) {
      consumer.on("/webhooks", FakePlatform.stalledBody(200, 200, "{\"ok"));

      CompletableFuture<Cli.Run> run =
          CompletableFuture.supplyAsync(
              () ->
                  Cli.run(
                      env("http://127.0.0.1:1"),
                      "send",
                      consumer.baseUrl() + "/webhooks",
                      "--type",
                      "post.create",
                      "--allow-insecure-url"));

      Cli.Run ended = run.get(35, TimeUnit.SECONDS);
      assertThat(ended.exitCode()).as(ended.toString()).isEqualTo(1);
      assertThat(ended.err().strip().split("\\R")).as(ended.toString()).hasSize(1);
    }
  }
}
