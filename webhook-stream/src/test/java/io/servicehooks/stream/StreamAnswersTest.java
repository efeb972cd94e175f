package io.servicehooks.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.testsupport.RawHttpServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The stream against a platform that answers badly on purpose (a raw socket server): answers that
 * stop part-way, a trickle that never ends a line, error objects that try to forge log lines. The
 * stream's waits run on a manual clock; the client's request time-out (1 s) is real time, so every
 * wait for it is bounded generously.
 */
final class StreamAnswersTest {

  private static final Duration BOUND = Duration.ofSeconds(20);
  private static final String OK_HEAD =
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n";

  private final List<AutoCloseable> open = new ArrayList<>();
  private final ManualClock clock = new ManualClock(Instant.parse("2026-03-20T10:00:00Z"));
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final List<String> handled = new java.util.concurrent.CopyOnWriteArrayList<>();

  @BeforeEach
  void captureLogs() {
    logs.start();
    ((Logger) LoggerFactory.getLogger(ActivityStream.class)).addAppender(logs);
  }

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
    ((Logger) LoggerFactory.getLogger(ActivityStream.class)).detachAppender(logs);
  }

  private RawHttpServer platform(RawHttpServer.Script script) {
    RawHttpServer server = RawHttpServer.start(script);
    open.add(server);
    return server;
  }

  private ActivityStream started(WebhookClient.Builder client) {
    return started(client, WebhookConsumer.builder());
  }

  private ActivityStream started(WebhookClient.Builder client, WebhookConsumer.Builder settings) {
    WebhookConsumer consumer =
        settings
            .consumerSecrets("consumer-secret-for-the-stream-tests")
            .meterRegistry(registry)
            .onAny(event -> handled.add(event.id()))
            .build();
    ActivityStream stream =
        ActivityStream.builder(consumer, client.requestTimeout(Duration.ofSeconds(1)).build())
            .clock(clock)
            .random(() -> 0)
            .meterRegistry(registry)
            .build();
    open.add(0, consumer);
    open.add(0, stream);
    return stream.start();
  }

  private static WebhookClient.Builder withToken(RawHttpServer server) {
    return WebhookClient.builder().baseUrl(server.baseUrl()).bearerToken("AAAA");
  }

  private List<String> lines(Level level) {
    return logs.list.stream()
        .filter(e -> e.getLevel() == level)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  private double reconnects(String cause) {
    return registry.counter("webhook.stream.reconnects", "cause", cause).count();
  }

  @Test
  void connect_503WhoseBodyNeverComes_loggedOnceThenTheHttpBackOff() {
    RawHttpServer server =
        platform(
            (request, out) ->
                out.write(
                        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                            + "Content-Length: 1000\r\n\r\n")
                    .hold());
    ActivityStream stream = started(withToken(server));

    await().atMost(BOUND).until(() -> clock.reconnectWaits().size() == 1);
    assertThat(clock.reconnectWaits()).containsExactly(Duration.ofSeconds(5));
    assertThat(reconnects("http")).isEqualTo(1.0);
    assertThat(lines(Level.WARN)).singleElement().asString().contains("HTTP 503");
    assertThat(stream.state()).isEqualTo(ActivityStream.State.CONNECTING);

    clock.advance(Duration.ofSeconds(5));
    await().atMost(BOUND).until(() -> server.requests().size() == 2);
    await().atMost(BOUND).until(() -> clock.reconnectWaits().size() == 2);
    assertThat(lines(Level.WARN)).hasSize(1); // one line per outage, not per attempt
  }

  @Test
  void connect_401WhoseBodyNeverComes_refusedWithOneError() {
    RawHttpServer server =
        platform(
            (request, out) ->
                out.write(
                        "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n"
                            + "Content-Length: 1000\r\n\r\n{\"title\":")
                    .hold());
    ActivityStream stream = started(withToken(server));

    await().atMost(BOUND).until(() -> stream.state() == ActivityStream.State.REFUSED);
    assertThat(lines(Level.ERROR)).singleElement().asString().contains("HTTP 401");
    assertThat(stream.healthy()).isFalse();
  }

  @Test
  void connect_tokenAnswerStopsAfter5Of200Bytes_failedConnectThenRetried() {
    RawHttpServer server =
        platform(
            (request, out) ->
                out.write(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                            + "Content-Length: 200\r\n\r\n{\"tok")
                    .hold());
    started(WebhookClient.builder().baseUrl(server.baseUrl()).apiCredentials("key", "secret"));

    await().atMost(BOUND).until(() -> clock.reconnectWaits().size() == 1);
    assertThat(lines(Level.WARN))
        .singleElement()
        .asString()
        .contains("HttpTimeoutException")
        .contains("POST /oauth2/token");
    clock.advance(clock.reconnectWaits().get(0));
    await().atMost(BOUND).until(() -> server.requests().size() == 2);
  }

  @Test
  void trickleThatNeverEndsALine_isAStall() throws Exception {
    RawHttpServer server = platform((request, out) -> out.write(OK_HEAD).hold());
    ActivityStream stream = started(withToken(server));
    await().atMost(BOUND).until(() -> stream.state() == ActivityStream.State.CONNECTED);

    // An "x" every 5 s, never a newline.
    for (int i = 0; i < 4; i++) {
      server.connections().get(0).write("x");
      await().atMost(BOUND).until(() -> stream.lastByteNanos() == clock.nanoTime());
      clock.advance(Duration.ofSeconds(5));
    }

    await().atMost(BOUND).until(() -> reconnects("stalled") == 1.0);
    await().atMost(BOUND).until(() -> server.requests().size() == 2);
  }

  @Test
  void keepAliveNewlines_areLines_noStall() throws Exception {
    RawHttpServer server = platform((request, out) -> out.write(OK_HEAD).hold());
    ActivityStream stream = started(withToken(server));
    await().atMost(BOUND).until(() -> stream.state() == ActivityStream.State.CONNECTED);

    for (int i = 0; i < 6; i++) {
      server.connections().get(0).write("\r\n");
      await().atMost(BOUND).until(() -> stream.lastByteNanos() == clock.nanoTime());
      clock.advance(Duration.ofSeconds(10));
    }

    assertThat(reconnects("stalled")).isZero();
    assertThat(stream.state()).isEqualTo(ActivityStream.State.CONNECTED);
  }

  @Test
  void errorObjectWithNewlineAndHugeDetail_oneEscapedLineOf300Characters() throws Exception {
    RawHttpServer server = platform((request, out) -> out.write(OK_HEAD).hold());
    ActivityStream stream = started(withToken(server));
    await().atMost(BOUND).until(() -> stream.state() == ActivityStream.State.CONNECTED);

    String detail = "d".repeat(200 * 1024);
    server
        .connections()
        .get(0)
        .write(
            "{\"title\":\"Notice\\nERROR forged line\",\"detail\":\""
                + detail
                + "\"}\n"
                + "{\"title\":\"Short\",\"detail\":\"a\\u2028b\"}\n");

    await()
        .atMost(BOUND)
        .until(() -> lines(Level.WARN).stream().anyMatch(l -> l.contains("Short")));
    List<String> platformLines =
        lines(Level.WARN).stream()
            .filter(l -> l.startsWith("Activity stream error from the platform"))
            .toList();
    assertThat(platformLines).hasSize(2);
    assertThat(platformLines.get(0))
        .contains("Notice\\nERROR forged line")
        .doesNotContain("\n")
        .hasSizeLessThan(700);
    assertThat(platformLines.get(1)).contains("a\\u2028b");
  }

  @Test
  void refusalBodyWithNewline_escapedInTheErrorLine() {
    String body =
        "{\"title\":\"Forbidden\\nERROR forged\",\"detail\":\"" + "z".repeat(1000) + "\"}";
    RawHttpServer server =
        platform(
            (request, out) ->
                out.write(
                    "HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: "
                        + body.length()
                        + "\r\n\r\n"
                        + body));
    ActivityStream stream = started(withToken(server));

    await().atMost(BOUND).until(() -> stream.state() == ActivityStream.State.REFUSED);
    assertThat(lines(Level.ERROR))
        .singleElement()
        .asString()
        .contains("Forbidden\\nERROR forged")
        .doesNotContain("\n")
        .doesNotContain("z".repeat(301));
  }

  @Test
  void backfillMinutes0_refusedNamingWhatItWouldLose() {
    WebhookConsumer consumer =
        WebhookConsumer.builder().consumerSecrets("consumer-secret-for-the-stream-tests").build();
    open.add(consumer);
    WebhookClient client =
        WebhookClient.builder()
            .baseUrl(java.net.URI.create("https://api.example.com"))
            .bearerToken("AAAA")
            .build();

    assertThatThrownBy(() -> ActivityStream.builder(consumer, client).backfillMinutes(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("backfillMinutes must be between 1 and 5, was 0")
        .hasMessageContaining("would lose every event the consumer could not take");
  }

  @Test
  void lineLongerThanTheBodyLimit_droppedWholeAndCounted_nextLineHandledOnTheSameConnection()
      throws Exception {
    RawHttpServer server = platform((request, out) -> out.write(OK_HEAD).hold());
    ActivityStream stream =
        started(withToken(server), WebhookConsumer.builder().maxBodyBytes(2048));
    await().atMost(BOUND).until(() -> stream.state() == ActivityStream.State.CONNECTED);

    String big =
        io.servicehooks.testkit.Events.activity(
            "big",
            "post.create",
            java.util.Map.of("user_id", "1"),
            null,
            java.util.Map.of("text", "x".repeat(20_000)));
    String small =
        io.servicehooks.testkit.Events.activity(
            "small", "post.create", java.util.Map.of("user_id", "1"), null, java.util.Map.of());
    // The long line arrives in pieces, as a slow platform sends it.
    RawHttpServer.Connection connection = server.connections().get(0);
    connection.write(big.substring(0, 10_000));
    connection.write(big.substring(10_000) + "\n" + small + "\n");

    await().atMost(BOUND).until(() -> handled.contains("small"));
    assertThat(handled).containsExactly("small");
    assertThat(registry.get("webhook.deliveries").tag("outcome", "too_large").counter().count())
        .isEqualTo(1.0);
    assertThat(server.requests()).hasSize(1); // the connection was kept
    assertThat(stream.state()).isEqualTo(ActivityStream.State.CONNECTED);
  }
}
