package io.servicehooks.registration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The edges of the registration client: URLs the platform refuses that {@link URI} accepts, absurd
 * rate-limit headers, a DELETE whose first answer was lost, and answers too large to buffer. Where
 * the simulator cannot give the answer needed, a JDK {@link HttpServer} on port 0 is the far side.
 */
final class WebhookClientEdgeCasesTest {

  /** 1 MiB, the bound the client documents, written out here rather than read from the code. */
  private static final int BODY_BOUND = 1024 * 1024;

  private final ManualTime time = new ManualTime(Instant.now().truncatedTo(ChronoUnit.SECONDS));
  private final List<AutoCloseable> closeAfter = new ArrayList<>();

  @AfterEach
  void closeServers() throws Exception {
    for (AutoCloseable closeable : closeAfter) {
      closeable.close();
    }
  }

  // ------------------------------------------------------------------ URL rules

  @ParameterizedTest
  @ValueSource(
      strings = {
        "https://example.com:/hook",
        "https://example.com:",
        "https://example.com:/",
        "https://[2001:db8::1]:/hook"
      })
  void create_emptyPort_isRefusedNamingThePortRuleBeforeAnyCall(String url) throws Exception {
    FarSide farSide = farSide(exchange -> respond(exchange, 200, "{\"data\":[]}"));
    WebhookClient client = bearerClient(farSide).build();

    assertThatThrownBy(() -> client.create(url))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not have a port");
    assertThatThrownBy(() -> client.ensureRegistered(url))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not have a port");
    assertThatThrownBy(() -> WebhookClient.checkWebhookUrl(url, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not have a port");
    assertThat(farSide.requests).hasValue(0);
  }

  // ------------------------------------------------------------------ helpers

  private WebhookClient.Builder bearerClient(FarSide farSide) {
    return WebhookClient.builder()
        .baseUrl(farSide.baseUrl())
        .bearerToken("test-bearer-token")
        .clock(time)
        .sleeper(time);
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @FunctionalInterface
  private interface Handler {
    void handle(HttpExchange exchange) throws IOException;
  }

  private FarSide farSide(Handler handler) throws IOException {
    FarSide farSide = new FarSide(handler);
    closeAfter.add(farSide);
    return farSide;
  }

  /** A JDK HTTP server on a loopback port 0 answering every path with {@code handler}. */
  private static final class FarSide implements AutoCloseable {
    final AtomicInteger requests = new AtomicInteger();
    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();

    FarSide(Handler handler) throws IOException {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.createContext(
          "/",
          exchange -> {
            exchange.getRequestBody().readAllBytes();
            if (!exchange.getRequestURI().getPath().equals("/webhook")) {
              requests.incrementAndGet();
            }
            handler.handle(exchange);
          });
      server.setExecutor(executor);
      server.start();
    }

    URI baseUrl() {
      return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @Override
    public void close() {
      server.stop(0);
      executor.shutdownNow();
    }
  }

  /** A clock that moves only when the client "sleeps", so no test waits for real. */
  private static final class ManualTime extends Clock implements WebhookClient.Sleeper {
    private final AtomicReference<Instant> now;
    private final List<Duration> sleeps = new CopyOnWriteArrayList<>();

    ManualTime(Instant start) {
      now = new AtomicReference<>(start);
    }

    @Override
    public void sleep(Duration duration) {
      sleeps.add(duration);
      now.updateAndGet(t -> t.plus(duration));
    }

    List<Duration> sleeps() {
      return List.copyOf(sleeps);
    }

    @Override
    public Instant instant() {
      return now.get();
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }
}
