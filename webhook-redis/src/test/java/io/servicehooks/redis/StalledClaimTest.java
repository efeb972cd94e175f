package io.servicehooks.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.testkit.DeliveryAttempt;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testsupport.TestRedis;
import io.servicehooks.undertow.WebhookServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A claim that timed out on the client still runs when Redis catches up ({@code SET NX PX} for an
 * owner that gave up). Left alone, the key would hold {@code c:<token>} for a whole lease and every
 * retry of the platform would be answered 503 {@code in_flight}; the store releases the token it
 * generated, so the first retry after the stall runs the event.
 *
 * <p>The stall is a {@link WritesPause} on a Redis the test starts itself: scripts sent meanwhile
 * wait in the server and run, in order, when the test ends the pause. The platform is the simulator
 * with its retries on its own clock (3 s, 27 s, 242 s), against a real server on port 0.
 */
final class StalledClaimTest {

  private static final Pattern EVENT_UUID = Pattern.compile("\"event_uuid\":\"([^\"]+)\"");

  private final TestRedis.OwnServer redis = TestRedis.startOwnServer();
  private final RedisClient adminClient = RedisClient.create(redis.url());
  private final StatefulRedisConnection<String, String> admin = adminClient.connect();
  private final AtomicInteger runs = new AtomicInteger();
  private final PlatformSimulator platform =
      PlatformSimulator.builder()
          .localMode(true)
          .consumerSecret("consumer-secret-stall")
          .retriesOnSimulatorClock(true)
          .deliveryTimeout(Duration.ofSeconds(5))
          .clock(Clock.fixed(Instant.parse("2026-03-18T10:00:00Z"), ZoneOffset.UTC))
          .build()
          .start();
  private RedisDeduplicator store;
  private WebhookServer server;

  private void serve(Duration commandTimeout, Duration dedupTimeout) {
    store =
        RedisDeduplicator.builder(redis.url())
            .prefix("stall")
            .commandTimeout(commandTimeout)
            .build();
    server =
        WebhookServer.builder(
                WebhookConsumer.builder()
                    .consumerSecrets("consumer-secret-stall")
                    .deduplicator(store)
                    .dedupTimeout(dedupTimeout)
                    .inFlightWait(Duration.ofMillis(300))
                    .onAny(event -> runs.incrementAndGet())
                    .build())
            .host("127.0.0.1")
            .port(0)
            .shutdownTimeout(Duration.ofSeconds(2))
            .build()
            .start();
  }

  @AfterEach
  void tearDown() {
    platform.close();
    if (server != null) {
      server.close();
      store.close();
    }
    admin.close();
    adminClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    redis.close();
  }

  /**
   * Either side may give up first: the store's command time-out (300 ms, under the consumer's 1 s)
   * or the consumer's dedup time-out (300 ms, under the store's 3 s, whose claim then succeeds when
   * the pause ends). Both leave no claim behind.
   */
  @ParameterizedTest(name = "command time-out {0} ms, dedup time-out {1} ms")
  @CsvSource({"300, 1000", "3000, 300"})
  void claimTimedOutDuringStall_runsWhenRedisCatchesUp_retryAfterStallRunsTheEvent(
      long commandTimeoutMillis, long dedupTimeoutMillis) throws Exception {
    serve(Duration.ofMillis(commandTimeoutMillis), Duration.ofMillis(dedupTimeoutMillis));
    register();
    String body =
        Events.activity(
            "post.create",
            "2244994945",
            java.util.Map.of(
                "id", "1877", "text", "sent while Redis stalls", "author_id", "783214"));
    String key = store.redisKey("e:" + eventUuid(body));

    // the scripts are cached, as on a Redis that has served (else EVALSHA would find none)
    store.claim("e:warm-up", Duration.ofSeconds(30)).toCompletableFuture().get();

    long scriptsBefore = WritesPause.scriptsRun(admin);
    WritesPause.start(admin);
    platform.deliver(body);

    // the first attempt: the claim times out on the client, 503 dedup_unavailable
    Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> platform.attempts().size() == 1 && platform.attempts().get(0).status() != 0);
    assertThat(platform.attempts().get(0).status()).isEqualTo(503);
    assertThat(platform.attempts().get(0).body()).isEqualTo(body);

    // the pause ends: the claim Redis held runs now, and the release sent after it
    WritesPause.end(admin);
    Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () ->
                WritesPause.scriptsRun(admin) >= scriptsBefore + 2
                    && !String.valueOf(admin.sync().get(key)).startsWith("c:"));

    platform.advance(Duration.ofSeconds(3)); // the platform's first retry

    List<DeliveryAttempt> attempts = platform.attempts();
    assertThat(attempts).hasSize(2);
    assertThat(attempts.get(1).status())
        .as("the retry after the stall, not 503 in_flight for a whole lease")
        .isEqualTo(200);
    assertThat(runs).hasValue(1);
    assertThat(admin.sync().get(key)).isEqualTo("d");

    platform.advance(Duration.ofMinutes(5)); // nothing left to retry
    assertThat(platform.attempts()).hasSize(2);
    assertThat(runs).hasValue(1);
  }

  private void register() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    String url = "http://127.0.0.1:" + server.port() + server.path();
    HttpResponse<String> token =
        http.send(
            HttpRequest.newBuilder(platform.baseUrl().resolve("/oauth2/token"))
                .header(
                    "Authorization",
                    "Basic "
                        + java.util.Base64.getEncoder()
                            .encodeToString(
                                (platform.apiKey() + ":" + platform.apiSecret()).getBytes()))
                .header("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8")
                .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    Matcher bearer = Pattern.compile("\"access_token\":\"([^\"]+)\"").matcher(token.body());
    assertThat(bearer.find()).as(token.body()).isTrue();
    HttpResponse<String> created =
        http.send(
            HttpRequest.newBuilder(URI.create(platform.baseUrl() + "/2/webhooks"))
                .header("Authorization", "Bearer " + bearer.group(1))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"url\":\"" + url + "\"}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
  }

  private static String eventUuid(String body) {
    Matcher m = EVENT_UUID.matcher(body);
    assertThat(m.find()).as(body).isTrue();
    return m.group(1);
  }
}
