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
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The store's own client sends its scripts in batches, one batch in flight. A call that waits
 * behind a batch Redis does not answer still fails within the command time-out (its wait counts),
 * and the calls behind a stall leave and are answered once Redis answers again. The stall is a
 * {@link WritesPause} on a Redis this test starts itself, ended by the test.
 */
final class BatchedWritesTest {

  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(3);
  private static final Duration WAIT_BEHIND = Duration.ofSeconds(1);
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
    WritesPause.start(admin);

    AtomicLong inFlightFailedAt = new AtomicLong();
    AtomicLong behindFailedAt = new AtomicLong();
    CompletableFuture<Claim> inFlight =
        failedAt(store.claim("e:1", LEASE).toCompletableFuture(), inFlightFailedAt);
    // A stretch of the next call's wait behind the stalled batch, shorter than the time-out.
    Thread.sleep(WAIT_BEHIND.toMillis());
    long askedBehind = System.nanoTime();
    CompletableFuture<Claim> behind =
        failedAt(store.claim("e:2", LEASE).toCompletableFuture(), behindFailedAt);

    assertThat(failureOf(behind)).isInstanceOf(RedisCommandTimeoutException.class);
    assertThat(failureOf(inFlight)).isInstanceOf(RedisCommandTimeoutException.class);
    assertThat(Duration.ofNanos(behindFailedAt.get() - askedBehind))
        .as("the call waited its whole time-out")
        .isGreaterThanOrEqualTo(COMMAND_TIMEOUT.minusMillis(50));
    // It left with the next batch when the stalled one timed out. Had it been given a whole
    // time-out from there, it would fail a whole time-out after that batch; with its wait counted,
    // it fails its wait behind the batch (about WAIT_BEHIND) after it. Both ends are read on the
    // client's own timer, so a slow test thread shifts them together.
    assertThat(Duration.ofNanos(behindFailedAt.get() - inFlightFailedAt.get()))
        .as("its wait behind the batch counted in its time-out")
        .isLessThan(COMMAND_TIMEOUT);

    // After the pause, calls are sent and answered again (the timed-out ones ran in Redis too).
    WritesPause.end(admin);
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () ->
                RedisDeduplicatorTest.get(store.claim("e:3", LEASE)).status()
                    == Claim.Status.CLAIMED);
    assertThat(admin.sync().get(store.redisKey("e:3"))).startsWith("c:");
  }

  private static <T> CompletableFuture<T> failedAt(CompletableFuture<T> call, AtomicLong at) {
    return call.whenComplete((answer, failure) -> at.set(System.nanoTime()));
  }

  private static Throwable failureOf(CompletableFuture<?> call) throws Exception {
    try {
      call.get(20, TimeUnit.SECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }
}
