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

  /**
   * The store's own client sends its scripts in batches (one batch in flight, the rest waiting for
   * its answers): thousands of calls asked at once from many threads, and calls asked from the
   * answers' own callbacks on Lettuce's thread, all leave and are answered, each in its key's
   * order.
   */
  @Test
  void thousandsOfCallsAtOnce_fromThreadsAndFromAnswers_allAnsweredInOrder() throws Exception {
    int perThread = 500;
    int senders = 8;
    CountDownLatch go = new CountDownLatch(1);
    List<CompletableFuture<Boolean>> ends = new ArrayList<>();
    List<CompletableFuture<Void>> sent = new ArrayList<>();
    for (int t = 0; t < senders; t++) {
      int thread = t;
      List<CompletableFuture<Boolean>> mine = new ArrayList<>();
      sent.add(
          CompletableFuture.runAsync(
              () -> {
                try {
                  go.await();
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
                for (int i = 0; i < perThread; i++) {
                  String key = "e:batch-" + thread + "-" + i;
                  // The mark is asked from the claim's answer, on Lettuce's thread.
                  mine.add(
                      a.claim(key, LEASE)
                          .thenCompose(claim -> a.markDone(key, claim.token()))
                          .toCompletableFuture());
                }
                synchronized (ends) {
                  ends.addAll(mine);
                }
              },
              threads));
    }
    go.countDown();
    CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);

    CompletableFuture.allOf(ends.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
    assertThat(ends)
        .hasSize(senders * perThread)
        .allSatisfy(end -> assertThat(end).isCompletedWithValue(true));
    for (int t = 0; t < senders; t++) {
      for (int i = 0; i < perThread; i += 97) {
        assertThat(redis.admin().get(a.redisKey("e:batch-" + t + "-" + i))).isEqualTo("d");
      }
    }
    // Another store's copies see them done.
    assertThat(get(b.claimDone("e:batch-3-7", LEASE))).isEqualTo(Claim.done());
  }
}
