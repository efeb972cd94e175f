package io.servicehooks.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testkit.StreamFault;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The stream against the platform simulator over real HTTP: every fault of the simulator, with all
 * waits on a manual clock shared with the simulator's, so the delays asked are checked exactly.
 */
final class ActivityStreamTest {

  static final Instant T0 = Instant.parse("2026-03-20T10:00:00Z");

  private final List<AutoCloseable> open = new ArrayList<>();
  private final List<String> handled = new CopyOnWriteArrayList<>();
  private final ManualClock clock = new ManualClock(T0);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private PlatformSimulator simulator;

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
    ((Logger) LoggerFactory.getLogger(ActivityStream.class)).detachAppender(logs);
  }

  private PlatformSimulator simulator(Consumer<PlatformSimulator.Builder> settings) {
    PlatformSimulator.Builder builder =
        PlatformSimulator.builder()
            .clock(Clock.fixed(T0, ZoneOffset.UTC))
            .streamKeepAliveOnSimulatorClock(true);
    settings.accept(builder);
    simulator = builder.build().start();
    open.add(simulator);
    logs.start();
    ((Logger) LoggerFactory.getLogger(ActivityStream.class)).addAppender(logs);
    return simulator;
  }

  private PlatformSimulator simulator() {
    return simulator(b -> {});
  }

  private WebhookConsumer consumer() {
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(simulator.consumerSecret())
            .meterRegistry(registry)
            .onAny(event -> handled.add(event.id()))
            .build();
    open.add(0, consumer);
    return consumer;
  }

  private WebhookClient client() {
    return WebhookClient.builder()
        .baseUrl(simulator.baseUrl())
        .apiCredentials(simulator.apiKey(), simulator.apiSecret())
        .build();
  }

  private ActivityStream.Builder stream(WebhookConsumer consumer, WebhookClient client) {
    return ActivityStream.builder(consumer, client)
        .clock(clock)
        .random(() -> 0)
        .meterRegistry(registry);
  }

  private ActivityStream started(ActivityStream.Builder builder) {
    ActivityStream stream = builder.build();
    open.add(0, stream);
    return stream.start();
  }

  /** Moves the simulator's clock and the stream's together. */
  private void advance(Duration by) {
    simulator.advance(by);
    clock.advance(by);
  }

  private void awaitConnected(ActivityStream stream, int openStreams) {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                stream.state() == ActivityStream.State.CONNECTED
                    && simulator.openStreams().stream().filter(s -> !s.stalled()).count()
                        == openStreams);
  }

  private static String event(String id) {
    return Events.activity(id, "post.create", Map.of("user_id", "2244994945"), null, Map.of());
  }

  private double reconnects(String cause) {
    return registry.counter("webhook.stream.reconnects", "cause", cause).count();
  }

  private List<String> lines(Level level) {
    return logs.list.stream()
        .filter(e -> e.getLevel() == level)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  private String bearerToken() throws Exception {
    String basic =
        Base64.getEncoder()
            .encodeToString(
                (simulator.apiKey() + ":" + simulator.apiSecret())
                    .getBytes(StandardCharsets.UTF_8));
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(simulator.baseUrl() + "/oauth2/token"))
                    .header("Authorization", "Basic " + basic)
                    .header("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8")
                    .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    return new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(r.body())
        .path("access_token")
        .asText();
  }

  @Test
  void stream_eventsBeforeAndAfterADrop_eachHandledOnce() {
    simulator();
    ActivityStream stream = started(stream(consumer(), client()));
    awaitConnected(stream, 1);
    assertThat(simulator.openStreams().get(0).backfillMinutes()).isEqualTo(5);

    simulator.deliverToStream(event("1"));
    await().until(() -> handled.contains("1"));
    assertThat(simulator.dropStreams()).isEqualTo(1);
    awaitConnected(stream, 1); // at once: no wait was asked
    simulator.deliverToStream(event("2"));
    await().until(() -> handled.contains("2"));

    // The reconnect asked 1 minute again (the gap since the last byte, rounded up): event 1 came
    // back and dedup absorbed it.
    assertThat(simulator.openStreams().get(0).backfillMinutes()).isEqualTo(1);
    assertThat(handled).containsExactly("1", "2");
    assertThat(clock.reconnectWaits()).isEmpty();
    assertThat(reconnects("network")).isEqualTo(1.0);
    assertThat(registry.get("webhook.stream.events").counter().count()).isEqualTo(3.0);
    assertThat(registry.get("webhook.stream.connected").gauge().value()).isEqualTo(1.0);
    assertThat(lines(Level.WARN)).singleElement().asString().contains("the connection dropped");
    assertThat(lines(Level.INFO))
        .filteredOn(l -> l.startsWith("Activity stream connected"))
        .hasSize(2);
    assertThat(lines(Level.INFO))
        .filteredOn(l -> l.startsWith("Activity stream outage ended"))
        .hasSize(1);
  }

  /** Plays the reconnect waits the stream asks, one at a time, as they are asked. */
  private void playWaits(int count) {
    for (int i = 0; i < count; i++) {
      int next = played++;
      await().until(() -> clock.reconnectWaits().size() > next);
      advance(clock.reconnectWaits().get(next));
    }
  }

  private int played;

  @Test
  void stream_twoMinuteGap_filledByBackfill() {
    simulator();
    ActivityStream stream = started(stream(consumer(), client()));
    awaitConnected(stream, 1);
    simulator.deliverToStream(event("before"));
    await().until(() -> handled.contains("before"));

    // The reconnects are refused: 429 (60 s), then 503 three times (5, 10, 20 s): 95 s down,
    // while events keep being produced.
    Instant past = simulator.now();
    simulator.enqueueStreamFault(
        StreamFault.rateLimited(past),
        StreamFault.serverError(503),
        StreamFault.serverError(503),
        StreamFault.serverError(503));
    simulator.dropStreams();
    await().until(() -> clock.reconnectWaits().size() == 1);
    simulator.deliverToStream(event("during"));
    playWaits(4);

    awaitConnected(stream, 1);
    await().until(() -> handled.contains("during"));
    assertThat(clock.reconnectWaits())
        .containsExactly(
            Duration.ofSeconds(60),
            Duration.ofSeconds(5),
            Duration.ofSeconds(10),
            Duration.ofSeconds(20));
    // 95 s since the last byte, rounded up to 2 minutes.
    assertThat(simulator.openStreams().get(0).backfillMinutes()).isEqualTo(2);
    assertThat(handled).containsExactly("before", "during");
    assertThat(reconnects("http")).isEqualTo(3.0);
    assertThat(reconnects("rate_limited")).isEqualTo(1.0);
    assertThat(registry.get("webhook.stream.minutes.unrecovered").counter().count()).isZero();
    assertThat(stream.healthy()).isTrue();
  }

  @Test
  void stream_sevenMinuteGap_reportedOnceWithItsBounds() {
    simulator();
    ActivityStream stream = started(stream(consumer(), client()));
    awaitConnected(stream, 1);
    Instant past = simulator.now();
    // 429 three times: 60 + 120 + 240 s = 7 minutes down.
    simulator.enqueueStreamFault(
        StreamFault.rateLimited(past),
        StreamFault.rateLimited(past),
        StreamFault.rateLimited(past));
    simulator.dropStreams();
    Instant lost = simulator.now();
    await().until(() -> clock.reconnectWaits().size() == 1);
    simulator.deliverToStream(event("lost")); // older than the backfill reach by the reconnect
    playWaits(2);
    assertThat(stream.healthy()).isFalse(); // down for 3 minutes
    simulator.deliverToStream(event("recovered"));
    playWaits(1);

    awaitConnected(stream, 1);
    await().until(() -> handled.contains("recovered"));
    assertThat(handled).containsExactly("recovered");
    assertThat(simulator.openStreams().get(0).backfillMinutes()).isEqualTo(5);
    // The gap ran from the last byte (the drop) to 7 minutes later: 2 minutes of it are beyond
    // the 5 minutes asked again.
    assertThat(registry.get("webhook.stream.minutes.unrecovered").counter().count()).isEqualTo(2.0);
    assertThat(lines(Level.WARN))
        .filteredOn(l -> l.contains("beyond the backfill reach"))
        .singleElement()
        .asString()
        .contains("gap of 7 minutes")
        .contains(lost.toString())
        .contains(lost.plus(Duration.ofMinutes(2)).toString())
        .contains("only a webhook replay");
    assertThat(stream.healthy()).isTrue();
  }

  @Test
  void stream_gapWithWebhookCatchUp_warnSaysReplayCoversIt() {
    simulator();
    ActivityStream stream = started(stream(consumer(), client()).webhookCatchUp(true));
    awaitConnected(stream, 1);
    Instant past = simulator.now();
    simulator.enqueueStreamFault(
        StreamFault.rateLimited(past),
        StreamFault.rateLimited(past),
        StreamFault.rateLimited(past));
    simulator.dropStreams();
    playWaits(3);
    awaitConnected(stream, 1);
    assertThat(lines(Level.WARN))
        .filteredOn(l -> l.contains("beyond the backfill reach"))
        .singleElement()
        .asString()
        .contains("the webhook's catch-up replay will cover them");
  }

  @Test
  void stream_revokedBearerToken_stopsWithOneErrorAndHealthDown() throws Exception {
    simulator();
    String token = bearerToken();
    WebhookClient client =
        WebhookClient.builder().baseUrl(simulator.baseUrl()).bearerToken(token).build();
    ActivityStream stream = started(stream(consumer(), client));
    awaitConnected(stream, 1);

    simulator.revokeToken(); // ends the stream; the reconnect meets 401

    await().until(() -> stream.state() == ActivityStream.State.REFUSED);
    assertThat(stream.healthy()).isFalse();
    assertThat(stream.refusal()).get().asString().contains("401");
    assertThat(lines(Level.ERROR))
        .singleElement()
        .asString()
        .contains("401")
        .contains("bearer token is not valid");
    advance(Duration.ofMinutes(30));
    assertThat(clock.reconnectWaits()).isEmpty(); // no retry loop
    assertThat(registry.get("webhook.stream.connected").gauge().value()).isZero();
    assertThat(logs.list).noneSatisfy(e -> assertThat(e.getFormattedMessage()).contains(token));
    assertThat(stream.toString()).doesNotContain(token);
  }

  @Test
  void stream_revokedTokenWithApiCredentials_fetchesANewOneAndGoesOn() {
    simulator();
    ActivityStream stream = started(stream(consumer(), client()));
    awaitConnected(stream, 1);
    simulator.revokeToken();
    await()
        .until(() -> lines(Level.INFO).stream().filter(l -> l.contains("connected")).count() == 2);
    awaitConnected(stream, 1);
    assertThat(stream.healthy()).isTrue();
    assertThat(lines(Level.ERROR)).isEmpty();
  }

  @Test
  void stream_429_waits60sThen120sOnTheClock() {
    simulator();
    Instant reset = simulator.now(); // already passed: the doubling decides
    simulator.enqueueStreamFault(StreamFault.rateLimited(reset), StreamFault.rateLimited(reset));
    ActivityStream stream = started(stream(consumer(), client()));

    await().until(() -> clock.reconnectWaits().size() == 1);
    assertThat(clock.reconnectWaits()).containsExactly(Duration.ofSeconds(60));
    advance(Duration.ofSeconds(59));
    assertThat(simulator.openStreams()).isEmpty();
    advance(Duration.ofSeconds(1));
    await().until(() -> clock.reconnectWaits().size() == 2);
    assertThat(clock.reconnectWaits())
        .containsExactly(Duration.ofSeconds(60), Duration.ofSeconds(120));
    advance(Duration.ofSeconds(120));

    awaitConnected(stream, 1);
    assertThat(reconnects("rate_limited")).isEqualTo(2.0);
    assertThat(lines(Level.WARN)).hasSize(1); // one line per outage, not per attempt
  }

  @Test
  void stream_429WithALaterReset_waitsUntilTheReset() {
    simulator();
    simulator.enqueueStreamFault(
        StreamFault.rateLimited(simulator.now().plus(Duration.ofSeconds(300))));
    started(stream(consumer(), client()));
    await().until(() -> clock.reconnectWaits().size() == 1);
    assertThat(clock.reconnectWaits()).containsExactly(Duration.ofSeconds(300));
  }

  @Test
  void stream_httpErrors_waitFrom5sDoubling_withJitterOnTop() {
    simulator();
    simulator.enqueueStreamFault(
        StreamFault.serverError(503), StreamFault.serverError(500), StreamFault.serverError(502));
    ActivityStream stream = started(stream(consumer(), client()).random(() -> 0.5));

    await().until(() -> clock.reconnectWaits().size() == 1);
    advance(clock.reconnectWaits().get(0));
    await().until(() -> clock.reconnectWaits().size() == 2);
    advance(clock.reconnectWaits().get(1));
    await().until(() -> clock.reconnectWaits().size() == 3);
    advance(clock.reconnectWaits().get(2));

    awaitConnected(stream, 1);
    // 5, 10, 20 s, each with half of the 10% jitter on top
    assertThat(clock.reconnectWaits())
        .containsExactly(
            Duration.ofMillis(5_250), Duration.ofMillis(10_500), Duration.ofSeconds(21));
    assertThat(reconnects("http")).isEqualTo(3.0);
  }

  @Test
  void stream_networkErrors_wait250msMorePerAttempt() throws Exception {
    int closedPort;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    simulator();
    WebhookClient nowhere =
        WebhookClient.builder()
            .baseUrl(URI.create("http://127.0.0.1:" + closedPort))
            .bearerToken("AAAA")
            .build();
    ActivityStream stream = started(stream(consumer(), nowhere));
    for (int i = 1; i <= 3; i++) {
      int attempts = i;
      await().until(() -> clock.reconnectWaits().size() == attempts);
      advance(clock.reconnectWaits().get(i - 1));
    }
    await().until(() -> clock.reconnectWaits().size() == 4);
    assertThat(clock.reconnectWaits())
        .containsExactly(
            Duration.ofMillis(250),
            Duration.ofMillis(500),
            Duration.ofMillis(750),
            Duration.ofSeconds(1));
    assertThat(reconnects("network")).isEqualTo(4.0);
    assertThat(stream.healthy()).isTrue(); // down for under a minute
    advance(Duration.ofSeconds(60));
    assertThat(stream.healthy()).isFalse();
  }

  @Test
  void stream_stall_detectedWithin20s() {
    simulator();
    ActivityStream stream = started(stream(consumer(), client()));
    awaitConnected(stream, 1);
    simulator.stallStreams();

    clock.advance(Duration.ofSeconds(19));
    assertThat(reconnects("stalled")).isZero();
    clock.advance(Duration.ofSeconds(1));

    await().until(() -> reconnects("stalled") == 1.0);
    awaitConnected(stream, 1);
    simulator.deliverToStream(event("after"));
    await().until(() -> handled.contains("after"));
  }

  @Test
  void stream_keepAlives_keepAStillConnectionAlive() {
    simulator(b -> b.streamKeepAlive(Duration.ofSeconds(10)));
    ActivityStream stream = started(stream(consumer(), client()));
    awaitConnected(stream, 1);
    for (int i = 0; i < 6; i++) {
      clock.advance(Duration.ofSeconds(10));
      simulator.advance(Duration.ofSeconds(10)); // one keep-alive newline
      await().until(() -> stream.lastByteNanos() == clock.nanoTime());
    }
    assertThat(reconnects("stalled")).isZero();
    assertThat(stream.state()).isEqualTo(ActivityStream.State.CONNECTED);
    assertThat(registry.get("webhook.stream.events").counter().count()).isZero();
  }

  @Test
  void stream_operationalDisconnect_loggedWithTitleAndReconnectsAtOnce() {
    simulator();
    ActivityStream stream = started(stream(consumer(), client()));
    awaitConnected(stream, 1);

    simulator.disconnectStreams();

    await().until(() -> reconnects("disconnect_message") == 1.0);
    awaitConnected(stream, 1);
    assertThat(clock.reconnectWaits()).isEmpty();
    assertThat(lines(Level.WARN))
        .anySatisfy(
            l ->
                assertThat(l)
                    .contains("operational-disconnect")
                    .contains("UpstreamOperationalDisconnect"));
  }

  @Test
  void stream_tooManyConnections_isLoggedAndWaitsAsRateLimited() {
    simulator();
    simulator.enqueueStreamFault(StreamFault.tooManyConnections());
    ActivityStream stream = started(stream(consumer(), client()));
    await().until(() -> clock.reconnectWaits().size() == 1);
    assertThat(clock.reconnectWaits()).containsExactly(Duration.ofSeconds(60));
    assertThat(lines(Level.WARN)).singleElement().asString().contains("TooManyConnections");
    advance(Duration.ofSeconds(60));
    awaitConnected(stream, 1);
  }

  @Test
  void stream_fullHandOff_readerWaits_nothingDropped() throws Exception {
    simulator();
    CountDownLatch release = new CountDownLatch(1);
    WebhookConsumer slow =
        WebhookConsumer.builder()
            .consumerSecrets(simulator.consumerSecret())
            .onAny(
                event -> {
                  release.await(30, TimeUnit.SECONDS);
                  handled.add(event.id());
                })
            .build();
    open.add(0, slow);
    ActivityStream stream = started(stream(slow, client()).handOffCapacity(2));
    awaitConnected(stream, 1);
    for (int i = 0; i < 200; i++) {
      simulator.deliverToStream(event("e" + i));
    }
    // One runs, two wait in the hand-off, the reader holds one and reads no more.
    await().until(() -> registry.get("webhook.stream.events").counter().count() >= 4);
    await().pollDelay(Duration.ofMillis(300)).until(() -> true);
    assertThat(registry.get("webhook.stream.events").counter().count()).isLessThan(200);
    assertThat(stream.state()).isEqualTo(ActivityStream.State.CONNECTED);
    clock.advance(Duration.ofSeconds(60)); // a paused reader is not a stalled connection
    assertThat(reconnects("stalled")).isZero();

    release.countDown();
    await().atMost(Duration.ofSeconds(20)).until(() -> handled.size() == 200);
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      expected.add("e" + i);
    }
    assertThat(handled).containsExactlyElementsOf(expected);
  }

  @Test
  void stream_slowReaderCutOffByThePlatform_backfillCoversTheGap() throws Exception {
    simulator(b -> b.streamBuffer(5)); // the platform cuts a stream 5 events behind
    CountDownLatch release = new CountDownLatch(1);
    WebhookConsumer slow =
        WebhookConsumer.builder()
            .consumerSecrets(simulator.consumerSecret())
            .onAny(
                event -> {
                  release.await(30, TimeUnit.SECONDS);
                  handled.add(event.id());
                })
            .build();
    open.add(0, slow);
    ActivityStream stream = started(stream(slow, client()).handOffCapacity(2));
    awaitConnected(stream, 1);
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      simulator.deliverToStream(event("s" + i));
      expected.add("s" + i);
    }
    // The platform cuts a reader this far behind. Whether the simulator sees it behind depends on
    // how much the loopback socket's buffers absorb first (on some runs all 100 fitted): where it
    // has not cut yet, cut it as the platform would. No wait for "no stream open" here: a cut that
    // came before the reader was blocked (fewer lines than the hand-off holds had arrived) is seen
    // at once, and the reader is already connected again (failed in CI waiting for that).
    if (!simulator.openStreams().isEmpty()) {
      simulator.dropStreams();
    }

    release.countDown();
    await().atMost(Duration.ofSeconds(20)).until(() -> handled.size() == 100);
    assertThat(handled).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(reconnects("network")).isGreaterThanOrEqualTo(1.0);
    awaitConnected(stream, 1);
  }

  @Test
  void stream_webhookCopyAndStreamCopy_runOnce() throws Exception {
    simulator(b -> b.localMode(true));
    WebhookConsumer consumer = consumer();
    io.servicehooks.undertow.WebhookServer server =
        io.servicehooks.undertow.WebhookServer.builder(consumer).port(0).build().start();
    open.add(0, server);
    WebhookClient client =
        WebhookClient.builder()
            .baseUrl(simulator.baseUrl())
            .apiCredentials(simulator.apiKey(), simulator.apiSecret())
            .allowInsecureUrls(true)
            .build();
    client.create("http://127.0.0.1:" + server.port() + "/webhooks");
    ActivityStream stream = started(stream(consumer, client));
    awaitConnected(stream, 1);

    simulator.deliver(event("both")); // a subscription with a webhook: POSTed and streamed

    assertThat(simulator.awaitIdle(Duration.ofSeconds(10))).isTrue();
    await()
        .until(
            () ->
                registry
                        .counter("webhook.events", "type", "post.create", "outcome", "duplicate")
                        .count()
                    == 1.0);
    assertThat(handled).containsExactly("both");
  }

  @Test
  void close_endsTheConnection_andGaugeDrops() {
    simulator();
    ActivityStream stream = started(stream(consumer(), client()));
    awaitConnected(stream, 1);
    stream.close();
    assertThat(stream.state()).isEqualTo(ActivityStream.State.CLOSED);
    assertThat(stream.healthy()).isFalse();
    // Its next keep-alives find the connection closed.
    await()
        .until(
            () -> {
              simulator.advance(Duration.ofSeconds(20));
              return simulator.openStreams().isEmpty();
            });
    assertThat(registry.get("webhook.stream.connected").gauge().value()).isZero();
  }

  @Test
  void stream_wrongApiSecret_refusedAtTheTokenStep_lineNamesTheStepAndTheCredentials()
      throws Exception {
    simulator();
    WebhookClient client =
        WebhookClient.builder()
            .baseUrl(simulator.baseUrl())
            .apiCredentials(simulator.apiKey(), "not-the-secret-of-the-app")
            .build();
    ActivityStream stream = started(stream(consumer(), client));

    assertThat(stream.awaitStopped(Duration.ofSeconds(10))).isTrue();
    assertThat(stream.state()).isEqualTo(ActivityStream.State.REFUSED);
    String line = lines(Level.ERROR).get(0);
    assertThat(lines(Level.ERROR)).hasSize(1);
    assertThat(stream.refusal()).get().asString().isEqualTo(line.substring(line.indexOf("POST")));
    assertThat(line)
        .contains("POST /oauth2/token answered HTTP 403 (")
        .contains("refused the API key and secret")
        .contains("SERVICE_API_KEY and SERVICE_API_SECRET")
        .doesNotContain("may not open", "activity stream (its access level", "not-the-secret")
        .doesNotContainPattern("HTTP [0-9]{3}[A-Za-z]");
    assertThat(simulator.openStreams()).isEmpty();
  }

  @Test
  void stream_forbiddenStream_lineSaysTheTokenWasAcceptedButTheStreamRefused() throws Exception {
    simulator();
    simulator.enqueueStreamFault(StreamFault.forbidden());
    ActivityStream stream = started(stream(consumer(), client()));

    assertThat(stream.awaitStopped(Duration.ofSeconds(10))).isTrue();
    assertThat(stream.refusal())
        .get()
        .asString()
        .startsWith("GET /2/activity/stream answered HTTP 403")
        .contains("refused the app the activity stream")
        .doesNotContain("API key and secret");
  }

  @Test
  void awaitStopped_whileConnected_timesOut_thenReturnsOnceClosed() throws Exception {
    simulator();
    ActivityStream stream = started(stream(consumer(), client()));
    awaitConnected(stream, 1);

    assertThat(stream.awaitStopped(Duration.ofMillis(50))).isFalse();
    assertThat(stream.awaitStopped(Duration.ZERO)).isFalse();

    Thread closer = new Thread(stream::close);
    closer.start();
    assertThat(stream.awaitStopped(Duration.ofSeconds(15))).isTrue();
    assertThat(stream.state()).isEqualTo(ActivityStream.State.CLOSED);
    closer.join(5_000);
  }

  @Test
  void stallTimeout_setTo5s_stallDetectedAfter5sAndNamedInTheOutageLine() {
    simulator();
    ActivityStream stream =
        started(stream(consumer(), client()).stallTimeout(Duration.ofSeconds(5)));
    awaitConnected(stream, 1);
    simulator.stallStreams();

    clock.advance(Duration.ofSeconds(4));
    assertThat(reconnects("stalled")).isZero();
    clock.advance(Duration.ofSeconds(1));

    await().until(() -> reconnects("stalled") == 1.0);
    assertThat(lines(Level.WARN))
        .anySatisfy(l -> assertThat(l).contains("no complete line for 5 s (stalled connection)"));
    awaitConnected(stream, 1);
  }

  @Test
  void stallTimeout_outsideOneSecondToFiveMinutes_refusedNamingTheValue() {
    simulator();
    ActivityStream.Builder builder = stream(consumer(), client());
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> builder.stallTimeout(Duration.ofMillis(999)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("stallTimeout must be between 1 s and 5 minutes, was PT0.999S");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> builder.stallTimeout(Duration.ofMinutes(6)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
