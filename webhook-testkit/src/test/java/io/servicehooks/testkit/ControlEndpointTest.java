package io.servicehooks.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

final class ControlEndpointTest {

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private final PlatformSimulator simulator =
      PlatformSimulator.builder()
          .localMode(true)
          .controlEndpoint(true)
          .retrySchedule(List.of(Duration.ofMillis(50)))
          .deliveryTimeout(Duration.ofSeconds(2))
          .build()
          .start();
  private final PlatformClient client = new PlatformClient(simulator);
  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
    simulator.close();
  }

  private HttpResponse<String> control(String method, String path, String body) {
    return control(method, path, body, "application/json", null);
  }

  private HttpResponse<String> control(
      String method, String path, String body, String contentType, String origin) {
    try {
      HttpRequest.Builder request =
          HttpRequest.newBuilder(simulator.baseUrl().resolve(path)).timeout(Duration.ofSeconds(10));
      if (contentType != null) {
        request.header("Content-Type", contentType);
      }
      if (origin != null) {
        request.header("Origin", origin);
      }
      return HTTP.send(
          request
              .method(
                  method,
                  body == null
                      ? HttpRequest.BodyPublishers.noBody()
                      : HttpRequest.BodyPublishers.ofString(body))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private StreamReader stream() {
    StreamReader reader = StreamReader.open(simulator, client.bearer(), "");
    open.add(0, reader);
    return reader;
  }

  private ConsumerStub consumer() throws IOException {
    ConsumerStub consumer = ConsumerStub.start(simulator.consumerSecret());
    open.add(consumer);
    client.register(consumer.url());
    return consumer;
  }

  @Test
  void trigger_countAndDuplicate_webhookAndStreamGetEachEventTwice() throws IOException {
    ConsumerStub consumer = consumer();
    StreamReader reader = stream();

    HttpResponse<String> response =
        control(
            "POST",
            "/_sim/trigger",
            "{\"type\":\"dm.received\",\"count\":2,\"user_id\":\"42\",\"duplicate\":true}");

    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode data = PlatformClient.json(response).get("data");
    assertThat(data.get("webhook_deliveries").asInt()).isEqualTo(4);
    assertThat(data.get("streams").asInt()).isEqualTo(1);
    List<String> uuids = new ArrayList<>();
    data.get("event_uuids").forEach(u -> uuids.add(u.asText()));
    assertThat(uuids).hasSize(2).doesNotHaveDuplicates();
    await().until(() -> consumer.deliveries().size() == 4 && reader.events().size() == 4);
    for (String line : reader.events()) {
      JsonNode event = PlatformClient.MAPPER.readTree(line).get("data");
      assertThat(event.get("event_type").asText()).isEqualTo("dm.received");
      assertThat(event.get("filter").get("user_id").asText()).isEqualTo("42");
      assertThat(uuids).contains(event.get("event_uuid").asText());
    }
    assertThat(consumer.deliveryBodies()).containsExactlyInAnyOrderElementsOf(reader.events());
  }

  @Test
  void trigger_toStream_webhookGetsNothing() throws IOException {
    ConsumerStub consumer = consumer();
    StreamReader reader = stream();

    HttpResponse<String> response =
        control("POST", "/_sim/trigger", "{\"type\":\"post.create\",\"to\":\"stream\"}");

    assertThat(PlatformClient.json(response).get("data").get("webhook_deliveries").asInt())
        .isZero();
    await().until(() -> reader.events().size() == 1);
    assertThat(simulator.awaitIdle(Duration.ofSeconds(5))).isTrue();
    assertThat(consumer.deliveries()).isEmpty();
  }

  @Test
  void trigger_mention_itsPostIsFoundByLookupWithItsAuthor() throws IOException {
    ConsumerStub consumer = consumer();

    control("POST", "/_sim/trigger", "{\"type\":\"post.mention.create\"}");

    await().until(() -> consumer.deliveries().size() == 1);
    JsonNode post =
        PlatformClient.json(consumer.deliveries().get(0).bodyText()).get("data").get("payload");
    HttpResponse<String> looked =
        client.call("GET", "/2/posts/" + post.get("id").asText() + "?expansions=author_id", null);
    assertThat(looked.statusCode()).isEqualTo(200);
    JsonNode body = PlatformClient.json(looked);
    assertThat(body.get("data").get("text").asText()).isEqualTo(post.get("text").asText());
    assertThat(body.get("includes").get("users").get(0).get("id").asText())
        .isEqualTo(post.get("author_id").asText());
    assertThat(body.get("includes").get("users").get(0).get("username").asText())
        .isEqualTo("another_account");
  }

  @Test
  void usersPostsAndDms_playAnotherUserThroughSubscriptions() throws IOException {
    ConsumerStub consumer = consumer();
    String webhook = simulator.webhookIds().get(0);

    assertThat(
            control("POST", "/_sim/users", "{\"id\":\"1500000001\",\"username\":\"bot\"}")
                .statusCode())
        .isEqualTo(200);
    control("POST", "/_sim/users", "{\"id\":\"1500000002\",\"username\":\"alice\"}");
    simulator.subscribe("post.mention.create", "1500000001", webhook);
    simulator.subscribe("dm.received", "1500000001", webhook);
    HttpResponse<String> posted =
        control("POST", "/_sim/posts", "{\"author_id\":\"1500000002\",\"text\":\"@bot hi\"}");
    HttpResponse<String> sent =
        control(
            "POST",
            "/_sim/dms",
            "{\"sender_id\":\"1500000002\",\"recipient_id\":\"1500000001\",\"text\":\"psst\"}");
    HttpResponse<String> unknown =
        control("POST", "/_sim/posts", "{\"author_id\":\"999\",\"text\":\"x\"}");

    assertThat(posted.statusCode()).as(posted.body()).isEqualTo(200);
    assertThat(sent.statusCode()).as(sent.body()).isEqualTo(200);
    assertThat(unknown.statusCode()).isEqualTo(400);
    await().until(() -> consumer.deliveries().size() == 2);
    assertThat(consumer.deliveryBodies())
        .anySatisfy(body -> assertThat(body).contains("post.mention.create", "@bot hi"))
        .anySatisfy(body -> assertThat(body).contains("dm.received", "psst"));
    JsonNode listed =
        PlatformClient.json(control("GET", "/_sim/posts?author_id=1500000002", null, null, null))
            .get("data")
            .get("posts");
    assertThat(listed).hasSize(1);
    assertThat(listed.get(0).get("id").asText())
        .isEqualTo(PlatformClient.json(posted).get("data").get("id").asText());
  }

  @Test
  void trigger_badInput_400WithReason() {
    assertThat(control("POST", "/_sim/trigger", "{}").statusCode()).isEqualTo(400);
    assertThat(control("POST", "/_sim/trigger", "{\"type\":\"x\",\"count\":0}").body())
        .contains("count");
    assertThat(control("POST", "/_sim/trigger", "not json").statusCode()).isEqualTo(400);
    assertThat(control("GET", "/_sim/trigger", null).statusCode()).isEqualTo(405);
    assertThat(control("POST", "/_sim/nothing", "{}").statusCode()).isEqualTo(404);
  }

  @Test
  void streamFaults_dropStallDisconnect_playedOnOpenStreams() {
    StreamReader dropped = stream();
    await().until(() -> simulator.openStreams().size() == 1);
    assertThat(control("POST", "/_sim/faults/stream/drop", null).body()).contains("\"streams\":1");
    await().until(() -> dropped.end() == StreamReader.End.ERROR);

    StreamReader disconnected = stream();
    control("POST", "/_sim/faults/stream/disconnect", null);
    await().until(() -> disconnected.end() == StreamReader.End.CLEAN);
    assertThat(disconnected.events().get(0)).contains("operational-disconnect");

    stream();
    control("POST", "/_sim/faults/stream/stall", null);
    await().until(() -> simulator.openStreams().get(0).stalled());
  }

  @Test
  void connectFaults_queuedThroughControl_playedInOrder() {
    control("POST", "/_sim/faults/stream/rate-limit", "{\"reset_in_seconds\":120}");
    control("POST", "/_sim/faults/stream/unavailable", "{\"count\":2}");
    control("POST", "/_sim/faults/stream/too-many-connections", null);

    StreamReader limited = stream();
    assertThat(limited.status()).isEqualTo(429);
    long reset = Long.parseLong(limited.response.headers().firstValue("x-rate-limit-reset").get());
    assertThat(reset)
        .isBetween(simulator.now().getEpochSecond() + 100, simulator.now().getEpochSecond() + 121);
    assertThat(stream().status()).isEqualTo(503);
    assertThat(stream().status()).isEqualTo(503);
    StreamReader tooMany = stream();
    assertThat(tooMany.status()).isEqualTo(429);
    assertThat(tooMany.refusal()).contains("TooManyConnections");
    assertThat(stream().status()).isEqualTo(200);
  }

  @Test
  void revokeToken_throughControl_streamEndsAndTokenRefused() {
    String token = client.bearer();
    StreamReader reader = stream();
    await().until(() -> simulator.openStreams().size() == 1);

    control("POST", "/_sim/faults/token/revoke", null);

    await().until(() -> reader.end() != StreamReader.End.OPEN);
    StreamReader again = StreamReader.open(simulator, token, "");
    open.add(0, again);
    assertThat(again.status()).isEqualTo(401);
  }

  @Test
  void keepAlive_setThroughControl_applies() {
    StreamReader reader = stream();
    await().until(() -> simulator.openStreams().size() == 1);

    assertThat(control("PUT", "/_sim/stream/keep-alive", "{\"millis\":50}").statusCode())
        .isEqualTo(200);
    control("POST", "/_sim/trigger", "{\"type\":\"post.create\"}"); // wakes the writer

    await().atMost(Duration.ofSeconds(5)).until(() -> reader.keepAlives() >= 2);
  }

  @Test
  void stateAndAttempts_afterFailedDelivery_showRetriesAndDrop() throws IOException {
    ConsumerStub consumer = consumer();
    consumer.deliveryStatus(500);
    stream();

    control("POST", "/_sim/trigger", "{\"type\":\"like.create\"}");
    assertThat(simulator.awaitIdle(Duration.ofSeconds(10))).isTrue();

    JsonNode state = PlatformClient.json(control("GET", "/_sim/state", null)).get("data");
    assertThat(state.get("attempts").get("total").asInt()).isEqualTo(2);
    assertThat(state.get("attempts").get("failed").asInt()).isEqualTo(2);
    assertThat(state.get("attempts").get("retries").asInt()).isEqualTo(1);
    assertThat(state.get("dropped").asInt()).isEqualTo(1);
    assertThat(state.get("webhooks")).hasSize(1);
    assertThat(state.get("streams")).hasSize(1);
    JsonNode attempts = PlatformClient.json(control("GET", "/_sim/attempts", null)).get("data");
    assertThat(attempts).hasSize(2);
    assertThat(attempts.get(1).get("attempt").asInt()).isEqualTo(2);
    assertThat(attempts.get(1).get("status").asInt()).isEqualTo(500);
    assertThat(attempts.get(0).get("event_uuid").asText()).isNotBlank();
  }

  @Test
  void advance_throughControl_movesTheClock() {
    java.time.Instant before = simulator.now();

    control("POST", "/_sim/advance", "{\"seconds\":300}");

    assertThat(simulator.now()).isAfterOrEqualTo(before.plusSeconds(300));
  }

  @Test
  void trigger_noWebhook_saysWhyNoDelivery() {
    JsonNode data =
        PlatformClient.json(control("POST", "/_sim/trigger", "{\"type\":\"post.create\"}"))
            .get("data");

    assertThat(data.get("webhook_deliveries").asInt()).isZero();
    assertThat(data.get("no_webhook_deliveries").asText()).contains("no webhook is registered");
  }

  @Test
  void trigger_webhookInvalidated_saysWhichAndSinceWhenAndDropsAreLogged() throws IOException {
    try (PlatformSimulator platform =
            PlatformSimulator.builder()
                .localMode(true)
                .controlEndpoint(true)
                .retriesOnSimulatorClock(true)
                .build()
                .start();
        ConsumerStub consumer = ConsumerStub.start(platform.consumerSecret())) {
      String id = new PlatformClient(platform).register(consumer.url());
      consumer.deliveryStatus(503);
      platform.deliver(Events.sample("post.create", ControlHandler.DEFAULT_USER_ID));
      await().until(() -> consumer.deliveries().size() == 1);
      ListAppender<ILoggingEvent> log = capture();
      try {
        HttpResponse<String> invalidated =
            control(platform, "/_sim/faults/webhook/invalidate", "{\"webhook_id\":\"" + id + "\"}");
        assertThat(PlatformClient.json(invalidated).at("/data/invalidated/0").asText())
            .isEqualTo(id);
        // The pending retry comes due on a webhook that is invalid now: dropped, and said why.
        control(platform, "/_sim/advance", "{\"seconds\":10}");
        JsonNode data =
            PlatformClient.json(control(platform, "/_sim/trigger", "{\"type\":\"post.create\"}"))
                .get("data");

        assertThat(data.get("webhook_deliveries").asInt()).isZero();
        assertThat(data.get("no_webhook_deliveries").asText())
            .contains(
                "webhook " + id + " is invalid", "CRC check failed at", "PUT /2/webhooks/" + id);
        assertThat(platform.droppedEvents()).isEqualTo(1);
        assertThat(consumer.deliveries()).hasSize(1);
        assertThat(log.list)
            .map(ILoggingEvent::getFormattedMessage)
            .anySatisfy(
                line -> assertThat(line).contains("dropped", "webhook " + id + " is invalid"));
      } finally {
        release(log);
      }
      assertThat(
              control(platform, "/_sim/faults/webhook/invalidate", "{\"webhook_id\":\"9\"}")
                  .statusCode())
          .isEqualTo(404);
    }
  }

  private static HttpResponse<String> control(
      PlatformSimulator platform, String path, String body) {
    try {
      return HTTP.send(
          HttpRequest.newBuilder(platform.baseUrl().resolve(path))
              .timeout(Duration.ofSeconds(10))
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(body))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void goneStreamClient_notCountedByTriggerStateOrConnections() throws IOException {
    java.net.Socket socket = openStreamByHand();
    await().until(() -> simulator.openStreams().size() == 1);

    socket.close(); // the process has gone: nothing tells the simulator until it writes

    JsonNode data =
        PlatformClient.json(control("POST", "/_sim/trigger", "{\"type\":\"post.create\"}"))
            .get("data");
    assertThat(data.get("streams").asInt()).isZero();
    assertThat(PlatformClient.json(control("GET", "/_sim/state", null)).at("/data/streams"))
        .isEmpty();
    assertThat(PlatformClient.json(client.call("GET", "/2/connections", null)).get("data"))
        .isEmpty();
  }

  @Test
  void goneStreamClient_liveOneStaysCounted() {
    StreamReader live = stream();
    await().until(() -> simulator.openStreams().size() == 1);

    JsonNode data =
        PlatformClient.json(control("POST", "/_sim/trigger", "{\"type\":\"post.create\"}"))
            .get("data");

    assertThat(data.get("streams").asInt()).isEqualTo(1);
    await().until(() -> live.lines().stream().anyMatch(line -> line.contains("event_uuid")));
    assertThat(live.end()).isEqualTo(StreamReader.End.OPEN);
  }

  @Test
  void goneStreamClient_atConnectionLimit_doesNotKeepTheNextOneOut() throws IOException {
    try (PlatformSimulator limited =
        PlatformSimulator.builder().streamConnectionLimit(1).build().start()) {
      PlatformClient limitedClient = new PlatformClient(limited);
      java.net.Socket socket = openStreamByHand(limited, limitedClient.bearer());
      await().until(() -> limited.openStreams().size() == 1);
      socket.close();

      StreamReader next = StreamReader.open(limited, limitedClient.bearer(), "");
      open.add(0, next);

      assertThat(next.status()).isEqualTo(200);
      assertThat(limited.openStreams()).hasSize(1);
    }
  }

  private java.net.Socket openStreamByHand() throws IOException {
    return openStreamByHand(simulator, client.bearer());
  }

  /** A stream client that can vanish without a word, as a killed process does. */
  private static java.net.Socket openStreamByHand(PlatformSimulator simulator, String bearer)
      throws IOException {
    java.net.Socket socket =
        new java.net.Socket(simulator.baseUrl().getHost(), simulator.baseUrl().getPort());
    socket.setSoTimeout(10_000);
    socket
        .getOutputStream()
        .write(
            ("GET "
                    + StreamHandler.PATH
                    + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                    + bearer
                    + "\r\n\r\n")
                .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    byte[] head = new byte[12];
    int read = socket.getInputStream().readNBytes(head, 0, head.length);
    assertThat(new String(head, 0, read, java.nio.charset.StandardCharsets.US_ASCII))
        .isEqualTo("HTTP/1.1 200");
    return socket;
  }

  private static ListAppender<ILoggingEvent> capture() {
    Logger logger = (Logger) LoggerFactory.getLogger("io.servicehooks.testkit");
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    logger.setLevel(Level.INFO);
    return appender;
  }

  private static void release(ListAppender<ILoggingEvent> appender) {
    Logger logger = (Logger) LoggerFactory.getLogger("io.servicehooks.testkit");
    logger.detachAppender(appender);
    logger.setLevel(Level.WARN); // as logback-test.xml sets it
  }

  @Test
  void textPlainFromForeignOrigin_triggerDeliverRevoke_refusedAndNothingDone() throws IOException {
    ConsumerStub consumer = consumer();
    String bearer = client.bearer();
    String evil = "https://evil.example";
    String event = Events.sample("dm.received", ControlHandler.DEFAULT_USER_ID);

    assertThat(
            control("POST", "/_sim/trigger", "{\"type\":\"post.create\"}", "text/plain", evil)
                .statusCode())
        .isEqualTo(403);
    assertThat(control("POST", "/_sim/deliver", event, "text/plain", evil).statusCode())
        .isEqualTo(403);
    assertThat(control("POST", "/_sim/faults/token/revoke", null, "text/plain", evil).statusCode())
        .isEqualTo(403);
    // A page that sends JSON still carries its Origin: refused as well.
    HttpResponse<String> json =
        control("POST", "/_sim/trigger", "{\"type\":\"post.create\"}", "application/json", evil);
    assertThat(json.statusCode()).isEqualTo(403);
    assertThat(Json.parseOrNull(json.body().getBytes()).path("error").asText())
        .contains("web page")
        .contains("https://evil.example");

    assertThat(simulator.awaitIdle(Duration.ofSeconds(5))).isTrue();
    assertThat(consumer.deliveries()).isEmpty();
    assertThat(simulator.attempts()).isEmpty();
    assertThat(client.call("GET", "/2/webhooks", null).statusCode()).isEqualTo(200);
    assertThat(client.bearer()).isEqualTo(bearer);
  }

  @Test
  void textPlainWithoutOrigin_refused415AndNothingDone() throws IOException {
    ConsumerStub consumer = consumer();

    HttpResponse<String> plain =
        control("POST", "/_sim/trigger", "{\"type\":\"post.create\"}", "text/plain", null);
    HttpResponse<String> none = control("POST", "/_sim/faults/stream/drop", null, null, null);

    assertThat(plain.statusCode()).isEqualTo(415);
    assertThat(plain.body()).contains("application/json");
    assertThat(none.statusCode()).isEqualTo(415);
    assertThat(simulator.awaitIdle(Duration.ofSeconds(5))).isTrue();
    assertThat(consumer.deliveries()).isEmpty();
  }

  @Test
  void sameOriginAndCharset_accepted() {
    String self = "http://" + simulator.baseUrl().getAuthority();

    HttpResponse<String> response =
        control(
            "POST", "/_sim/advance", "{\"seconds\":1}", "application/json; charset=utf-8", self);

    assertThat(response.statusCode()).isEqualTo(200);
  }

  @Test
  void foreignHost_rebindingPage_refused403() throws IOException {
    // A browser sends the page's own name as Host after rebinding it to 127.0.0.1; the JDK client
    // will not set Host, so the request is written by hand.
    for (String host :
        List.of("evil.example", "127.0.0.1.evil.example", "localhost.evil.example")) {
      String answer =
          RawHttp.exchange(
              simulator.baseUrl(),
              "POST /_sim/faults/token/revoke HTTP/1.1\r\nHost: "
                  + host
                  + ":"
                  + simulator.port()
                  + "\r\nContent-Type: application/json\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      assertThat(answer).as(host).startsWith("HTTP/1.1 403");
    }
    String local =
        RawHttp.exchange(
            simulator.baseUrl(),
            "GET /_sim/state HTTP/1.1\r\nHost: localhost:"
                + simulator.port()
                + "\r\nConnection: close\r\n\r\n");
    assertThat(local).startsWith("HTTP/1.1 200");
  }

  /**
   * One request written on a socket as given, and the whole answer read until the server closes.
   */
  private static final class RawHttp {
    static String exchange(java.net.URI base, String request) throws IOException {
      try (java.net.Socket socket = new java.net.Socket(base.getHost(), base.getPort())) {
        socket.setSoTimeout(10_000);
        socket
            .getOutputStream()
            .write(request.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        return new String(
            socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
      }
    }
  }

  @Test
  void controlEndpoint_offByDefault_404() {
    try (PlatformSimulator plain = PlatformSimulator.builder().build().start()) {
      HttpResponse<String> response;
      try {
        response =
            HTTP.send(
                HttpRequest.newBuilder(plain.baseUrl().resolve("/_sim/state")).build(),
                HttpResponse.BodyHandlers.ofString());
      } catch (IOException | InterruptedException e) {
        throw new AssertionError(e);
      }
      assertThat(response.statusCode()).isEqualTo(404);
    }
  }
}
