package io.servicehooks.undertow;

import static io.servicehooks.undertow.Http.envelope;
import static io.servicehooks.undertow.Http.hmac;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookEvent;
import io.undertow.Handlers;
import io.undertow.Undertow;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Clients that misbehave on purpose, over raw sockets against a real Undertow on port 0: each must
 * be cut within its (short, configured) time-out and never cost the server more than a small
 * buffer.
 */
final class WebhookServerHostileClientTest {

  private static final String SECRET = "current-consumer-secret";

  /** Longest any client here waits for the server to do something: well above every time-out. */
  private static final int CLIENT_WAIT_MILLIS = 10_000;

  private final List<WebhookEvent> seen = new CopyOnWriteArrayList<>();
  private final List<WebhookServer> servers = new ArrayList<>();
  private final List<Socket> sockets = new ArrayList<>();

  private WebhookConsumer consumer() {
    return WebhookConsumer.builder().consumerSecrets(SECRET).onAny(seen::add).build();
  }

  private WebhookServer.Builder server() {
    return WebhookServer.builder(consumer()).host("127.0.0.1").port(0);
  }

  private WebhookServer start(WebhookServer.Builder builder) {
    WebhookServer server = builder.build().start();
    servers.add(server);
    return server;
  }

  private Socket connect(WebhookServer server) throws IOException {
    Socket socket = new Socket("127.0.0.1", server.port());
    socket.setSoTimeout(CLIENT_WAIT_MILLIS);
    sockets.add(socket);
    return socket;
  }

  @AfterEach
  void stop() {
    for (Socket socket : sockets) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // already gone
      }
    }
    servers.forEach(WebhookServer::close);
  }

  private static String headers(int contentLength, String signature) {
    return "POST /webhooks HTTP/1.1\r\n"
        + "Host: 127.0.0.1\r\n"
        + "Content-Type: application/json\r\n"
        + "x-service-webhooks-signature: "
        + signature
        + "\r\n"
        + "Content-Length: "
        + contentLength
        + "\r\n\r\n";
  }

  private static void write(Socket socket, String text) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write(text.getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
  }

  /**
   * Reads until the server closes the connection, and returns what it sent; fails if it is still
   * open after {@link #CLIENT_WAIT_MILLIS}.
   */
  private static String readUntilClosed(Socket socket) throws IOException {
    ByteArrayOutputStream received = new ByteArrayOutputStream();
    InputStream in = socket.getInputStream();
    byte[] buffer = new byte[1024];
    try {
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        received.write(buffer, 0, n);
      }
    } catch (SocketTimeoutException stillOpen) {
      throw new AssertionError(
          "connection still open after " + CLIENT_WAIT_MILLIS + " ms; received: " + received);
    } catch (IOException reset) {
      // A reset is as good as an EOF: the server let go of the connection.
    }
    return received.toString(StandardCharsets.ISO_8859_1);
  }

  @Test
  void stalledBody_connectionClosedByReadTimeout() throws Exception {
    WebhookServer server = start(server().readTimeout(Duration.ofSeconds(1)));
    Socket socket = connect(server);
    write(socket, headers(1024 * 1024, "sha256=bogus") + "{\"data\":");

    readUntilClosed(socket);
    assertThat(seen).isEmpty();
    await().atMost(Duration.ofSeconds(5)).until(() -> server.unfinishedBodies() == 0);
  }

  @Test
  void bodyTricklingLongerThanTheReadTimeoutButNeverSilentThatLong_answered200() throws Exception {
    WebhookServer server = start(server().readTimeout(Duration.ofSeconds(1)));
    byte[] body = envelope("trickled", "post.create").getBytes(StandardCharsets.UTF_8);
    Socket socket = connect(server);
    write(socket, headers(body.length, hmac(SECRET, body)));
    OutputStream out = socket.getOutputStream();
    int pieces = 5;
    int step = (body.length + pieces - 1) / pieces;
    long started = System.nanoTime();
    for (int from = 0; from < body.length; from += step) {
      Thread.sleep(350); // each gap well under the time-out, all of them together well over it
      out.write(body, from, Math.min(step, body.length - from));
      out.flush();
    }

    assertThat(System.nanoTime() - started).isGreaterThan(TimeUnit.MILLISECONDS.toNanos(1_500));
    assertThat(readStatusLine(socket)).startsWith("HTTP/1.1 200");
    assertThat(seen).extracting(WebhookEvent::id).containsExactly("trickled");
    assertThat(server.unfinishedBodies()).isZero();
  }

  @Test
  void handlerInUsersOwnUndertow_stalledBodyClosedAfterTheDefaultReadTimeout() throws Exception {
    // No socket or server option of the user's: the handler bounds a silent body itself.
    Undertow undertow =
        Undertow.builder()
            .addHttpListener(0, "127.0.0.1")
            .setHandler(Handlers.path().addExactPath("/webhooks", new WebhookHandler(consumer())))
            .build();
    undertow.start();
    try {
      int port = ((InetSocketAddress) undertow.getListenerInfo().get(0).getAddress()).getPort();
      Socket socket = new Socket("127.0.0.1", port);
      socket.setSoTimeout(CLIENT_WAIT_MILLIS);
      sockets.add(socket);
      long started = System.nanoTime();
      write(socket, headers(1000, "sha256=bogus") + "{\"data\":");

      readUntilClosed(socket);
      assertThat(System.nanoTime() - started)
          .isGreaterThanOrEqualTo(WebhookServer.DEFAULT_READ_TIMEOUT.toNanos());
      assertThat(seen).isEmpty();
    } finally {
      undertow.stop();
    }
  }

  private final CountDownLatch listenerStarted = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);

  /** A server whose listener holds every delivery's answer until {@link #release} opens. */
  private WebhookServer serverHoldingAnswers() {
    WebhookConsumer holding =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .onAny(
                event -> {
                  listenerStarted.countDown();
                  if (!release.await(CLIENT_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                    throw new AssertionError("never released");
                  }
                  seen.add(event);
                })
            .build();
    return start(WebhookServer.builder(holding).host("127.0.0.1").port(0));
  }

  private static String signedRequest(String eventId) {
    String body = envelope(eventId, "post.create");
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    return headers(bytes.length, hmac(SECRET, bytes)) + body;
  }

  /** Sends a signed delivery of {@code eventId} on a new connection and waits until it is held. */
  private Socket sendHeld(WebhookServer server, String eventId) throws Exception {
    Socket socket = connect(server);
    write(socket, signedRequest(eventId));
    assertThat(listenerStarted.await(CLIENT_WAIT_MILLIS, TimeUnit.MILLISECONDS)).isTrue();
    return socket;
  }

  @Test
  void secondRequestPipelinedWhileTheFirstAnswerWaits_bothAnsweredInOrder() throws Exception {
    Socket socket = sendHeld(serverHoldingAnswers(), "first");
    // The second request arrives while the first one's answer waits for its listener.
    write(socket, signedRequest("second"));
    Thread.sleep(200);
    release.countDown();

    assertThat(readStatusLine(socket)).startsWith("HTTP/1.1 200");
    assertThat(readStatusLine(socket)).startsWith("HTTP/1.1 200");
    assertThat(seen).extracting(WebhookEvent::id).containsExactly("first", "second");
  }

  @Test
  void clientGoneWhileItsAnswerWaits_eventKeptAndServerStillAnswers() throws Exception {
    WebhookServer server = serverHoldingAnswers();
    sendHeld(server, "left").close();
    Thread.sleep(200);
    release.countDown();

    await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 1);
    Socket next = connect(server);
    write(next, signedRequest("next"));
    assertThat(readStatusLine(next)).startsWith("HTTP/1.1 200");
    assertThat(seen).extracting(WebhookEvent::id).containsExactly("left", "next");
  }

  @Test
  void twoHundredStalledBodiesDeclaringOneMiB_heapGrowsLittleAndAllClosed() throws Exception {
    // The read time-out must outlast opening all 200 connections on a loaded machine, or the first
    // ones are closed before the last is open; it stays below the client's own wait.
    WebhookServer server = start(server().readTimeout(Duration.ofSeconds(5)));
    long before = usedHeap();
    List<Socket> stalled = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      Socket socket = connect(server);
      write(socket, headers(1024 * 1024, "sha256=bogus"));
      stalled.add(socket);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> server.unfinishedBodies() == 200);
    long growth = usedHeap() - before;

    // Sized from Content-Length this was 200 MiB; growing as bytes arrive it is about 16 KiB each.
    assertThat(growth).isLessThan(64L * 1024 * 1024);
    for (Socket socket : stalled) {
      readUntilClosed(socket);
    }
    assertThat(seen).isEmpty();
  }

  private static long usedHeap() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  @Test
  void listenerSlowerThanReadTimeout_stillAnswered200() throws Exception {
    WebhookServer server =
        start(
            WebhookServer.builder(
                    WebhookConsumer.builder()
                        .consumerSecrets(SECRET)
                        .onAny(
                            e -> {
                              Thread.sleep(2_000); // a listener's own work, past the time-out
                              seen.add(e);
                            })
                        .build())
                .host("127.0.0.1")
                .port(0)
                .readTimeout(Duration.ofSeconds(1)));
    String json = envelope("1", "post.create");
    URI uri = URI.create("http://127.0.0.1:" + server.port() + "/webhooks");

    assertThat(Http.postSigned(uri, SECRET, json).statusCode()).isEqualTo(200);
    assertThat(seen).hasSize(1);
  }

  @Test
  void headersTrickledOneByteAtATime_connectionClosedByParseTimeout() throws Exception {
    WebhookServer server =
        start(
            server()
                .requestParseTimeout(Duration.ofSeconds(1))
                .readTimeout(Duration.ofSeconds(30))
                .idleTimeout(Duration.ofSeconds(30)));
    Socket socket = connect(server);
    byte[] request = headers(10, "sha256=bogus").getBytes(StandardCharsets.ISO_8859_1);
    CompletableFuture<Void> trickle =
        CompletableFuture.runAsync(
            () -> {
              try {
                OutputStream out = socket.getOutputStream();
                for (byte b : request) {
                  out.write(b);
                  out.flush();
                  Thread.sleep(200); // the client's own pace, well inside the read time-out
                }
              } catch (IOException | InterruptedException cut) {
                // the server closed the connection: what this test wants
              }
            });

    readUntilClosed(socket);
    socket.close();
    trickle.get(CLIENT_WAIT_MILLIS, TimeUnit.MILLISECONDS);
    assertThat(seen).isEmpty();
  }

  @Test
  void headersOverMaxHeaderBytes_refusedAndClosed() throws Exception {
    WebhookServer server = start(server().maxHeaderBytes(2048));
    Socket socket = connect(server);
    write(
        socket,
        "GET /webhooks?crc_token=abc HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: "
            + "a".repeat(8192)
            + "\r\n\r\n");

    String answer = readUntilClosed(socket);
    assertThat(answer)
        .satisfiesAnyOf(
            a -> assertThat(a).isEmpty(), a -> assertThat(a).matches("(?s)HTTP/1\\.1 4(00|31) .*"));
  }

  @Test
  void connectionOverMaxConnections_waitsUntilOneCloses() throws Exception {
    WebhookServer server = start(server().maxConnections(2));
    String crc = "GET /webhooks?crc_token=abc HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    Socket first = connect(server);
    Socket second = connect(server);
    for (Socket served : List.of(first, second)) {
      write(served, crc);
      assertThat(readStatusLine(served)).startsWith("HTTP/1.1 200");
    }

    Socket third = connect(server);
    write(third, crc);
    third.setSoTimeout(500);
    assertThatThrownBy(() -> third.getInputStream().read())
        .isInstanceOf(SocketTimeoutException.class);

    first.close();
    third.setSoTimeout(CLIENT_WAIT_MILLIS);
    assertThat(readStatusLine(third)).startsWith("HTTP/1.1 200");
  }

  @Test
  void close_withClientStalledMidBody_returnsWellBeforeTheDrainTimeOut() throws Exception {
    WebhookServer server =
        start(server().readTimeout(Duration.ofSeconds(60)).shutdownTimeout(Duration.ofSeconds(60)));
    Socket socket = connect(server);
    write(socket, headers(1000, "sha256=bogus") + "{\"data\":");
    await().atMost(Duration.ofSeconds(5)).until(() -> server.unfinishedBodies() == 1);

    CompletableFuture.runAsync(server::close).get(10, TimeUnit.SECONDS);
    readUntilClosed(socket);
  }

  @Test
  void bodyDeclaredLargeArrivingInChunks_verifiedAndDispatched() throws Exception {
    WebhookServer server = start(server());
    String json = envelope("1", "post.create");
    String padded =
        json.substring(0, json.length() - 1) + ",\"pad\":\"" + "x".repeat(100_000) + "\"}";
    byte[] body = padded.getBytes(StandardCharsets.UTF_8);
    Socket socket = connect(server);
    write(socket, headers(body.length, hmac(SECRET, body)));
    OutputStream out = socket.getOutputStream();
    for (int from = 0; from < body.length; from += 7_000) {
      out.write(body, from, Math.min(7_000, body.length - from));
      out.flush();
      Thread.sleep(5); // the client's own pace, so the body arrives in several reads
    }

    assertThat(readStatusLine(socket)).startsWith("HTTP/1.1 200");
    assertThat(seen).extracting(WebhookEvent::id).containsExactly("1");
  }

  @Test
  void bodyDeclaredOverLimit_413BeforeAnyByteIsRead() throws Exception {
    WebhookServer server =
        start(
            WebhookServer.builder(
                    WebhookConsumer.builder()
                        .consumerSecrets(SECRET)
                        .maxBodyBytes(2048)
                        .onAny(seen::add)
                        .build())
                .host("127.0.0.1")
                .port(0));
    Socket socket = connect(server);
    write(socket, headers(2049, "sha256=bogus"));

    assertThat(readStatusLine(socket)).startsWith("HTTP/1.1 413");
    readUntilClosed(socket);
    assertThat(seen).isEmpty();
  }

  @Test
  void builder_outOfRangeLimits_refusedNamingTheValue() {
    WebhookServer.Builder builder = server();
    assertThatThrownBy(() -> builder.readTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("readTimeout")
        .hasMessageContaining("PT0S");
    assertThatThrownBy(() -> builder.requestParseTimeout(Duration.ofSeconds(-1)))
        .hasMessageContaining("requestParseTimeout");
    assertThatThrownBy(() -> builder.idleTimeout(null)).hasMessageContaining("idleTimeout");
    assertThatThrownBy(() -> builder.maxHeaderBytes(100))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxHeaderBytes")
        .hasMessageContaining("100");
    assertThatThrownBy(() -> builder.maxConnections(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxConnections must be positive, was 0");
  }

  private static String readStatusLine(Socket socket) throws IOException {
    InputStream in = socket.getInputStream();
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) {
        throw new IOException("connection closed before a status line: " + line);
      }
      line.write(b);
    }
    String status = line.toString(StandardCharsets.ISO_8859_1).trim();
    // Consume the rest of the response so the connection can carry another.
    int contentLength = 0;
    for (String header = headerLine(in); !header.isEmpty(); header = headerLine(in)) {
      if (header.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
        contentLength = Integer.parseInt(header.substring(15).trim());
      }
    }
    in.readNBytes(contentLength);
    return status;
  }

  private static String headerLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) {
        throw new IOException("connection closed mid-header: " + line);
      }
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.ISO_8859_1);
  }
}
