package io.servicehooks.registration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.servicehooks.registration.WebhookApiException.Reason;
import io.servicehooks.testkit.Fault;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testkit.TestSigner;
import io.servicehooks.testsupport.FakeClock;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.ThrowingSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The edges of the registration client: URLs the platform refuses that {@link URI} accepts, absurd
 * rate-limit headers, a DELETE whose first answer was lost, and answers too large to buffer. Where
 * the simulator cannot give the answer needed, a JDK {@link HttpServer} on port 0 is the far side.
 */
final class WebhookClientEdgeCasesTest {

  /** 1 MiB, the bound the client documents, written out here rather than read from the code. */
  private static final int BODY_BOUND = 1024 * 1024;

  private final FakeClock time = FakeClock.at(Instant.now().truncatedTo(ChronoUnit.SECONDS));
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

  // ------------------------------------------------------------------ rate-limit headers

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "x-rate-limit-reset | 99999999999999999",
        "x-rate-limit-reset | 999999999999999999999999",
        "retry-after        | 99999999999999999",
        "retry-after        | 9223372036854775807",
        "retry-after        | 999999999999999999999999"
      })
  void list_429AskingForAWaitBeyondAnyClock_isRateLimitedAtOnce(String header, String value)
      throws Exception {
    FarSide farSide = farSide(exchange -> rateLimited(exchange, header, value));

    WebhookApiException e = apiFailure(() -> bearerClient(farSide).build().list());

    assertThat(e.status()).isEqualTo(429);
    assertThat(e.reason()).isEqualTo(Reason.RATE_LIMITED);
    assertThat(e.rateLimitReset()).isEmpty();
    assertThat(time.sleeps()).isEmpty();
    assertThat(farSide.requests).hasValue(1);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "x-rate-limit-reset | -5",
        "x-rate-limit-reset | -99999999999999999",
        "x-rate-limit-reset | soon",
        "x-rate-limit-reset | 1.5e9",
        "retry-after        | -5",
        "retry-after        | -99999999999999999",
        "retry-after        | garbage",
        "retry-after        | +30",
        "retry-after        | 'Sat, 01 Jan 99999 00:00:00 GMT'"
      })
  void list_429WithUnreadableWait_ignoresItAndBacksOffUntilRateLimited(String header, String value)
      throws Exception {
    FarSide farSide = farSide(exchange -> rateLimited(exchange, header, value));

    WebhookApiException e = apiFailure(() -> bearerClient(farSide).build().list());

    assertThat(e.status()).isEqualTo(429);
    assertThat(e.reason()).isEqualTo(Reason.RATE_LIMITED);
    assertThat(e.rateLimitReset()).isEmpty();
    assertThat(time.sleeps())
        .containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4));
    assertThat(farSide.requests).hasValue(4);
  }

  @Test
  void list_429WithRetryAfterDateFarAhead_isRateLimitedAtOnceWithThatDate() throws Exception {
    FarSide farSide =
        farSide(exchange -> rateLimited(exchange, "retry-after", "Fri, 31 Dec 9999 23:59:59 GMT"));

    WebhookApiException e = apiFailure(() -> bearerClient(farSide).build().list());

    assertThat(e.reason()).isEqualTo(Reason.RATE_LIMITED);
    assertThat(e.rateLimitReset()).contains(Instant.parse("9999-12-31T23:59:59Z"));
    assertThat(time.sleeps()).isEmpty();
  }

  @Test
  void list_429WithSaneRetryAfter_waitsThatLongAndRetries() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    FarSide farSide =
        farSide(
            exchange -> {
              if (calls.incrementAndGet() == 1) {
                rateLimited(exchange, "retry-after", "7");
              } else {
                respond(exchange, 200, "{\"data\":[]}");
              }
            });

    assertThat(bearerClient(farSide).build().list()).isEmpty();
    assertThat(time.sleeps()).containsExactly(Duration.ofSeconds(7));
  }

  @Test
  void list_429ResetAtTheLastInstantWithUnboundedMaxRetryWait_waitsWithoutOverflow()
      throws Exception {
    String lastEpochSecond = String.valueOf(Instant.MAX.getEpochSecond());
    AtomicInteger calls = new AtomicInteger();
    FarSide farSide =
        farSide(
            exchange -> {
              if (calls.incrementAndGet() == 1) {
                rateLimited(exchange, "x-rate-limit-reset", lastEpochSecond);
              } else {
                respond(exchange, 200, "{\"data\":[]}");
              }
            });
    WebhookClient client =
        bearerClient(farSide).maxRetryWait(Duration.ofSeconds(Long.MAX_VALUE)).build();
    Instant start = time.instant();

    assertThat(client.list()).isEmpty();
    assertThat(time.sleeps())
        .containsExactly(
            Duration.between(start, Instant.ofEpochSecond(Instant.MAX.getEpochSecond())));
  }

  // ------------------------------------------------------------------ DELETE with a lost answer

  @Test
  void delete_answerLostAs5xxAfterApplying_countsAsDeleted() throws Exception {
    Registered registered = registeredWebhook();
    registered.platform.enqueueFault(Fault.dropResponseAfterApplying());

    assertThat(registered.client.delete(registered.webhook.id())).isTrue();
    assertThat(registered.client.list()).isEmpty();
    assertThat(time.sleeps()).hasSize(1);
  }

  @Test
  void delete_connectionDroppedAfterApplying_countsAsDeleted() throws Exception {
    Registered registered = registeredWebhook();
    registered.platform.enqueueFault(Fault.closeConnectionAfterApplying());

    assertThat(registered.client.delete(registered.webhook.id())).isTrue();
    assertThat(registered.client.list()).isEmpty();
  }

  @Test
  void delete_unknownIdOnFirstAttempt_isWebhookIdInvalid() throws Exception {
    Registered registered = registeredWebhook();

    WebhookApiException e = apiFailure(() -> registered.client.delete("1234567890"));

    assertThat(e.reason()).isEqualTo(Reason.WEBHOOK_ID_INVALID);
    assertThat(registered.client.list()).containsExactly(registered.webhook);
  }

  @Test
  void delete_rateLimitedThenUnknownId_isWebhookIdInvalid() throws Exception {
    Registered registered = registeredWebhook();
    registered.platform.enqueueFault(Fault.rateLimited(time.instant().plusSeconds(2)));

    WebhookApiException e = apiFailure(() -> registered.client.delete("1234567890"));

    assertThat(e.reason()).isEqualTo(Reason.WEBHOOK_ID_INVALID);
    assertThat(time.sleeps()).containsExactly(Duration.ofSeconds(2));
  }

  @Test
  void delete_platformUnreachable_isConnectExceptionAfterBoundedRetries() {
    WebhookClient client =
        WebhookClient.builder()
            .baseUrl(URI.create("http://127.0.0.1:9"))
            .bearerToken("test-bearer-token")
            .clock(time)
            .sleeper(time::sleep)
            .build();

    assertThatThrownBy(() -> client.delete("1234567890")).isInstanceOf(ConnectException.class);
    assertThat(time.sleeps())
        .containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4));
  }

  @Test
  void delete_answerLostWithoutRetriesAllowed_isTheLostAnswer() throws Exception {
    Registered registered = registeredWebhook(0);
    registered.platform.enqueueFault(Fault.dropResponseAfterApplying());

    WebhookApiException e = apiFailure(() -> registered.client.delete(registered.webhook.id()));

    assertThat(e.status()).isEqualTo(503);
  }

  // ------------------------------------------------------------------ bounded bodies

  @Test
  void list_streamedBodyBeyondTheBound_failsSayingTooLargeWithoutReadingItAll() throws Exception {
    long streamed = 64L * BODY_BOUND;
    CompletableFuture<Long> written = new CompletableFuture<>();
    FarSide farSide = farSide(exchange -> stream(exchange, 0, streamed, written));

    assertThatThrownBy(() -> bearerClient(farSide).build().list())
        .isInstanceOf(IOException.class)
        .hasMessageContaining("larger than " + BODY_BOUND + " bytes");
    // the client hung up: the far side's writes failed long before the whole body was out
    assertThat(written.get(30, TimeUnit.SECONDS)).isLessThan(streamed);
  }

  @Test
  void list_declaredLengthBeyondTheBound_failsSayingTooLarge() throws Exception {
    long declared = 8L * BODY_BOUND;
    CompletableFuture<Long> written = new CompletableFuture<>();
    FarSide farSide = farSide(exchange -> stream(exchange, declared, declared, written));

    assertThatThrownBy(() -> bearerClient(farSide).build().list())
        .isInstanceOf(IOException.class)
        .hasMessageContaining("larger than " + BODY_BOUND + " bytes");
  }

  @Test
  void list_errorBodyBeyondTheBound_failsSayingTooLarge() throws Exception {
    CompletableFuture<Long> written = new CompletableFuture<>();
    FarSide farSide =
        farSide(
            exchange -> {
              exchange.getResponseHeaders().set("Content-Type", "application/json");
              exchange.sendResponseHeaders(400, 0);
              writeUntilRefused(exchange, 16L * BODY_BOUND, written);
            });

    assertThatThrownBy(() -> bearerClient(farSide).build().list())
        .isInstanceOf(IOException.class)
        .hasMessageContaining("larger than " + BODY_BOUND + " bytes");
  }

  @Test
  void list_bodyOfExactlyTheBound_isRead() throws Exception {
    String json = "{\"data\":[]}";
    String body = json + " ".repeat(BODY_BOUND - json.length());
    FarSide farSide = farSide(exchange -> respond(exchange, 200, body));

    assertThat(bearerClient(farSide).build().list()).isEmpty();
  }

  @Test
  void tokenFetch_bodyBeyondTheBound_failsSayingTooLarge() throws Exception {
    CompletableFuture<Long> written = new CompletableFuture<>();
    FarSide farSide = farSide(exchange -> stream(exchange, 0, 16L * BODY_BOUND, written));
    WebhookClient client =
        WebhookClient.builder()
            .baseUrl(farSide.baseUrl())
            .apiCredentials("key", "secret")
            .clock(time)
            .sleeper(time::sleep)
            .build();

    assertThatThrownBy(client::list)
        .isInstanceOf(IOException.class)
        .hasMessageContaining("larger than " + BODY_BOUND + " bytes");
    assertThat(farSide.requests).hasValue(1);
  }

  // ------------------------------------------------------------------ helpers

  private WebhookClient.Builder bearerClient(FarSide farSide) {
    return WebhookClient.builder()
        .baseUrl(farSide.baseUrl())
        .bearerToken("test-bearer-token")
        .clock(time)
        .sleeper(time::sleep);
  }

  private static WebhookApiException apiFailure(ThrowingSupplier<?> call) {
    try {
      call.get();
    } catch (WebhookApiException e) {
      return e;
    } catch (Throwable other) {
      throw new AssertionError("expected a WebhookApiException but got " + other, other);
    }
    throw new AssertionError("expected a WebhookApiException but the call succeeded");
  }

  private record Registered(PlatformSimulator platform, WebhookClient client, Webhook webhook) {}

  private Registered registeredWebhook() throws Exception {
    return registeredWebhook(3);
  }

  /** The simulator with one webhook registered, its CRC answered by a consumer on port 0. */
  private Registered registeredWebhook(int maxRetries) throws Exception {
    PlatformSimulator platform = PlatformSimulator.builder().localMode(true).build().start();
    closeAfter.add(platform);
    String secret = platform.consumerSecret();
    FarSide consumer = farSide(exchange -> answerCrc(exchange, secret));
    WebhookClient client =
        WebhookClient.builder()
            .baseUrl(platform.baseUrl())
            .apiCredentials(platform.apiKey(), platform.apiSecret())
            .allowInsecureUrls(true)
            .maxRetries(maxRetries)
            .clock(time)
            .sleeper(time::sleep)
            .build();
    Webhook webhook = client.create(consumer.baseUrl() + "/webhook");
    return new Registered(platform, client, webhook);
  }

  private static void answerCrc(HttpExchange exchange, String consumerSecret) throws IOException {
    String query = exchange.getRequestURI().getRawQuery();
    String token = null;
    for (String pair : query == null ? new String[0] : query.split("&")) {
      if (pair.startsWith("crc_token=")) {
        token = URLDecoder.decode(pair.substring("crc_token=".length()), StandardCharsets.UTF_8);
      }
    }
    if (token == null) {
      respond(exchange, 400, "{}");
      return;
    }
    respond(exchange, 200, TestSigner.crcResponse(consumerSecret, token));
  }

  private static void rateLimited(HttpExchange exchange, String header, String value)
      throws IOException {
    exchange.getResponseHeaders().set("x-rate-limit-remaining", "0");
    exchange.getResponseHeaders().set(header, value);
    respond(
        exchange,
        429,
        "{\"title\":\"Too Many Requests\",\"detail\":\"Too Many Requests\",\"type\":\"about:blank\"}");
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /**
   * Answers 200 with {@code total} bytes of a JSON-looking body, declaring {@code declared} as its
   * length (0: chunked), and completes {@code written} with what went out before the client hung
   * up.
   */
  private static void stream(
      HttpExchange exchange, long declared, long total, CompletableFuture<Long> written)
      throws IOException {
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, declared);
    writeUntilRefused(exchange, total, written);
  }

  private static void writeUntilRefused(
      HttpExchange exchange, long total, CompletableFuture<Long> written) {
    byte[] chunk = new byte[64 * 1024];
    java.util.Arrays.fill(chunk, (byte) ' ');
    chunk[0] = '[';
    long sent = 0;
    OutputStream out = exchange.getResponseBody();
    try {
      while (sent < total) {
        int n = (int) Math.min(chunk.length, total - sent);
        out.write(chunk, 0, n);
        chunk[0] = ' ';
        sent += n;
      }
      out.close();
    } catch (IOException clientHungUp) {
      // expected when the client stops reading
    } finally {
      written.complete(sent);
      exchange.close();
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
}
