package io.servicehooks.redis;

import static io.servicehooks.redis.RedisDeduplicatorTest.get;
import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.servicehooks.core.Deduplicator.Claim;
import io.servicehooks.core.Deduplicator.Claim.Status;
import io.servicehooks.testsupport.Ports;
import io.servicehooks.testsupport.TestRedis;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import redis.embedded.RedisSentinel;

/** A {@code redis-sentinel://} URI finds the master through a real Sentinel of the test's own. */
final class SentinelTest {

  @Test
  void sentinelUri_storeTalksToTheMasterItNames() throws Exception {
    try (TestRedis.OwnServer master = TestRedis.startOwnServer()) {
      int sentinelPort = Ports.free();
      RedisSentinel sentinel =
          RedisSentinel.newRedisSentinel()
              .bind("127.0.0.1")
              .port(sentinelPort)
              .masterPort(master.port)
              .masterName("mymaster")
              .quorumSize(1)
              .build();
      sentinel.start();
      try (RedisDeduplicator store =
          RedisDeduplicator.builder("redis-sentinel://127.0.0.1:" + sentinelPort + "/0#mymaster")
              .prefix("servicehooks-test:sentinel")
              .build()) {
        Claim claim = get(store.claim("e:1", Duration.ofSeconds(5)));
        assertThat(claim.status()).isEqualTo(Status.CLAIMED);
        assertThat(get(store.markDone("e:1", claim.token()))).isTrue();
        assertThat(store.toString())
            .contains("redis-sentinel://127.0.0.1:" + sentinelPort + "/0#mymaster");

        RedisClient direct = RedisClient.create(master.url());
        try (StatefulRedisConnection<String, String> c = direct.connect()) {
          assertThat(c.sync().get("servicehooks-test:sentinel:{e:1}")).isEqualTo("d");
        } finally {
          direct.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
      } finally {
        sentinel.stop();
      }
    }
  }
}
