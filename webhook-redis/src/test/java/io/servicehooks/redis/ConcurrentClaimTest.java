package io.servicehooks.redis;

import static io.servicehooks.redis.RedisDeduplicatorTest.get;
import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.core.Deduplicator.Claim;
import io.servicehooks.core.Deduplicator.Claim.Status;
import io.servicehooks.testsupport.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Two stores, two connections, one Redis: a key has exactly one owner however the claims race. */
final class ConcurrentClaimTest {

  private static final int CLAIMS = 48;
  private static final Duration LEASE = Duration.ofSeconds(30);

  private final TestRedis redis = TestRedis.shared();
  private final RedisDeduplicator a =
      RedisDeduplicator.builder(redis.url).prefix(redis.prefix).build();
  private final RedisDeduplicator b =
      RedisDeduplicator.builder(redis.url).prefix(redis.prefix).build();
  private final ExecutorService threads = Executors.newFixedThreadPool(CLAIMS);

  @AfterEach
  void tearDown() throws InterruptedException {
    threads.shutdownNow();
    threads.awaitTermination(5, TimeUnit.SECONDS);
    a.close();
    b.close();
    redis.close();
  }

  @Test
  void fortyEightConcurrentClaimsFromTwoStores_exactlyOneOwnerPerKey() throws Exception {
    for (int round = 0; round < 20; round++) {
      String key = "e:race-" + round;
      CountDownLatch go = new CountDownLatch(1);
      List<CompletableFuture<Claim>> claims = new ArrayList<>();
      for (int i = 0; i < CLAIMS; i++) {
        RedisDeduplicator store = i % 2 == 0 ? a : b;
        claims.add(
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    go.await();
                    return get(store.claim(key, LEASE));
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                },
                threads));
      }
      go.countDown();
      List<Claim> answers = new ArrayList<>();
      for (CompletableFuture<Claim> claim : claims) {
        answers.add(claim.get(8, TimeUnit.SECONDS));
      }

      List<Claim> owners = answers.stream().filter(c -> c.status() == Status.CLAIMED).toList();
      assertThat(owners).as("owners of %s", key).hasSize(1);
      assertThat(answers)
          .filteredOn(c -> c.status() != Status.CLAIMED)
          .hasSize(CLAIMS - 1)
          .allSatisfy(
              c -> {
                assertThat(c.status()).isEqualTo(Status.RUNNING_ELSEWHERE);
                assertThat(c.remainingLease()).isPositive();
              });
      assertThat(redis.admin().get(a.redisKey(key))).isEqualTo("c:" + owners.get(0).token());
    }
  }

  @Test
  void concurrentClaimsAfterDone_allSeeDone() throws Exception {
    Claim owner = get(a.claim("e:done", LEASE));
    get(a.markDone("e:done", owner.token()));

    List<CompletableFuture<Claim>> claims = new ArrayList<>();
    for (int i = 0; i < CLAIMS; i++) {
      claims.add((i % 2 == 0 ? a : b).claim("e:done", LEASE).toCompletableFuture());
    }

    for (CompletableFuture<Claim> claim : claims) {
      assertThat(claim.get(5, TimeUnit.SECONDS)).isEqualTo(Claim.done());
    }
  }
}
