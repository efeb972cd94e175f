package io.servicehooks.redis;

import static io.servicehooks.redis.RedisDeduplicatorTest.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.servicehooks.core.Deduplicator.Claim.Status;
import io.servicehooks.testsupport.Ports;
import io.servicehooks.testsupport.TestRedis;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A Redis of the test's own goes away, is slow, forgets its scripts, and comes back. */
final class OutageTest {

  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration TIMEOUT = Duration.ofMillis(500);

  private final TestRedis.OwnServer server = TestRedis.startOwnServer();
  private final RedisDeduplicator store =
      RedisDeduplicator.builder(server.url()).commandTimeout(TIMEOUT).build();

  @AfterEach
  void tearDown() {
    store.close();
    server.close();
  }

  @Test
  void serverGoesAway_callsFailFast_serverBack_sameStoreServesAgain() throws Exception {
    assertThat(get(store.claim("e:before", LEASE)).status()).isEqualTo(Status.CLAIMED);

    server.stop();

    for (int i = 0; i < 3; i++) {
      long start = System.nanoTime();
      CompletableFuture<?> call = store.claim("e:during-" + i, LEASE).toCompletableFuture();
      assertThatThrownBy(() -> call.get(5, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .as("failed within the command time-out")
          // bounded by the command time-out (here at once: the connection is known down), with
          // room for a loaded machine; Lettuce's own default would wait 60 s
          .isLessThan(TIMEOUT.plus(Duration.ofSeconds(3)));
    }

    server.start();

    // Reconnects by itself (back-off capped at 1 s): no new store.
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .ignoreExceptions()
        .until(() -> get(store.claim("e:after", LEASE)).status() == Status.CLAIMED);
    assertThat(get(store.claim("e:after", LEASE)).status()).isEqualTo(Status.RUNNING_ELSEWHERE);
  }

  @Test
  void serverTooSlow_callFailsAfterTheCommandTimeout() throws Exception {
    RedisClient client = RedisClient.create(server.url());
    try (StatefulRedisConnection<String, String> admin = client.connect()) {
      get(store.claim("e:warm", LEASE));
      // Redis holds the call until the test ends the stall, however late the call is sent.
      WritesPause.start(admin);

      long start = System.nanoTime();
      CompletableFuture<?> call = store.claim("e:slow", LEASE).toCompletableFuture();
      assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasRootCauseInstanceOf(io.lettuce.core.RedisCommandTimeoutException.class);
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      // the time-out, not Lettuce's 60 s, with room for a loaded machine
      assertThat(took).isBetween(TIMEOUT.minus(Duration.ofMillis(50)), TIMEOUT.plusSeconds(3));
      WritesPause.end(admin);
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  @Test
  void serverLostItsScripts_evalFallbackRunsThemAgain() throws Exception {
    get(store.claim("e:1", LEASE));
    RedisClient client = RedisClient.create(server.url());
    try (StatefulRedisConnection<String, String> admin = client.connect()) {
      admin.sync().scriptFlush();

      var claim = get(store.claim("e:2", LEASE));
      assertThat(claim.status()).isEqualTo(Status.CLAIMED);
      assertThat(get(store.markDone("e:2", claim.token()))).isTrue();
      assertThat(admin.sync().get(store.redisKey("e:2"))).isEqualTo("d");
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  @Test
  void unreachableAtStart_buildFailsWithinTheConnectTimeout() {
    int nobody = Ports.free();
    long start = System.nanoTime();

    assertThatThrownBy(
            () ->
                RedisDeduplicator.builder("redis://127.0.0.1:" + nobody)
                    .connectTimeout(Duration.ofSeconds(1))
                    .build())
        .isInstanceOf(RuntimeException.class);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }
}
