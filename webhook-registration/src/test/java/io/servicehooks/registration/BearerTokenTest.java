package io.servicehooks.registration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.servicehooks.registration.WebhookApiException.Reason;
import io.servicehooks.testkit.PlatformSimulator;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The app-only bearer token: fetched, cached, renewed after 401/89, invalidated, refused with
 * 403/99, never shown.
 */
final class BearerTokenTest {

  private PlatformSimulator platform;

  @BeforeEach
  void start() {
    platform = PlatformSimulator.builder().localMode(true).build().start();
  }

  @AfterEach
  void stop() {
    platform.close();
  }

  private WebhookClient client() {
    return WebhookClient.builder()
        .baseUrl(platform.baseUrl())
        .apiCredentials(platform.apiKey(), platform.apiSecret())
        .build();
  }

  /** Fetches the app's token the way the platform documents it, independent of the client. */
  private String fetchTokenIndependently() throws Exception {
    String basic =
        Base64.getEncoder()
            .encodeToString(
                (platform.apiKey() + ":" + platform.apiSecret()).getBytes(StandardCharsets.UTF_8));
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(platform.baseUrl() + "/oauth2/token"))
                    .header("Authorization", "Basic " + basic)
                    .header("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8")
                    .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    return new ObjectMapper().readTree(response.body()).get("access_token").asText();
  }

  @Test
  void list_tokenRevokedBetweenCalls_fetchesANewTokenAndRetriesOnce() throws Exception {
    WebhookClient client = client();
    client.list();
    String before = fetchTokenIndependently();
    platform.revokeToken();

    assertThat(client.list()).isEmpty();
    assertThat(fetchTokenIndependently()).isNotEqualTo(before);
  }

  @Test
  void list_givenBearerTokenRevoked_isAuthenticationErrorNamingTheCause() throws Exception {
    WebhookClient client =
        WebhookClient.builder()
            .baseUrl(platform.baseUrl())
            .bearerToken(fetchTokenIndependently())
            .build();
    assertThat(client.list()).isEmpty();
    platform.revokeToken();

    assertThatThrownBy(client::list)
        .isInstanceOfSatisfying(
            WebhookApiException.class,
            e -> {
              assertThat(e.status()).isEqualTo(401);
              assertThat(e.reason()).isEqualTo(Reason.AUTHENTICATION);
            })
        .hasMessageContaining("code 89")
        .hasMessageContaining("bearer token given was refused");
  }

  @Test
  void list_wrongApiSecret_isCredentialsError() {
    WebhookClient client =
        WebhookClient.builder()
            .baseUrl(platform.baseUrl())
            .apiCredentials(platform.apiKey(), "WrongSecretValue123")
            .build();

    assertThatThrownBy(client::list)
        .isInstanceOfSatisfying(
            WebhookApiException.class,
            e -> {
              assertThat(e.status()).isEqualTo(403);
              assertThat(e.reason()).isEqualTo(Reason.AUTHENTICATION);
              assertThat(e.reasonName()).contains("authenticity_token_error");
            })
        .hasMessageContaining("code 99")
        .hasMessageContaining("refused the API key and secret")
        .hasMessageNotContaining("WrongSecretValue123");
  }

  @Test
  void invalidateToken_cachedToken_invalidatesItAndNextCallFetchesAnother() throws Exception {
    WebhookClient client = client();
    client.list();
    String old = fetchTokenIndependently();
    WebhookClient holderOfOldToken =
        WebhookClient.builder().baseUrl(platform.baseUrl()).bearerToken(old).build();

    client.invalidateToken();

    assertThatThrownBy(holderOfOldToken::list)
        .isInstanceOfSatisfying(
            WebhookApiException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.AUTHENTICATION));
    assertThat(client.list()).isEmpty();
    assertThat(fetchTokenIndependently()).isNotEqualTo(old);
  }

  @Test
  void invalidateToken_givenBearerToken_isIllegalState() {
    WebhookClient client =
        WebhookClient.builder().baseUrl(platform.baseUrl()).bearerToken("t").build();

    assertThatThrownBy(client::invalidateToken).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void secrets_throughAWholeSession_neverReachLogsMessagesOrToString() throws Exception {
    Logger logger = (Logger) LoggerFactory.getLogger("io.servicehooks.registration");
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    List<String> texts = new ArrayList<>();
    try {
      WebhookClient.Builder builder =
          WebhookClient.builder()
              .baseUrl(platform.baseUrl())
              .apiCredentials(platform.apiKey(), platform.apiSecret());
      WebhookClient client = builder.build();
      client.list();
      platform.revokeToken();
      client.list();
      client.invalidateToken();
      client.list();
      texts.add(builder.toString());
      texts.add(client.toString());
      WebhookClient withToken =
          WebhookClient.builder()
              .baseUrl(platform.baseUrl())
              .bearerToken(fetchTokenIndependently())
              .build();
      texts.add(withToken.toString());
      platform.revokeToken();
      try {
        withToken.list();
      } catch (WebhookApiException e) {
        texts.add(e.getMessage());
        texts.add(e.toString());
        texts.add(e.body());
      }
      WebhookClient wrong =
          WebhookClient.builder()
              .baseUrl(platform.baseUrl())
              .apiCredentials(platform.apiKey(), platform.apiSecret() + "x")
              .build();
      try {
        wrong.list();
      } catch (WebhookApiException e) {
        texts.add(e.getMessage());
        texts.add(e.toString());
      }
    } finally {
      logger.detachAppender(appender);
    }
    appender.list.forEach(event -> texts.add(event.getFormattedMessage()));
    String token = fetchTokenIndependently();

    assertThat(appender.list).isNotEmpty();
    assertThat(texts)
        .noneMatch(text -> text.contains(platform.apiSecret()))
        .noneMatch(text -> text.contains(token))
        .noneMatch(text -> text.contains("AAAAAAAAAAAAAAAAAAAA"))
        .noneMatch(
            text ->
                text.contains(BasicCredentials.encode(platform.apiKey(), platform.apiSecret())));
  }

  @Test
  void current_manyThreadsAtOnce_fetchTheTokenOnce() throws Exception {
    AtomicInteger tokenRequests = new AtomicInteger();
    CountDownLatch release = new CountDownLatch(1);
    HttpServer stub =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    ExecutorService serverThreads = Executors.newCachedThreadPool();
    stub.setExecutor(serverThreads);
    stub.createContext(
        "/oauth2/token",
        exchange -> {
          tokenRequests.incrementAndGet();
          awaitQuietly(release);
          respond(exchange, "{\"token_type\":\"bearer\",\"access_token\":\"AAAA%2Fstub%3D\"}");
        });
    stub.createContext(
        "/2/webhooks",
        exchange -> respond(exchange, "{\"data\":[],\"meta\":{\"result_count\":0}}"));
    stub.start();
    ExecutorService callers = Executors.newFixedThreadPool(8);
    try {
      WebhookClient client =
          WebhookClient.builder()
              .baseUrl(URI.create("http://127.0.0.1:" + stub.getAddress().getPort()))
              .apiCredentials("key", "secret")
              .build();
      List<Future<List<Webhook>>> results = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        results.add(callers.submit(client::list));
      }
      // all eight callers are inside the client (one fetching, seven waiting) before the token
      // arrives
      await()
          .atMost(Duration.ofSeconds(5))
          .until(
              () ->
                  tokenRequests.get() == 1 && ((ThreadPoolExecutor) callers).getActiveCount() == 8);
      release.countDown();

      for (Future<List<Webhook>> result : results) {
        assertThat(result.get(5, TimeUnit.SECONDS)).isEmpty();
      }
      assertThat(tokenRequests).hasValue(1);
    } finally {
      release.countDown();
      callers.shutdownNow();
      stub.stop(0);
      serverThreads.shutdownNow();
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void respond(HttpExchange exchange, String body) throws IOException {
    exchange.getRequestBody().readAllBytes();
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }
}
