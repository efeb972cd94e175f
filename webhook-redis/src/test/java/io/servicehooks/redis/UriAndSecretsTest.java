package io.servicehooks.redis;

import static io.servicehooks.redis.RedisDeduplicatorTest.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.servicehooks.core.Deduplicator.Claim.Status;
import io.servicehooks.testsupport.Ports;
import io.servicehooks.testsupport.TestRedis;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** URI forms, a caller's own client, and a password that never shows. */
final class UriAndSecretsTest {

  private static final String SECRET = "s3cr3t-Pa55";

  @Test
  void uriForms_redisTlsAndSentinel_acceptedAndDescribedWithoutCredentials() {
    assertThat(RedisUris.describe(RedisUris.parse("redis://:" + SECRET + "@cache:6380/2")))
        .isEqualTo("redis://cache:6380/2");
    assertThat(RedisUris.describe(RedisUris.parse("rediss://user:" + SECRET + "@cache.example")))
        .isEqualTo("rediss://cache.example:6379/0");
    RedisURI sentinel =
        RedisUris.parse("redis-sentinel://:" + SECRET + "@s1:26379,s2:26380/1#mymaster");
    assertThat(sentinel.getSentinels()).hasSize(2);
    assertThat(RedisUris.describe(sentinel))
        .isEqualTo("redis-sentinel://s1:26379,s2:26380/1#mymaster");
  }

  @Test
  void malformedOrForeignUri_rejectedWithoutThePassword() {
    for (String uri :
        new String[] {
          "http://:" + SECRET + "@host:6379",
          "redis://:" + SECRET + "@host:6379/notadb",
          "redis://:" + SECRET + "@ho st:6379",
          "redis-sentinel://:" + SECRET + "@s1,s2"
        }) {
      Throwable thrown = catchThrowable(() -> RedisDeduplicator.builder(uri));
      assertThat(thrown).isInstanceOf(IllegalArgumentException.class);
      assertThat(stackTrace(thrown)).doesNotContain(SECRET).contains("***@");
    }
  }

  @Test
  void passwordProtectedServer_storeWorks_toStringAndErrorsNeverShowThePassword() throws Exception {
    try (TestRedis.OwnServer server = TestRedis.startOwnServer("requirepass " + SECRET)) {
      String url = "redis://:" + SECRET + "@127.0.0.1:" + server.port;
      try (RedisDeduplicator store = RedisDeduplicator.builder(url).build()) {
        assertThat(get(store.claim("e:1", Duration.ofSeconds(5))).status())
            .isEqualTo(Status.CLAIMED);
        assertThat(store.toString())
            .doesNotContain(SECRET)
            .contains("redis://127.0.0.1:" + server.port + "/0");
      }

      Throwable wrong =
          catchThrowable(
              () ->
                  RedisDeduplicator.builder(
                          "redis://:wrong-" + SECRET + "@127.0.0.1:" + server.port)
                      .build());
      assertThat(wrong).isNotNull();
      assertThat(stackTrace(wrong)).doesNotContain(SECRET);

      try (RedisDeduplicator store =
          RedisDeduplicator.builder(url).commandTimeout(Duration.ofMillis(500)).build()) {
        server.stop();
        Throwable down = catchThrowable(() -> get(store.claim("e:2", Duration.ofSeconds(5))));
        assertThat(down).isNotNull();
        assertThat(stackTrace(down)).doesNotContain(SECRET);
      }
    }
  }

  @Test
  void unreachableServerWithPassword_errorHidesIt() {
    int nobody = Ports.free();
    Throwable thrown =
        catchThrowable(
            () ->
                RedisDeduplicator.builder("redis://:" + SECRET + "@127.0.0.1:" + nobody)
                    .connectTimeout(Duration.ofSeconds(1))
                    .build());
    assertThat(thrown).isNotNull();
    assertThat(stackTrace(thrown)).doesNotContain(SECRET);
  }

  @Test
  void callersOwnClient_used_andLeftOpenOnClose() throws Exception {
    try (TestRedis redis = TestRedis.shared()) {
      RedisClient client = RedisClient.create(redis.url);
      try {
        RedisDeduplicator store = RedisDeduplicator.builder(client).prefix(redis.prefix).build();
        var claim = get(store.claim("e:1", Duration.ofSeconds(5)));
        assertThat(claim.status()).isEqualTo(Status.CLAIMED);
        assertThat(get(store.release("e:1", claim.token()))).isTrue();
        assertThat(store.toString()).contains("application's RedisClient");
        store.close();

        try (StatefulRedisConnection<String, String> still = client.connect()) {
          assertThat(still.sync().ping()).isEqualTo("PONG");
        }
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
  }

  @Test
  void notAUri_rejected() {
    assertThatThrownBy(() -> RedisDeduplicator.builder(" "))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RedisDeduplicator.builder((String) null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  static String stackTrace(Throwable t) {
    StringWriter out = new StringWriter();
    t.printStackTrace(new PrintWriter(out));
    return out.toString();
  }
}
