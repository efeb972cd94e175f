package io.servicehooks.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookEvent;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.OpenStream;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testkit.StreamFault;
import io.servicehooks.undertow.WebhookServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code servicehooks listen} against the simulator's stream, forwarding into a WebhookServer. */
final class ListenCommandTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final PlatformSimulator platform =
      PlatformSimulator.builder().streamKeepAlive(Duration.ofMillis(100)).build().start();
  private final List<WebhookEvent> handled = new CopyOnWriteArrayList<>();
  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
    platform.close();
  }

  private Map<String, String> env() {
    Map<String, String> env = new HashMap<>();
    env.put("SERVICE_API_BASE_URL", platform.baseUrl().toString());
    env.put("SERVICE_API_KEY", platform.apiKey());
    env.put("SERVICE_API_SECRET", platform.apiSecret());
    env.put("SERVICE_CONSUMER_SECRET", platform.consumerSecret());
    return env;
  }

  /** A real consumer behind a real Undertow, verifying signatures with the platform's secret. */
  private String consumerUrl() {
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(platform.consumerSecret())
            .onAny(handled::add)
            .build();
    WebhookServer server =
        WebhookServer.builder(consumer).host("127.0.0.1").port(0).build().start();
    open.add(server);
    return "http://127.0.0.1:" + server.port() + "/webhooks";
  }

  /** A running {@code listen}: its output so far, stopped by interrupting its thread. */
  private final class Listening implements AutoCloseable {
    final StringWriter out = new StringWriter();
    final StringWriter err = new StringWriter();
    final AtomicReference<Thread> runner = new AtomicReference<>();
    final CompletableFuture<Integer> exit;

    Listening(Map<String, String> env, String... args) {
      CommandLine commandLine = ServicehooksCli.commandLine(env);
      commandLine.setOut(new PrintWriter(out, true));
      commandLine.setErr(new PrintWriter(err, true));
      exit =
          CompletableFuture.supplyAsync(
              () -> {
                runner.set(Thread.currentThread());
                return commandLine.execute(args);
              });
    }

    List<String> lines() {
      String text = out.toString();
      return text.isEmpty() ? List.of() : List.of(text.split("\\R"));
    }

    @Override
    public void close() throws Exception {
      await().until(() -> runner.get() != null);
      runner.get().interrupt();
      try {
        assertThat(exit.get(10, TimeUnit.SECONDS)).isZero();
      } catch (java.util.concurrent.TimeoutException e) {
        StringBuilder trace = new StringBuilder("listen did not stop:\n");
        for (StackTraceElement frame : runner.get().getStackTrace()) {
          trace.append("  at ").append(frame).append('\n');
        }
        throw new AssertionError(trace + "--- err\n" + err, e);
      }
    }
  }

  private Listening listen(Map<String, String> env, String... args) {
    String[] all = new String[args.length + 1];
    all[0] = "listen";
    System.arraycopy(args, 0, all, 1, args.length);
    Listening listening = new Listening(env, all);
    open.add(0, listening);
    await().atMost(Duration.ofSeconds(10)).until(() -> platform.openStreams().size() == 1);
    return listening;
  }

  private static String event(String id, String type) {
    return Events.activity(id, type, Map.of("user_id", "2244994945"), "t", Map.of("id", id));
  }

  @Test
  void forwardTo_realWebhookServer_signatureVerifiedAndEachEventHandled() {
    String url = consumerUrl();
    Listening listening = listen(env(), "--forward-to", url);

    platform.deliverToStream(event("101", "post.create"));
    platform.deliverToStream(event("102", "dm.received"));

    await().until(() -> handled.size() == 2);
    assertThat(handled).extracting(WebhookEvent::id).containsExactly("101", "102");
    assertThat(handled)
        .extracting(WebhookEvent::type)
        .containsExactly("post.create", "dm.received");
    await().until(() -> listening.lines().size() == 2);
    assertThat(listening.lines().get(0))
        .contains("post.create", "101", "user_id=2244994945", "-> HTTP 200 in ")
        .endsWith(" ms");
    assertThat(listening.err.toString()).contains("forwarding to " + url);
  }

  @Test
  void forwardTo_wrongConsumerSecret_consumerRefuses401AndHandlesNothing() {
    String url = consumerUrl();
    Map<String, String> env = env();
    env.put("SERVICE_CONSUMER_SECRET", "not-the-platform-secret");
    Listening listening = listen(env, "--forward-to", url);

    platform.deliverToStream(event("201", "post.create"));

    await().until(() -> listening.lines().size() == 1);
    assertThat(listening.lines().get(0)).contains("201", "-> HTTP 401");
    assertThat(handled).isEmpty();
  }

  @Test
  void events_globs_onlyMatchingTypesPrintedAndForwarded() {
    String url = consumerUrl();
    Listening listening = listen(env(), "--events", "post.*,dm.*", "--forward-to", url);

    platform.deliverToStream(event("1", "like.create"));
    platform.deliverToStream(event("2", "post.mention.create"));
    platform.deliverToStream(event("3", "follow.follow"));
    platform.deliverToStream(event("4", "dm.sent"));

    await().until(() -> handled.size() == 2);
    assertThat(handled).extracting(WebhookEvent::id).containsExactly("2", "4");
    await().until(() -> listening.lines().size() == 2);
    assertThat(String.join("\n", listening.lines())).doesNotContain("like.create", "follow");
  }

  @Test
  void events_overlappingPatterns_eachEventPrintedAndForwardedOnce() {
    String url = consumerUrl();
    Listening listening = listen(env(), "--events", "post.*,post.create,*", "--forward-to", url);

    platform.deliverToStream(event("11", "post.create"));
    platform.deliverToStream(event("12", "dm.sent"));

    await().until(() -> listening.lines().size() == 2);
    await().until(() -> handled.size() == 2);
    assertThat(listening.lines().get(0)).contains("11");
    assertThat(listening.lines().get(1)).contains("12");
    assertThat(handled).extracting(WebhookEvent::id).containsExactly("11", "12");
  }

  @Test
  void events_patternTheRouterCannotMatch_exit2NamingTheFlag() {
    Cli.Run run = Cli.run(env(), "listen", "--events", "*.create");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--events", "*.create");
    assertThat(platform.openStreams()).isEmpty();
  }

  @Test
  void json_oneObjectPerEventWithForwardOutcome() throws Exception {
    String url = consumerUrl();
    Listening listening = listen(env(), "--json", "--forward-to", url);

    platform.deliverToStream(event("301", "post.create"));

    await().until(() -> listening.lines().size() == 1);
    JsonNode line = JSON.readTree(listening.lines().get(0));
    assertThat(line.get("data").get("event_uuid").asText()).isEqualTo("301");
    assertThat(line.get("forward").get("status").asInt()).isEqualTo(200);
    assertThat(line.get("forward").get("millis").asLong()).isNotNegative();
    assertThat(line.get("received_at").asText()).isNotBlank();
  }

  @Test
  void drop_reconnectsAtOnceWithBackfillAndKeepsPrinting() {
    Listening listening = listen(env());
    platform.deliverToStream(event("401", "post.create"));
    await().until(() -> listening.lines().size() == 1);

    platform.dropStreams();

    await().atMost(Duration.ofSeconds(10)).until(() -> platform.openStreams().size() == 1);
    OpenStream again = platform.openStreams().get(0);
    assertThat(again.backfillMinutes()).isEqualTo(1);
    // The backfill repeats the event before the drop; a new one follows.
    platform.deliverToStream(event("402", "post.create"));
    await().until(() -> listening.lines().size() == 3);
    assertThat(listening.lines().get(1)).contains("401");
    assertThat(listening.lines().get(2)).contains("402");
    assertThat(listening.err.toString()).contains("the connection dropped", "reconnect");
  }

  @Test
  void disconnectMessage_loggedWithTitleThenReconnects() {
    Listening listening = listen(env());

    platform.disconnectStreams();

    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> listening.err.toString().contains("from the platform: operational-disconnect"));
    await().atMost(Duration.ofSeconds(10)).until(() -> platform.openStreams().size() == 1);
  }

  @Test
  void stall_noByteForTheTimeout_reconnectsWithBackfill() {
    Listening listening = listen(env(), "--stall-timeout", "PT1S");
    platform.deliverToStream(event("601", "post.create"));
    await().until(() -> listening.lines().size() == 1);

    platform.stallStreams();

    // The stalled connection stays open on the platform; listen gives up on it and opens another.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> platform.openStreams().stream().filter(s -> !s.stalled()).count() == 1);
    assertThat(listening.err.toString()).contains("no complete line for 1 s");
    OpenStream fresh =
        platform.openStreams().stream().filter(s -> !s.stalled()).findFirst().orElseThrow();
    assertThat(fresh.backfillMinutes()).isEqualTo(1);
    platform.deliverToStream(event("602", "post.create"));
    await().until(() -> listening.lines().stream().anyMatch(l -> l.contains("602")));
  }

  @Test
  void reconnect_meets503_waitsAboutFiveSecondsThenConnects() {
    Listening listening = listen(env());
    platform.enqueueStreamFault(StreamFault.serverError(503));

    platform.dropStreams();

    await()
        .atMost(Duration.ofSeconds(15))
        .until(
            () -> platform.openStreams().size() == 1 && listening.err.toString().contains("503"));
    assertThat(listening.err.toString())
        .containsPattern("still down: HTTP 503.*; next attempt in 5[0-9]{3} ms");
    platform.deliverToStream(event("701", "post.create"));
    await().until(() -> listening.lines().stream().anyMatch(l -> l.contains("701")));
  }

  @Test
  void forbidden_oneLineAndExit1() {
    platform.enqueueStreamFault(StreamFault.forbidden());

    Cli.Run run = Cli.run(env(), "listen");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err().strip().split("\\R")).hasSize(1);
    assertThat(run.err())
        .startsWith(
            "error: Activity stream refused, not retrying: GET /2/activity/stream answered HTTP 403");
  }

  @Test
  void refusedToken_oneLineAndExit1() throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put("SERVICE_API_BASE_URL", platform.baseUrl().toString());
    env.put("SERVICE_BEARER_TOKEN", "AAAAnotAToken");

    Cli.Run run = Cli.run(env, "listen");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err().strip().split("\\R")).hasSize(1);
    assertThat(run.err())
        .startsWith(
            "error: Activity stream refused, not retrying: GET /2/activity/stream answered HTTP 401");
    assertThat(run.err()).doesNotContain("AAAAnotAToken");
  }

  @Test
  void revokedWhileListening_newTokenFetchedOnceAndListeningGoesOn() {
    Listening listening = listen(env());

    platform.revokeToken();

    // The stream ends; the reconnect meets 401, fetches a new token with the key, and connects.
    await().atMost(Duration.ofSeconds(10)).until(() -> platform.openStreams().size() == 1);
    platform.deliverToStream(event("501", "post.create"));
    await().until(() -> listening.lines().size() == 1);
  }

  @Test
  void forwardTo_withoutConsumerSecret_exit2() {
    Map<String, String> env = env();
    env.remove("SERVICE_CONSUMER_SECRET");

    Cli.Run run = Cli.run(env, "listen", "--forward-to", "http://127.0.0.1:1/webhooks");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("SERVICE_CONSUMER_SECRET");
  }

  @Test
  void noCredentials_exit2() {
    Cli.Run run = Cli.run(Map.of("SERVICE_API_BASE_URL", platform.baseUrl().toString()), "listen");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("missing credentials");
  }
}
