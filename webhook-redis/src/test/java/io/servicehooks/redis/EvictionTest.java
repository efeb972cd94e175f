package io.servicehooks.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookResponse;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.TestSigner;
import io.servicehooks.testsupport.TestRedis;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

/**
 * A Redis that evicts keys forgets remembered ids and claims, and an event then runs twice, both
 * answered 200. The store now says so at start-up (WARN, or refuses with {@code
 * requireNoEviction(true)}), and a claim lost to eviction is logged as lost, not as a slow
 * listener. Each test starts a Redis of its own with the policy under test.
 */
final class EvictionTest {

  private static final String SECRET = "consumer-secret-eviction";

  private final Logger logger = (Logger) LoggerFactory.getLogger("io.servicehooks");
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final List<AutoCloseable> resources = new ArrayList<>();
  private Level level;

  @BeforeEach
  void capture() {
    level = logger.getLevel();
    logger.setLevel(Level.INFO); // the build's logback-test.xml keeps this module's lines quiet
    lines.start();
    logger.addAppender(lines);
  }

  @AfterEach
  void tearDown() throws Exception {
    logger.detachAppender(lines);
    logger.setLevel(level);
    for (int i = resources.size() - 1; i >= 0; i--) {
      resources.get(i).close();
    }
  }

  private TestRedis.OwnServer server(String... settings) {
    TestRedis.OwnServer server = TestRedis.startOwnServer(settings);
    resources.add(server);
    return server;
  }

  private RedisDeduplicator store(RedisDeduplicator.Builder builder) {
    RedisDeduplicator store = builder.build();
    resources.add(store);
    return store;
  }

  private List<String> logged(Level level) {
    return lines.list.stream()
        .filter(e -> e.getLevel() == level)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  @ParameterizedTest
  @ValueSource(strings = {"volatile-lru", "allkeys-lru", "volatile-ttl", "allkeys-random"})
  void evictingPolicy_buildWarnsOnceNamingIt(String policy) {
    TestRedis.OwnServer redis = server("maxmemory 64mb", "maxmemory-policy " + policy);

    store(RedisDeduplicator.builder(redis.url()));

    assertThat(logged(Level.WARN))
        .singleElement()
        .satisfies(
            line ->
                assertThat(line)
                    .contains("maxmemory-policy " + policy)
                    .contains("maxmemory 67108864 bytes")
                    .contains("runs its event again")
                    .contains("noeviction"));
  }

  @Test
  void evictingPolicy_requireNoEviction_buildRefuses() {
    TestRedis.OwnServer redis = server("maxmemory 64mb", "maxmemory-policy volatile-lru");

    assertThatThrownBy(() -> store(RedisDeduplicator.builder(redis.url()).requireNoEviction(true)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("maxmemory-policy volatile-lru")
        .hasMessageContaining("requireNoEviction(true)");
  }

  @Test
  void noeviction_buildSaysNothing_evenWhenRequired() {
    TestRedis.OwnServer redis = server("maxmemory 64mb", "maxmemory-policy noeviction");

    store(RedisDeduplicator.builder(redis.url()).requireNoEviction(true));

    assertThat(logged(Level.WARN)).isEmpty();
    assertThat(logged(Level.INFO)).noneMatch(line -> line.contains("maxmemory-policy"));
  }

  @Test
  void configDisabled_policyReadFromInfo_stillWarns() {
    TestRedis.OwnServer redis =
        server("maxmemory-policy allkeys-lru", "rename-command CONFIG \"\"");

    store(RedisDeduplicator.builder(redis.url()));

    assertThat(logged(Level.WARN))
        .singleElement()
        .satisfies(
            line ->
                assertThat(line)
                    .contains("maxmemory-policy allkeys-lru")
                    .contains("no maxmemory set yet"));
  }

  @Test
  void configAndInfoDisabled_oneLineSaysThePolicyIsUnknown() {
    TestRedis.OwnServer redis =
        server(
            "maxmemory-policy allkeys-lru",
            "rename-command CONFIG \"\"",
            "rename-command INFO \"\"");

    store(RedisDeduplicator.builder(redis.url()).requireNoEviction(true));

    assertThat(logged(Level.WARN)).isEmpty();
    assertThat(logged(Level.INFO))
        .filteredOn(line -> line.contains("maxmemory-policy"))
        .singleElement()
        .satisfies(line -> assertThat(line).contains("Could not read").contains("noeviction"));
  }

  /**
   * The repro: with {@code allkeys-lru} and a small {@code maxmemory}, other data evicts the claim
   * while the listener runs. The mark finds the key gone while the lease still ran: logged and
   * counted as lost, not as a lease that ran out; and a copy then runs the event again.
   */
  @Test
  void claimEvictedWhileListenerRuns_warnSaysTheStoreLostIt_copyRunsAgain() throws Exception {
    TestRedis.OwnServer redis = server("maxmemory 8mb", "maxmemory-policy allkeys-lru");
    RedisDeduplicator store = store(RedisDeduplicator.builder(redis.url()).prefix("evict"));
    RedisClient client = RedisClient.create(redis.url());
    resources.add(() -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
    StatefulRedisConnection<String, String> admin = client.connect();
    resources.add(admin);
    AtomicInteger runs = new AtomicInteger();
    String body =
        Events.activity(
            "post.create",
            "2244994945",
            java.util.Map.of(
                "id", "1878", "text", "runs while Redis fills up", "author_id", "783214"));
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .deduplicator(store)
            .on(
                "post.create",
                event -> {
                  if (runs.incrementAndGet() == 1) {
                    fill(admin, "e:" + event.id(), store);
                  }
                })
            .build();
    lines.list.clear();

    WebhookResponse first = deliver(consumer, body);
    assertThat(first.status()).isEqualTo(200);
    assertThat(logged(Level.WARN))
        .singleElement()
        .satisfies(
            line ->
                assertThat(line)
                    .contains("although its lease still ran")
                    .contains("the store lost the key")
                    .doesNotContain("before its listeners finished"));

    // what the documentation warns of: the id was not remembered, so its copy runs again
    WebhookResponse copy = deliver(consumer, body);
    assertThat(copy.status()).isEqualTo(200);
    assertThat(runs).hasValue(2);
  }

  /** Writes other data until Redis has evicted the claim's key. */
  private static void fill(
      StatefulRedisConnection<String, String> admin, String dedupKey, RedisDeduplicator store)
      throws Exception {
    String key = store.redisKey(dedupKey);
    assertThat(admin.sync().exists(key)).isOne();
    String value = "x".repeat(1024);
    for (int round = 0; round < 20 && admin.sync().exists(key) == 1; round++) {
      List<RedisFuture<String>> writes = new ArrayList<>();
      for (int i = 0; i < 2_000; i++) {
        writes.add(admin.async().set("filler:" + round + ":" + i, value));
      }
      for (RedisFuture<String> write : writes) {
        write.get(5, TimeUnit.SECONDS);
      }
    }
    Map<String, String> stats = parse(admin.sync().info("stats"));
    assertThat(Long.parseLong(stats.get("evicted_keys"))).isPositive();
    assertThat(admin.sync().exists(key)).as("the claim was evicted").isZero();
  }

  private static Map<String, String> parse(String info) {
    Map<String, String> out = new java.util.HashMap<>();
    for (String line : info.split("\r?\n")) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        out.put(line.substring(0, colon), line.substring(colon + 1).strip());
      }
    }
    return out;
  }

  private static WebhookResponse deliver(WebhookConsumer consumer, String body) {
    return consumer
        .handle(
            WebhookRequest.post(
                TestSigner.sign(SECRET, body), body.getBytes(StandardCharsets.UTF_8)))
        .join();
  }
}
