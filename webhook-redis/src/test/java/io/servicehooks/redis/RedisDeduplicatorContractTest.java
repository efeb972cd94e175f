package io.servicehooks.redis;

import io.servicehooks.contracts.DeduplicatorContract;
import io.servicehooks.core.Deduplicator;
import io.servicehooks.testsupport.TestRedis;
import java.time.Duration;

/**
 * The Redis store runs the contract on a real Redis, under a prefix of the case's own. Leases and
 * windows are Redis TTLs on the server's clock, so the cases that let them run out take real time
 * (a few hundred milliseconds each); the unreachable store is one on a Redis of the case's own,
 * stopped.
 */
final class RedisDeduplicatorContractTest extends DeduplicatorContract {

  private final TestRedis redis = TestRedis.shared();
  private TestRedis.OwnServer stopped;

  @Override
  protected Deduplicator newDeduplicator(Duration window) {
    return RedisDeduplicator.builder(redis.url).prefix(redis.prefix).window(window).build();
  }

  @Override
  protected Deduplicator unreachableDeduplicator() {
    stopped = TestRedis.startOwnServer();
    RedisDeduplicator store =
        RedisDeduplicator.builder(stopped.url()).commandTimeout(Duration.ofMillis(500)).build();
    stopped.stop();
    return store;
  }

  /** Redis keeps TTLs in milliseconds: a third of a second is far above its resolution. */
  @Override
  protected Duration shortTime() {
    return Duration.ofMillis(300);
  }

  @Override
  protected void cleanUp() {
    redis.close();
    if (stopped != null) {
      stopped.close();
    }
  }
}
