package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.servicehooks.catchup.CatchUp;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testsupport.Ports;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The standalone consumer's {@code CATCH_UP=true}: settings, store choice, and a healed gap. */
final class CatchUpWiringTest {

  private static Map<String, String> env(String... pairs) {
    Map<String, String> env = new HashMap<>();
    env.put("CATCH_UP", "true");
    env.put("SERVICE_API_BASE_URL", "http://127.0.0.1:9");
    env.put("SERVICE_API_KEY", "key-not-secret");
    env.put("SERVICE_API_SECRET", "SuperSecretApiSecretValue");
    env.put("WEBHOOK_URL", "https://hooks.example.org/service");
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }

  @Test
  void parse_catchUpUnset_isOff() throws Exception {
    assertThat(CatchUpWiring.parse(Map.of())).isNull();
    assertThat(CatchUpWiring.parse(Map.of("CATCH_UP", "false"))).isNull();
  }

  @Test
  void parse_noBaseUrl_namesIt() {
    Map<String, String> env = env();
    env.remove("SERVICE_API_BASE_URL");
    assertThatThrownBy(() -> CatchUpWiring.parse(env))
        .isInstanceOf(ConsumerMain.ConfigException.class)
        .hasMessageContaining("SERVICE_API_BASE_URL");
  }

  @Test
  void parse_noCredentials_namesTheVariablesAsTheCliDoes() {
    Map<String, String> env = env();
    env.remove("SERVICE_API_SECRET");
    assertThatThrownBy(() -> CatchUpWiring.parse(env))
        .hasMessageContaining("SERVICE_API_KEY and SERVICE_API_SECRET, or SERVICE_BEARER_TOKEN");
  }

  @Test
  void parse_storeChoice_redisThenDatabaseThenFile() throws Exception {
    assertThat(
            CatchUpWiring.parse(
                    env("REDIS_URL", "redis://h:6379", "DATABASE_URL", "postgres://u@h/db"))
                .store())
        .isEqualTo(CatchUpWiring.StoreKind.REDIS);
    assertThat(CatchUpWiring.parse(env("DATABASE_URL", "postgres://u@h/db")).store())
        .isEqualTo(CatchUpWiring.StoreKind.POSTGRES);
    CatchUpWiring.Config file = CatchUpWiring.parse(env());
    assertThat(file.store()).isEqualTo(CatchUpWiring.StoreKind.FILE);
    assertThat(file.file()).isEqualTo(Path.of("./servicehooks-heartbeat"));
    assertThat(CatchUpWiring.parse(env("REDIS_PREFIX", "shop")).redisPrefix())
        .isEqualTo("shop:catchup:");
  }

  @Test
  void parse_heartbeatAndGapThreshold_inMillis_defaultsAsTheLibrary_thresholdAboveHeartbeat()
      throws Exception {
    CatchUpWiring.Config defaults = CatchUpWiring.parse(env());
    assertThat(defaults.heartbeatInterval()).isEqualTo(CatchUp.DEFAULT_HEARTBEAT_INTERVAL);
    assertThat(defaults.gapThreshold()).isEqualTo(CatchUp.DEFAULT_GAP_THRESHOLD);
    CatchUpWiring.Config set =
        CatchUpWiring.parse(
            env("CATCH_UP_HEARTBEAT_MS", "500", "CATCH_UP_GAP_THRESHOLD_MS", " 3000 "));
    assertThat(set.heartbeatInterval()).isEqualTo(Duration.ofMillis(500));
    assertThat(set.gapThreshold()).isEqualTo(Duration.ofSeconds(3));
    assertThat(
            CatchUpWiring.build(
                set, new io.micrometer.core.instrument.simple.SimpleMeterRegistry()))
        .isNotNull();
    assertThatThrownBy(() -> CatchUpWiring.parse(env("CATCH_UP_GAP_THRESHOLD_MS", "30000")))
        .isInstanceOf(ConsumerMain.ConfigException.class)
        .hasMessageContaining("CATCH_UP_GAP_THRESHOLD_MS (30000) must be above")
        .hasMessageContaining("CATCH_UP_HEARTBEAT_MS (30000)");
    assertThatThrownBy(() -> CatchUpWiring.parse(env("CATCH_UP_HEARTBEAT_MS", "2m")))
        .isInstanceOf(ConsumerMain.ConfigException.class)
        .hasMessageContaining("CATCH_UP_HEARTBEAT_MS must be a number of milliseconds")
        .hasMessageContaining("'2m'");
    assertThatThrownBy(() -> CatchUpWiring.parse(env("CATCH_UP_HEARTBEAT_MS", "0")))
        .hasMessageContaining("from 100 to 3600000");
  }

  @Test
  void config_toString_leavesSecretsOut() throws Exception {
    String text =
        CatchUpWiring.parse(env("REDIS_URL", "redis://:RedisPassword1@h:6379")).toString();
    assertThat(text)
        .doesNotContain("SuperSecretApiSecretValue")
        .doesNotContain("RedisPassword1")
        .contains("client credentials");
  }

  @Test
  void jdbcUrl_postgresUrl_credentialsComeApart() throws Exception {
    assertThat(CatchUpWiring.jdbcUrl("postgres://app:p%40ss@db.local:5433/hooks?sslmode=require"))
        .containsExactly("jdbc:postgresql://db.local:5433/hooks?sslmode=require", "app", "p@ss");
    assertThatThrownBy(() -> CatchUpWiring.jdbcUrl("mysql://u:SecretPw@h/db"))
        .hasMessageNotContaining("SecretPw");
  }

  /** The consumer and its catch-up, wired as {@link ConsumerMain#run} wires them. */
  private record Running(StandaloneConsumer consumer, CatchUp catchUp) implements AutoCloseable {
    static Running start(
        StandaloneConsumer.Settings settings,
        Map<String, String> env,
        Map<String, AtomicInteger> handled)
        throws Exception {
      CatchUpWiring.Config config = CatchUpWiring.parse(env);
      CatchUp[] catchUp = new CatchUp[1];
      StandaloneConsumer consumer =
          StandaloneConsumer.start(
              settings,
              (b, registry) -> {
                b.on(
                    "post.create",
                    e ->
                        handled
                            .computeIfAbsent(
                                e.payload().path("id").asText(), k -> new AtomicInteger())
                            .incrementAndGet());
                catchUp[0] = CatchUpWiring.build(config, registry);
                catchUp[0].install(b);
              });
      catchUp[0].start();
      return new Running(consumer, catchUp[0]);
    }

    @Override
    public void close() {
      catchUp.close();
      consumer.close();
    }
  }

  @Test
  void restartWithCatchUp_replaysWhatWasDroppedWhileDown(@TempDir Path dir) throws Exception {
    int port = Ports.free(); // the consumer comes back at the same address
    Path file = dir.resolve("heartbeat");
    try (PlatformSimulator platform =
        PlatformSimulator.builder().localMode(true).retrySchedule(List.of()).build().start()) {
      Map<String, String> env =
          env(
              "SERVICE_API_BASE_URL", platform.baseUrl().toString(),
              "SERVICE_API_KEY", platform.apiKey(),
              "SERVICE_API_SECRET", platform.apiSecret(),
              "WEBHOOK_URL", "http://127.0.0.1:" + port + "/webhooks",
              "CATCH_UP_FILE", file.toString(),
              "ALLOW_INSECURE_URL", "true");
      StandaloneConsumer.Settings settings =
          new StandaloneConsumer.Settings(
              List.of(platform.consumerSecret()),
              "127.0.0.1",
              port,
              "/webhooks",
              false,
              false,
              0,
              0);
      Map<String, AtomicInteger> handled = new ConcurrentHashMap<>();

      // registered (at the catch-up's first check) and answering, then stopped
      try (Running first = Running.start(settings, env, handled)) {
        assertThat(Files.readString(file)).contains("heartbeat=");
      }
      for (int i = 1; i <= 3; i++) {
        platform.deliver(
            Events.activity(
                "post.create",
                "2244994945",
                java.util.Map.of("id", "down-" + i, "text", "while down", "author_id", "783214")));
      }
      assertThat(platform.awaitIdle(Duration.ofSeconds(8))).isTrue();
      assertThat(platform.droppedEvents()).isEqualTo(3);
      // as if it had stopped ten minutes ago (a real clock cannot wait that long here)
      Files.writeString(
          file,
          "# servicehooks catch-up state, format 1\nheartbeat="
              + Instant.now().minus(Duration.ofMinutes(10))
              + "\n",
          StandardCharsets.UTF_8);

      try (Running again = Running.start(settings, env, handled)) {
        assertThat(platform.awaitIdle(Duration.ofSeconds(8))).isTrue();
        assertThat(platform.replayRequests()).hasSize(1);
        await()
            .atMost(Duration.ofSeconds(8))
            .untilAsserted(
                () ->
                    assertThat(again.consumer().scrape())
                        .contains("webhook_catchup_replays_asked_total 1.0")
                        .contains("webhook_catchup_replays_completed_total 1.0"));
        assertThat(handled.keySet()).containsExactlyInAnyOrder("down-1", "down-2", "down-3");
        assertThat(handled.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
        assertThat(Files.readString(file)).doesNotContain("job.");
      }
    }
  }
}
