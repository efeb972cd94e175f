package io.servicehooks.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

final class StreamTest {

  private static final Instant T0 = Instant.parse("2026-03-20T10:00:00Z");

  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  private PlatformSimulator start(PlatformSimulator.Builder builder) {
    PlatformSimulator simulator = builder.build().start();
    open.add(simulator);
    return simulator;
  }

  private StreamReader connect(PlatformSimulator simulator, String query) {
    StreamReader reader =
        StreamReader.open(simulator, new PlatformClient(simulator).bearer(), query);
    open.add(0, reader);
    return reader;
  }

  private static String event(String id) {
    return Events.activity(
        id,
        "post.create",
        java.util.Map.of("user_id", "2244994945"),
        null,
        java.util.Map.of("id", id));
  }

  private static JsonNode json(String text) {
    try {
      return PlatformClient.MAPPER.readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void stream_eventsOfBothKindsOfSubscription_arriveOnePerLine() {
    PlatformSimulator simulator = start(PlatformSimulator.builder());
    StreamReader reader = connect(simulator, "");
    assertThat(reader.status()).isEqualTo(200);
    assertThat(reader.response.headers().firstValue("content-type")).hasValue("application/json");
    await().until(() -> simulator.openStreams().size() == 1);

    assertThat(simulator.deliverToStream(event("1"))).isEqualTo(1);
    simulator.deliver(event("2")); // a subscription with a webhook: the stream gets it too
    simulator.deliver(Events.accountFavorite("2244994945", "9", "10")); // legacy: webhooks only

    await().until(() -> reader.events().size() == 2);
    assertThat(reader.events()).containsExactly(event("1"), event("2"));
    assertThat(json(reader.events().get(0)).path("data").path("event_uuid").asText())
        .isEqualTo("1");
  }

  @Test
  void stream_prettyPrintedEnvelope_writtenOnOneLine() {
    PlatformSimulator simulator = start(PlatformSimulator.builder());
    StreamReader reader = connect(simulator, "");
    await().until(() -> simulator.openStreams().size() == 1);

    simulator.deliverToStream(
        "{\n  \"data\": {\"event_uuid\": \"7\", \"event_type\": \"post.create\"}\n}");

    await().until(() -> reader.events().size() == 1);
    assertThat(json(reader.events().get(0)).path("data").path("event_uuid").asText())
        .isEqualTo("7");
  }

  @Test
  void keepAlive_realTimeInterval_bareNewlinesArrive() {
    PlatformSimulator simulator =
        start(PlatformSimulator.builder().streamKeepAlive(Duration.ofMillis(50)));
    StreamReader reader = connect(simulator, "");

    await().atMost(Duration.ofSeconds(5)).until(() -> reader.keepAlives() >= 3);
    assertThat(reader.events()).isEmpty();
  }

  @Test
  void keepAlive_onSimulatorClock_oneNewlinePerIntervalAdvanced() {
    PlatformSimulator simulator =
        start(
            PlatformSimulator.builder()
                .clock(Clock.fixed(T0, ZoneOffset.UTC))
                .streamKeepAliveOnSimulatorClock(true));
    StreamReader reader = connect(simulator, "");
    await().until(() -> simulator.openStreams().size() == 1);

    simulator.advance(Duration.ofSeconds(19));
    simulator.advance(Duration.ofSeconds(42)); // 61 s in all: three 20 s intervals
    simulator.deliverToStream(event("1"));

    await().until(() -> reader.lines().size() == 4);
    assertThat(reader.lines()).containsExactly("", "", "", event("1"));
  }

  @Test
  void keepAlive_changedWhileOpen_newIntervalApplies() {
    PlatformSimulator simulator = start(PlatformSimulator.builder());
    StreamReader reader = connect(simulator, "");
    await().until(() -> simulator.openStreams().size() == 1);

    simulator.streamKeepAlive(Duration.ofMillis(50));
    simulator.deliverToStream(event("1")); // wakes the writer, which then waits the new interval

    await().atMost(Duration.ofSeconds(5)).until(() -> reader.keepAlives() >= 2);
  }

  @Test
  void backfill_minutes_sendsEventsOfThatWindowFirst() {
    PlatformSimulator simulator =
        start(PlatformSimulator.builder().clock(Clock.fixed(T0, ZoneOffset.UTC)));
    simulator.deliverToStream(event("at-0"));
    simulator.advance(Duration.ofMinutes(3));
    simulator.deliverToStream(event("at-3"));
    simulator.advance(Duration.ofMinutes(1));
    simulator.deliverToStream(event("at-4"));
    simulator.advance(Duration.ofSeconds(30));

    StreamReader two = connect(simulator, "backfill_minutes=2");
    StreamReader five = connect(simulator, "backfill_minutes=5");
    await().until(() -> two.events().size() == 2 && five.events().size() == 3);
    simulator.deliverToStream(event("live"));

    await().until(() -> two.events().size() == 3 && five.events().size() == 4);
    assertThat(two.events()).containsExactly(event("at-3"), event("at-4"), event("live"));
    assertThat(five.events())
        .containsExactly(event("at-0"), event("at-3"), event("at-4"), event("live"));
    assertThat(simulator.openStreams())
        .extracting(OpenStream::backfillMinutes)
        .containsExactly(2, 5);
  }

  @Test
  void backfill_none_onlyLiveEvents() {
    PlatformSimulator simulator = start(PlatformSimulator.builder());
    simulator.deliverToStream(event("before"));
    StreamReader plain = connect(simulator, "");
    StreamReader zero = connect(simulator, "backfill_minutes=0");
    await().until(() -> simulator.openStreams().size() == 2);

    simulator.deliverToStream(event("live"));

    await().until(() -> plain.events().size() == 1 && zero.events().size() == 1);
    assertThat(plain.events()).containsExactly(event("live"));
    assertThat(zero.events()).containsExactly(event("live"));
  }

  @Test
  void backfill_olderThanFiveMinutes_forgotten() {
    PlatformSimulator simulator =
        start(PlatformSimulator.builder().clock(Clock.fixed(T0, ZoneOffset.UTC)));
    simulator.deliverToStream(event("old"));
    simulator.advance(Duration.ofMinutes(7));
    simulator.deliverToStream(event("recent"));

    StreamReader reader = connect(simulator, "backfill_minutes=5");

    await().until(() -> reader.events().size() == 1);
    simulator.deliverToStream(event("live"));
    await().until(() -> reader.events().size() == 2);
    assertThat(reader.events()).containsExactly(event("recent"), event("live"));
  }

  @Test
  void backfill_startAndEndTime_boundTheWindow() {
    PlatformSimulator simulator =
        start(PlatformSimulator.builder().clock(Clock.fixed(T0, ZoneOffset.UTC)));
    simulator.deliverToStream(event("at-0"));
    simulator.advance(Duration.ofMinutes(2));
    simulator.deliverToStream(event("at-2"));
    simulator.advance(Duration.ofMinutes(2));
    simulator.deliverToStream(event("at-4"));

    StreamReader ended = connect(simulator, "backfill_minutes=5&end_time=2026-03-20T10:03:00Z");
    StreamReader started = connect(simulator, "start_time=2026-03-20T10:01:00Z");
    await().until(() -> simulator.openStreams().size() == 2);
    simulator.deliverToStream(event("live"));

    await().until(() -> ended.events().size() == 3 && started.events().size() == 3);
    assertThat(ended.events()).containsExactly(event("at-0"), event("at-2"), event("live"));
    assertThat(started.events()).containsExactly(event("at-2"), event("at-4"), event("live"));
  }

  @Test
  void connect_badQuery_400AndNoStream() {
    PlatformSimulator simulator = start(PlatformSimulator.builder());

    for (String query :
        List.of(
            "backfill_minutes=6",
            "backfill_minutes=-1",
            "backfill_minutes=two",
            "start_time=2026-03-20T10:01:00",
            "end_time=yesterday",
            "start_time=2026-03-20T10:05:00Z&end_time=2026-03-20T10:01:00Z")) {
      StreamReader reader = connect(simulator, query);
      assertThat(reader.status()).as(query).isEqualTo(400);
      assertThat(json(reader.refusal()).path("title").asText()).isEqualTo("Invalid Request");
    }
    assertThat(simulator.openStreams()).isEmpty();
  }

  @Test
  void connect_withoutToken_401() {
    PlatformSimulator simulator = start(PlatformSimulator.builder());

    StreamReader reader = StreamReader.open(simulator, null, "");
    open.add(0, reader);

    assertThat(reader.status()).isEqualTo(401);
    assertThat(simulator.openStreams()).isEmpty();
  }

  @Test
  void dropStreams_open_readerSeesAbruptEndAndConnectionGone() {
    PlatformSimulator simulator = start(PlatformSimulator.builder());
    StreamReader reader = connect(simulator, "");
    await().until(() -> simulator.openStreams().size() == 1);
    simulator.deliverToStream(event("1"));
    await().until(() -> reader.events().size() == 1);

    assertThat(simulator.dropStreams()).isEqualTo(1);

    await().until(() -> reader.end() != StreamReader.End.OPEN);
    assertThat(reader.end()).isEqualTo(StreamReader.End.ERROR);
    assertThat(simulator.openStreams()).isEmpty();
    // The event before the drop is still in the backfill history for the reconnect.
    StreamReader again = connect(simulator, "backfill_minutes=1");
    await().until(() -> again.events().size() == 1);
    assertThat(again.events()).containsExactly(event("1"));
  }

  @Test
  void stallStreams_open_noMoreBytesButReconnectAccepted() {
    PlatformSimulator simulator =
        start(
            PlatformSimulator.builder()
                .streamKeepAlive(Duration.ofMillis(50))
                .streamConnectionLimit(1));
    StreamReader reader = connect(simulator, "");
    await().until(() -> reader.keepAlives() >= 1);

    assertThat(simulator.stallStreams()).isEqualTo(1);
    await().until(() -> simulator.openStreams().get(0).stalled());
    int seen = reader.lines().size();
    simulator.deliverToStream(event("while-stalled"));

    // Ten keep-alive intervals and an event pass without a byte.
    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(2))
        .until(() -> reader.lines().size() <= seen + 1);
    assertThat(reader.events()).isEmpty();
    assertThat(reader.end()).isEqualTo(StreamReader.End.OPEN);
    // A stalled connection does not count against the limit: the reader's reconnect gets in.
    StreamReader again = connect(simulator, "backfill_minutes=1");
    assertThat(again.status()).isEqualTo(200);
    await().until(() -> again.events().size() == 1);
    assertThat(again.events()).containsExactly(event("while-stalled"));
  }

  @Test
  void disconnectStreams_open_errorObjectThenCleanEnd() {
    PlatformSimulator simulator = start(PlatformSimulator.builder());
    StreamReader reader = connect(simulator, "");
    await().until(() -> simulator.openStreams().size() == 1);

    assertThat(simulator.disconnectStreams()).isEqualTo(1);

    await().until(() -> reader.end() != StreamReader.End.OPEN);
    assertThat(reader.end()).isEqualTo(StreamReader.End.CLEAN);
    JsonNode error = json(reader.events().get(0)).path("errors").path(0);
    assertThat(error.path("title").asText()).isEqualTo("operational-disconnect");
    assertThat(error.path("disconnect_type").asText()).isEqualTo("UpstreamOperationalDisconnect");
    assertThat(error.path("detail").asText()).isNotBlank();
    assertThat(simulator.openStreams()).isEmpty();
  }

  @Test
  void connect_rateLimitedFault_429WithResetThenAccepted() {
    PlatformSimulator simulator = start(PlatformSimulator.builder());
    Instant reset = Instant.parse("2030-01-01T00:00:00Z");
    simulator.enqueueStreamFault(StreamFault.rateLimited(reset));

    StreamReader limited = connect(simulator, "");

    assertThat(limited.status()).isEqualTo(429);
    assertThat(limited.response.headers().firstValue("x-rate-limit-remaining")).hasValue("0");
    assertThat(limited.response.headers().firstValue("x-rate-limit-reset"))
        .hasValue(Long.toString(reset.getEpochSecond()));
    assertThat(connect(simulator, "").status()).isEqualTo(200);
  }

  @Test
  void connect_serverErrorFault_503ProblemThenAccepted() {
    PlatformSimulator simulator = start(PlatformSimulator.builder());
    simulator.enqueueStreamFault(StreamFault.serverError(503));

    StreamReader refused = connect(simulator, "");

    assertThat(refused.status()).isEqualTo(503);
    assertThat(json(refused.refusal()).path("title").asText()).isEqualTo("Service Unavailable");
    assertThat(connect(simulator, "").status()).isEqualTo(200);
  }

  @Test
  void connect_overLimit_tooManyConnections() {
    PlatformSimulator simulator = start(PlatformSimulator.builder().streamConnectionLimit(1));
    assertThat(connect(simulator, "").status()).isEqualTo(200);

    StreamReader second = connect(simulator, "");

    assertThat(second.status()).isEqualTo(429);
    JsonNode body = json(second.refusal());
    assertThat(body.path("title").asText()).isEqualTo("ConnectionException");
    assertThat(body.path("connection_issue").asText()).isEqualTo("TooManyConnections");
    assertThat(simulator.openStreams()).hasSize(1);
  }

  @Test
  void connect_tooManyConnectionsFault_refusedOnceThenAccepted() {
    PlatformSimulator simulator = start(PlatformSimulator.builder());
    simulator.enqueueStreamFault(StreamFault.tooManyConnections());

    StreamReader refused = connect(simulator, "");

    assertThat(refused.status()).isEqualTo(429);
    assertThat(json(refused.refusal()).path("connection_issue").asText())
        .isEqualTo("TooManyConnections");
    assertThat(connect(simulator, "").status()).isEqualTo(200);
  }

  @Test
  void revokeToken_openStream_endsAndReconnectGets401Code89() {
    PlatformSimulator simulator = start(PlatformSimulator.builder());
    PlatformClient client = new PlatformClient(simulator);
    String token = client.bearer();
    StreamReader reader = StreamReader.open(simulator, token, "");
    open.add(0, reader);
    await().until(() -> simulator.openStreams().size() == 1);

    simulator.revokeToken();

    await().until(() -> reader.end() != StreamReader.End.OPEN);
    StreamReader again = StreamReader.open(simulator, token, "");
    open.add(0, again);
    assertThat(again.status()).isEqualTo(401);
    assertThat(json(again.refusal()).path("errors").path(0).path("code").asInt()).isEqualTo(89);
    assertThat(simulator.openStreams()).isEmpty();
  }

  @Test
  void stream_clientCloses_connectionForgottenAtNextWrite() {
    PlatformSimulator simulator =
        start(PlatformSimulator.builder().streamKeepAlive(Duration.ofMillis(50)));
    StreamReader reader = connect(simulator, "");
    await().until(() -> simulator.openStreams().size() == 1);

    reader.close();

    await().atMost(Duration.ofSeconds(20)).until(() -> simulator.openStreams().isEmpty());
  }
}
