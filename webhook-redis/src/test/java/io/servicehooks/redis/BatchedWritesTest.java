package io.servicehooks.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.servicehooks.core.Deduplicator.Claim;
import io.servicehooks.testsupport.TestRedis;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The store's own client sends its scripts in batches, one batch in flight. A call that waits
 * behind a batch Redis does not answer still fails within the command time-out (its wait counts),
 * and the calls behind a stall leave and are answered once Redis answers again. The stall is {@code
 * CLIENT PAUSE} on a Redis this test starts itself.
 */
final class BatchedWritesTest {

  private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(800);
  private static final Duration LEASE = Duration.ofSeconds(30);

  private final TestRedis.OwnServer redis = TestRedis.startOwnServer();
  private final RedisClient adminClient = RedisClient.create(redis.url());
  private final StatefulRedisConnection<String, String> admin = adminClient.connect();
  private final RedisDeduplicator store =
      RedisDeduplicator.builder(redis.url())
          .prefix("batched")
          .commandTimeout(COMMAND_TIMEOUT)
          .build();

  @AfterEach
  void tearDown() {
    store.close();
    admin.close();
    adminClient.shutdown();
    redis.close();
  }

  @Test
  void callWaitingBehindAStalledBatch_failsWithinTheCommandTimeout_laterCallsAnswered()
      throws Exception {
    assertThat(RedisDeduplicatorTest.get(store.claim("e:warm", LEASE)).status())
        .isEqualTo(Claim.Status.CLAIMED);
    assertThat(admin.sync().clientPause(2_000)).isEqualTo("OK");

    CompletableFuture<Claim> inFlight = store.claim("e:1", LEASE).toCompletableFuture();
    Thread.sleep(300);
    long askedBehind = System.nanoTime();
    CompletableFuture<Claim> behind = store.claim("e:2", LEASE).toCompletableFuture();

    Throwable failure = failureOf(behind);
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - askedBehind);
    assertThat(failure).isInstanceOf(RedisCommandTimeoutException.class);
    // Its own 800 ms, not the batch's rest (500 ms) and then 800 ms more.
    assertThat(tookMillis).isBetween(COMMAND_TIMEOUT.toMillis() - 50, 1_150L);
    assertThat(failureOf(inFlight)).isInstanceOf(RedisCommandTimeoutException.class);

    // After the pause, calls are sent and answered again (the timed-out ones ran in Redis too).
    Thread.sleep(2_000);
    assertThat(RedisDeduplicatorTest.get(store.claim("e:3", LEASE)).status())
        .isEqualTo(Claim.Status.CLAIMED);
    assertThat(admin.sync().get(store.redisKey("e:3"))).startsWith("c:");
  }

  private static Throwable failureOf(CompletableFuture<?> call) throws Exception {
    try {
      call.get(5, TimeUnit.SECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }
}
