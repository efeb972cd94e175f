package io.servicehooks.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookListener;
import io.servicehooks.testkit.DeliveryAttempt;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testkit.TestSigner;
import io.servicehooks.testsupport.TestRedis;
import io.servicehooks.undertow.WebhookServer;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two {@link WebhookServer}s (real Undertow, ephemeral ports) share one Redis, as two instances
 * behind a load balancer: the simulator delivers every event to both, several times.
 */
final class TwoServersEndToEndTest {

  private static final String SECRET = "consumer-secret-e2e";
  private static final Pattern EVENT_UUID = Pattern.compile("\"event_uuid\":\"([^\"]+)\"");

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(3))
          .build();
  private final List<AutoCloseable> resources = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (int i = resources.size() - 1; i >= 0; i--) {
      resources.get(i).close();
    }
  }

  private <T extends AutoCloseable> T closeLater(T resource) {
    resources.add(resource);
    return resource;
  }

  private PlatformSimulator simulator() {
    return closeLater(
        PlatformSimulator.builder()
            .localMode(true)
            .webhookLimit(2)
            .consumerSecret(SECRET)
            .retrySchedule(
                List.of(
                    Duration.ofMillis(300),
                    Duration.ofMillis(600),
                    Duration.ofSeconds(1),
                    Duration.ofSeconds(1),
                    Duration.ofSeconds(2)))
            .deliveryTimeout(Duration.ofSeconds(8))
            .build()
            .start());
  }

  /** A server on its own store (its own connection) on {@code url} under {@code prefix}. */
  private WebhookServer server(String url, String prefix, WebhookListener listener) {
    return server(url, prefix, listener, io.servicehooks.core.Deduplicator.DEFAULT_LEASE);
  }

  private WebhookServer server(
      String url, String prefix, WebhookListener listener, Duration lease) {
    RedisDeduplicator store =
        RedisDeduplicator.builder(url)
            .prefix(prefix)
            .commandTimeout(Duration.ofMillis(500))
            .build();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .deduplicator(store)
            .inFlightWait(Duration.ofMillis(500))
            .dedupLease(lease)
            .onAny(listener)
            .build();
    WebhookServer server =
        closeLater(
            WebhookServer.builder(consumer)
                .host("127.0.0.1")
                .port(0)
                .shutdownTimeout(Duration.ofSeconds(3))
                .build()
                .start());
    // The server closes its consumer; the store is ours to close, after the server.
    resources.add(resources.size() - 1, store);
    return server;
  }

  private static String url(WebhookServer server) {
    return "http://127.0.0.1:" + server.port() + server.path();
  }

  @Test
  void copiesSpreadOverTwoServers_everyEventDispatchedExactlyOnce() throws Exception {
    TestRedis redis = closeLater(TestRedis.shared());
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    Map<Integer, AtomicInteger> perServer = new ConcurrentHashMap<>();
    WebhookServer[] servers = new WebhookServer[2];
    for (int i = 0; i < 2; i++) {
      int index = i;
      servers[i] =
          server(
              redis.url,
              redis.prefix,
              event -> {
                runs.computeIfAbsent(event.id(), id -> new AtomicInteger()).incrementAndGet();
                perServer.computeIfAbsent(index, x -> new AtomicInteger()).incrementAndGet();
                Thread.sleep(20); // long enough for the other server's copies to overlap
              });
    }
    PlatformSimulator platform = simulator();
    register(platform, url(servers[0]));
    register(platform, url(servers[1]));

    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      String body =
          Events.activity(
              "post.create",
              "2244994945",
              java.util.Map.of(
                  "id", Integer.toString(1000 + i), "text", "hello " + i, "author_id", "783214"));
      ids.add(eventUuid(body));
      // two copies to each server: four copies of every event at once
      assertThat(platform.deliver(body, 2)).isEqualTo(4);
    }

    assertThat(platform.awaitIdle(Duration.ofSeconds(9))).isTrue();
    assertThat(runs.keySet()).containsExactlyInAnyOrderElementsOf(ids);
    assertThat(runs).allSatisfy((id, count) -> assertThat(count).as(id).hasValue(1));
    // Both instances did real work: the copies really were spread.
    assertThat(perServer).containsOnlyKeys(0, 1);
    // Every delivery ended answered 2xx (duplicates included): nothing left for the platform.
    Map<Long, DeliveryAttempt> last = new ConcurrentHashMap<>();
    for (DeliveryAttempt attempt : platform.attempts()) {
      last.merge(attempt.deliveryId(), attempt, (a, b) -> b.attempt() > a.attempt() ? b : a);
    }
    assertThat(last).hasSize(160);
    assertThat(last.values()).allMatch(DeliveryAttempt::succeeded);
    assertThat(redis.keys()).hasSize(40);
  }

  @Test
  void copyOnBWhileAsListenerRunsAndThrows_notAnswered200_retryRunsIt() throws Exception {
    TestRedis redis = closeLater(TestRedis.shared());
    CountDownLatch firstRunning = new CountDownLatch(1);
    CountDownLatch letFirstFail = new CountDownLatch(1);
    AtomicBoolean first = new AtomicBoolean(true);
    AtomicInteger failures = new AtomicInteger();
    AtomicInteger successes = new AtomicInteger();
    WebhookListener listener =
        event -> {
          if (first.compareAndSet(true, false)) {
            firstRunning.countDown();
            letFirstFail.await(30, TimeUnit.SECONDS);
            failures.incrementAndGet();
            throw new IllegalStateException("the first run fails");
          }
          successes.incrementAndGet();
        };
    WebhookServer a = server(redis.url, redis.prefix, listener);
    WebhookServer b = server(redis.url, redis.prefix, listener);
    PlatformSimulator platform = simulator();
    register(platform, url(a));
    register(platform, url(b));

    String body =
        Events.activity(
            "post.create",
            "2244994945",
            java.util.Map.of("id", "77", "text", "runs long, then fails", "author_id", "783214"));
    assertThat(platform.deliver(body)).isEqualTo(2);

    assertThat(firstRunning.await(20, TimeUnit.SECONDS)).isTrue();
    // The copy on the other server finds the event running elsewhere: 503 in_flight after its
    // bounded wait, never 200 while the first run's outcome is unknown.
    Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> platform.attempts().stream().anyMatch(at -> at.status() == 503));
    assertThat(platform.attempts()).noneMatch(DeliveryAttempt::succeeded);

    letFirstFail.countDown();

    assertThat(platform.awaitIdle(Duration.ofSeconds(9))).isTrue();
    assertThat(failures).hasValue(1);
    assertThat(successes).as("the retry ran the event, once").hasValue(1);
    assertThat(platform.attempts()).anyMatch(at -> at.status() == 500);
    Map<Long, DeliveryAttempt> last = new ConcurrentHashMap<>();
    for (DeliveryAttempt attempt : platform.attempts()) {
      last.merge(attempt.deliveryId(), attempt, (x, y) -> y.attempt() > x.attempt() ? y : x);
    }
    assertThat(last.values()).hasSize(2).allMatch(DeliveryAttempt::succeeded);
  }

  @Test
  void redisGoesAway_503DedupUnavailableAndNoListener_redisBack_handledAgain() throws Exception {
    TestRedis.OwnServer redis = closeLater(TestRedis.startOwnServer());
    String prefix = "servicehooks-test:outage";
    AtomicInteger runs = new AtomicInteger();
    WebhookServer a = server(redis.url(), prefix, event -> runs.incrementAndGet());
    WebhookServer b = server(redis.url(), prefix, event -> runs.incrementAndGet());

    String before =
        Events.activity(
            "post.create",
            "2244994945",
            java.util.Map.of("id", "1", "text", "before", "author_id", "783214"));
    assertThat(post(a, before).statusCode()).isEqualTo(200);
    assertThat(post(b, before).body()).contains("duplicate");
    assertThat(runs).hasValue(1);

    redis.stop();

    String during =
        Events.activity(
            "post.create",
            "2244994945",
            java.util.Map.of("id", "2", "text", "during", "author_id", "783214"));
    for (WebhookServer server : List.of(a, b, a)) {
      long start = System.nanoTime();
      HttpResponse<String> answer = post(server, during);
      assertThat(answer.statusCode()).isEqualTo(503);
      assertThat(answer.body()).contains("dedup_unavailable");
      assertThat(answer.headers().firstValue("Retry-After")).isPresent();
      // the store's 500 ms command time-out, not a hang, with room for a loaded machine
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }
    assertThat(runs).as("no listener ran without dedup").hasValue(1);

    redis.start();

    // Both servers' stores reconnect by themselves: no restart.
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> post(b, during).statusCode() == 200);
    assertThat(runs).hasValue(2);
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> post(a, during).statusCode() == 200);
    assertThat(post(a, during).body()).contains("duplicate");
    assertThat(runs).hasValue(2);
  }

  @Test
  void listenerRunsPastTheLease_ownerRenewsIt_copyOnTheOtherServerDoesNotRunIt() throws Exception {
    TestRedis redis = closeLater(TestRedis.shared());
    // Long enough that a renewal due at half of it is sent in time on a loaded machine.
    Duration lease = Duration.ofSeconds(2);
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch copyAnswered = new CountDownLatch(1);
    WebhookListener slow =
        event -> {
          runs.incrementAndGet();
          started.countDown();
          // Past the lease, and still running while the copy waits on the other server.
          copyAnswered.await(30, TimeUnit.SECONDS);
        };
    WebhookServer a = server(redis.url, redis.prefix, slow, lease);
    WebhookServer b = server(redis.url, redis.prefix, slow, lease);
    String body =
        Events.activity(
            "post.create",
            "2244994945",
            java.util.Map.of("id", "5", "text", "slow", "author_id", "783214"));

    CompletableFuture<HttpResponse<String>> first = postAsync(a, body);
    assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();
    // Past the first lease: only a renewal keeps the claim.
    Awaitility.await()
        .pollDelay(lease.plusMillis(500))
        .atMost(Duration.ofSeconds(30))
        .until(() -> true);

    HttpResponse<String> copy = post(b, body);
    String key = redis.prefix + ":{e:" + eventUuid(body) + "}";
    String heldWhileRunning = redis.admin().get(key);
    copyAnswered.countDown();
    assertThat(copy.statusCode()).isEqualTo(503);
    assertThat(copy.body()).contains("in_flight");
    assertThat(heldWhileRunning).startsWith("c:");
    assertThat(post(b, body).body()).contains("duplicate");
    assertThat(runs).hasValue(1);
    assertThat(redis.admin().get(key)).isEqualTo("d");
  }

  private CompletableFuture<HttpResponse<String>> postAsync(WebhookServer server, String body) {
    return http.sendAsync(request(server, body), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(WebhookServer server, String body) throws Exception {
    return http.send(request(server, body), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpRequest request(WebhookServer server, String body) {
    return HttpRequest.newBuilder(URI.create(url(server)))
        .timeout(Duration.ofSeconds(8))
        .header("Content-Type", "application/json")
        .header(TestSigner.SIGNATURE_HEADER, TestSigner.sign(SECRET, body))
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .build();
  }

  /** Registers {@code url} as a webhook, as a client of the platform would (with its CRC). */
  private void register(PlatformSimulator platform, String url) throws Exception {
    String basic =
        Base64.getEncoder()
            .encodeToString(
                (URLEncoder.encode(platform.apiKey(), StandardCharsets.UTF_8)
                        + ":"
                        + URLEncoder.encode(platform.apiSecret(), StandardCharsets.UTF_8))
                    .getBytes(StandardCharsets.UTF_8));
    HttpResponse<String> token =
        http.send(
            HttpRequest.newBuilder(platform.baseUrl().resolve("/oauth2/token"))
                .timeout(Duration.ofSeconds(5))
                .header("Authorization", "Basic " + basic)
                .header("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8")
                .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    Matcher bearer = Pattern.compile("\"access_token\":\"([^\"]+)\"").matcher(token.body());
    assertThat(bearer.find()).as(token.body()).isTrue();
    HttpResponse<String> created =
        http.send(
            HttpRequest.newBuilder(platform.baseUrl().resolve("/2/webhooks"))
                .timeout(Duration.ofSeconds(8))
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
