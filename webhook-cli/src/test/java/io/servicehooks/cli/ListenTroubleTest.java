package io.servicehooks.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.PlatformSimulator;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code servicehooks listen} facing ordinary trouble: a token request refused for the moment, rate
 * limits with unusable reset headers, stalled and trickling answers, hostile error objects, and a
 * local consumer that refuses forwards. It backs off and retries; it never blames the credentials
 * for what is not theirs and never ends with a stack trace.
 */
final class ListenTroubleTest {

  private static final String HUGE_RESET = "99999999999999999";

  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  private FakePlatform platform() throws IOException {
    FakePlatform platform = FakePlatform.start();
    open.add(platform);
    return platform;
  }

  private static Map<String, String> env(java.net.URI baseUrl) {
    Map<String, String> env = new HashMap<>();
    env.put("SERVICE_API_BASE_URL", baseUrl.toString());
    env.put("SERVICE_API_KEY", "key");
    env.put("SERVICE_API_SECRET", "secret-of-the-app");
    return env;
  }

  /** A running {@code listen}: its output so far; stopped by interrupting its thread. */
  static final class Listening implements AutoCloseable {
    final StringWriter out = new StringWriter();
    final StringWriter err = new StringWriter();
    final AtomicReference<Thread> runner = new AtomicReference<>();
    final CompletableFuture<Integer> exit;

    Listening(Map<String, String> env, String... args) {
      CommandLine commandLine = ServicehooksCli.commandLine(env);
      commandLine.setOut(new PrintWriter(out, true));
      commandLine.setErr(new PrintWriter(err, true));
      String[] all = new String[args.length + 1];
      all[0] = "listen";
      System.arraycopy(args, 0, all, 1, args.length);
      exit =
          CompletableFuture.supplyAsync(
              () -> {
                runner.set(Thread.currentThread());
                return commandLine.execute(all);
              },
              Executors.newSingleThreadExecutor());
    }

    String err() {
      return err.toString();
    }

    List<String> lines() {
      String text = out.toString();
      return text.isEmpty() ? List.of() : List.of(text.split("\\R"));
    }

    @Override
    public void close() throws Exception {
      await().until(() -> runner.get() != null);
      runner.get().interrupt();
      exit.get(15, TimeUnit.SECONDS);
    }
  }

  private Listening listen(Map<String, String> env, String... args) {
    Listening listening = new Listening(env, args);
    open.add(0, listening);
    return listening;
  }

  @Test
  void tokenAnswer503_backsOffAndConnects_withoutBlamingTheCredentials() throws Exception {
    FakePlatform platform = platform();
    platform.on(
        "/oauth2/token",
        FakePlatform.json(503, "{\"title\":\"Service Unavailable\"}"),
        FakePlatform.token("T1"));
    platform.on("/2/activity/stream", FakePlatform.keepAlives());

    Listening listening = listen(env(platform.baseUrl()));

    await()
        .atMost(Duration.ofSeconds(25))
        .until(() -> listening.err().contains("Listening on") || listening.exit.isDone());
    assertThat(listening.exit).isNotDone();
    assertThat(listening.err())
        .containsPattern("token request answered HTTP 503.*reconnecting in [0-9]+ ms")
        .doesNotContain("refused the API key");
    assertThat(platform.count("/oauth2/token")).isEqualTo(2);
  }

  @Test
  void tokenAnswer429_unusableReset_waitsSixtySecondsWithoutStackTrace() throws Exception {
    FakePlatform platform = platform();
    platform.on(
        "/oauth2/token",
        FakePlatform.json(
            429, "{\"title\":\"Too Many Requests\"}", "x-rate-limit-reset", HUGE_RESET));

    Listening listening = listen(env(platform.baseUrl()));

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> listening.err().contains("reconnecting in") || listening.exit.isDone());
    assertThat(listening.exit).isNotDone();
    // 60 s plus up to a tenth of jitter: the reset header is ignored, the doubling starts at 60 s
    assertThat(listening.err())
        .containsPattern("HTTP 429.*reconnecting in 6[0-6][0-9]{3} ms")
        .doesNotContain("refused the API key", "Exception", "\tat ");
  }

  @Test
  void streamAnswer429_unusableReset_waitsSixtySecondsWithoutStackTrace() throws Exception {
    FakePlatform platform = platform();
    platform.on("/oauth2/token", FakePlatform.token("T1"));
    platform.on(
        "/2/activity/stream",
        FakePlatform.json(
            429, "{\"title\":\"Too Many Requests\"}", "x-rate-limit-reset", HUGE_RESET));

    Listening listening = listen(env(platform.baseUrl()));

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> listening.err().contains("reconnecting in") || listening.exit.isDone());
    assertThat(listening.exit).isNotDone();
    assertThat(listening.err())
        .containsPattern("HTTP 429.*reconnecting in 6[0-6][0-9]{3} ms")
        .doesNotContain("DateTimeException", "\tat ");
  }

  @Test
  void tokenAnswerStalls_fiveOf200Bytes_timesOutThenRetriesAndConnects() throws Exception {
    FakePlatform platform = platform();
    platform.on(
        "/oauth2/token", FakePlatform.stalledBody(200, 200, "{\"tok"), FakePlatform.token("T1"));
    platform.on("/2/activity/stream", FakePlatform.keepAlives());

    Listening listening = listen(env(platform.baseUrl()));

    await()
        .atMost(Duration.ofSeconds(35))
        .until(() -> listening.err().contains("Listening on") || listening.exit.isDone());
    assertThat(listening.exit).isNotDone();
    assertThat(listening.err())
        .containsPattern("POST /oauth2/token: no complete answer.*reconnecting in");
    assertThat(platform.count("/oauth2/token")).isEqualTo(2);
  }

  @Test
  void trickle_anXWithoutNewline_isAStall_reconnects() throws Exception {
    FakePlatform platform = platform();
    platform.on("/oauth2/token", FakePlatform.token("T1"));
    platform.on(
        "/2/activity/stream", FakePlatform.stream(null, "x", 200), FakePlatform.keepAlives());

    Listening listening = listen(env(platform.baseUrl()), "--stall-timeout", "PT2S");

    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> platform.count("/2/activity/stream") >= 2 || listening.exit.isDone());
    assertThat(listening.exit).isNotDone();
    assertThat(listening.err()).contains("no complete line for 2 s");
  }

  @Test
  void keepAlives_areLines_noStall() throws Exception {
    FakePlatform platform = platform();
    platform.on("/oauth2/token", FakePlatform.token("T1"));
    platform.on("/2/activity/stream", FakePlatform.keepAlives());

    Listening listening = listen(env(platform.baseUrl()), "--stall-timeout", "PT2S");

    await().atMost(Duration.ofSeconds(10)).until(() -> listening.err().contains("Listening on"));
    // several stall time-outs pass with keep-alives only: the one connection is kept
    await().pollDelay(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(10)).until(() -> true);
    assertThat(platform.count("/2/activity/stream")).isEqualTo(1);
  }

  @Test
  void errorObjectAndEvent_controlCharactersEscapedAndLongTextCut() throws Exception {
    String detail = "d".repeat(200_000);
    String errorLine =
        "{\"errors\":[{\"title\":\"operational-disconnect\\nFORGED error line\",\"detail\":\""
            + detail
            + "\"}]}\n";
    String eventLine =
        Events.activity(
                "e\r\nFORGED-ID",
                "post.create\nFORGED out line",
                Map.of("user_id", "1"),
                "t",
                Map.of())
            + "\n";
    FakePlatform platform = platform();
    platform.on("/oauth2/token", FakePlatform.token("T1"));
    // The event first: the stream ends a connection at a disconnect error object, and the next
    // connection only keeps alive.
    platform.on(
        "/2/activity/stream",
        FakePlatform.stream(eventLine + errorLine, "\n", 200),
        FakePlatform.keepAlives());

    Listening listening = listen(env(platform.baseUrl()));

    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                listening.err().contains("operational-disconnect") && !listening.lines().isEmpty());
    for (String line : listening.err().split("\\R")) {
      assertThat(line).doesNotStartWith("FORGED").hasSizeLessThan(400);
    }
    assertThat(listening.err()).contains("operational-disconnect\\nFORGED error line");
    for (String line : listening.lines()) {
      assertThat(line).doesNotStartWith("FORGED").contains("post.create\\nFORGED out line");
    }
  }

  // ---- forwarding to a consumer that refuses --------------------------------------------------

  /** A local consumer answering each POST with the next status (the last repeats). */
  private List<Integer> consumer(AtomicReference<String> url, int... statuses) throws IOException {
    List<Integer> answered = new CopyOnWriteArrayList<>();
    AtomicInteger next = new AtomicInteger();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          try (exchange) {
            try (InputStream in = exchange.getRequestBody()) {
              in.readAllBytes();
            }
            int status = statuses[Math.min(next.getAndIncrement(), statuses.length - 1)];
            answered.add(status);
            exchange.sendResponseHeaders(status, -1);
          }
        });
    server.start();
    open.add(() -> server.stop(0));
    url.set("http://127.0.0.1:" + server.getAddress().getPort() + "/webhooks");
    return answered;
  }

  private PlatformSimulator simulator() {
    PlatformSimulator simulator =
        PlatformSimulator.builder().streamKeepAlive(Duration.ofMillis(100)).build().start();
    open.add(simulator);
    return simulator;
  }

  private static Map<String, String> env(PlatformSimulator simulator) {
    Map<String, String> env = new HashMap<>();
    env.put("SERVICE_API_BASE_URL", simulator.baseUrl().toString());
    env.put("SERVICE_API_KEY", simulator.apiKey());
    env.put("SERVICE_API_SECRET", simulator.apiSecret());
    env.put("SERVICE_CONSUMER_SECRET", simulator.consumerSecret());
    return env;
  }

  @Test
  void forward_refusedTwiceThenTaken_retriedAndReported() throws Exception {
    PlatformSimulator simulator = simulator();
    AtomicReference<String> url = new AtomicReference<>();
    List<Integer> answered = consumer(url, 503, 500, 200);
    Listening listening = listen(env(simulator), "--forward-to", url.get());
    await().atMost(Duration.ofSeconds(10)).until(() -> simulator.openStreams().size() == 1);

    simulator.deliverToStream(
        Events.activity("901", "post.create", Map.of("user_id", "1"), "t", Map.of("id", "901")));

    await().atMost(Duration.ofSeconds(20)).until(() -> listening.lines().size() == 1);
    assertThat(answered).containsExactly(503, 500, 200);
    assertThat(listening.lines().get(0)).contains("901", "-> HTTP 200", "3 attempts");
  }

  @Test
  void forward_alwaysRefused_boundedRetriesThenReportedAsNotDelivered() throws Exception {
    PlatformSimulator simulator = simulator();
    AtomicReference<String> url = new AtomicReference<>();
    List<Integer> answered = consumer(url, 503);
    Listening listening = listen(env(simulator), "--forward-to", url.get());
    await().atMost(Duration.ofSeconds(10)).until(() -> simulator.openStreams().size() == 1);

    simulator.deliverToStream(
        Events.activity("902", "post.create", Map.of("user_id", "1"), "t", Map.of("id", "902")));
    simulator.deliverToStream(
        Events.activity("903", "post.create", Map.of("user_id", "1"), "t", Map.of("id", "903")));

    await().atMost(Duration.ofSeconds(30)).until(() -> listening.lines().size() == 2);
    assertThat(answered).hasSize(6);
    assertThat(listening.lines().get(0)).contains("902", "-> HTTP 503", "3 attempts");
    assertThat(listening.err()).contains("event 902 was not delivered to " + url.get());
  }
}
