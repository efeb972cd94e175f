package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

final class ConsumerMainTest {

  private static final String LONG_SECRET = "a-long-enough-current-consumer-secret-0123456789";

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(Map<String, String> env, String... args) throws Exception {
    return ConsumerMain.run(
        args,
        env,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void run_withoutSecret_exits2WithOneLineReason() throws Exception {
    assertThat(run(Map.of("PORT", "0"))).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8).strip())
        .startsWith("servicehooks-consumer: SERVICE_CONSUMER_SECRET is not set")
        .doesNotContain("\n");
  }

  @Test
  void run_unresolvedPlaceholderSecret_exits2WithOneLineNamingTheShape() throws Exception {
    assertThat(run(Map.of("SERVICE_CONSUMER_SECRET", "${SERVICE_CONSUMER_SECRET}", "PORT", "0")))
        .isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8).strip())
        .startsWith("servicehooks-consumer: SERVICE_CONSUMER_SECRET: consumer secret at index 0")
        .contains("unresolved placeholder (${...})")
        .doesNotContain("${SERVICE")
        .doesNotContain("\n");
  }

  @Test
  void run_placeholderAsTheOldSecret_exits2NamingItsIndex() throws Exception {
    assertThat(run(Map.of("SERVICE_CONSUMER_SECRET", LONG_SECRET + ",$OLD_SECRET", "PORT", "0")))
        .isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("index 1")
        .contains("$NAME")
        .doesNotContain(LONG_SECRET)
        .doesNotContain("OLD_SECRET");
  }

  @Test
  void parse_environmentDefaults() throws Exception {
    ConsumerMain.Command c =
        ConsumerMain.parse(new String[0], Map.of("SERVICE_CONSUMER_SECRET", "a, b"));
    assertThat(c.settings().consumerSecrets()).containsExactly("a", "b");
    assertThat(c.settings().port()).isEqualTo(8080);
    assertThat(c.settings().path()).isEqualTo("/webhooks");
    assertThat(c.settings().inlineListeners()).isFalse();
    assertThat(c.settings().logEvents()).isTrue();
    assertThat(c.settings().toString()).doesNotContain("a,").doesNotContain("[a");
  }

  @Test
  void parse_flagsOverrideEnvironment() throws Exception {
    ConsumerMain.Command c =
        ConsumerMain.parse(
            new String[] {"--port", "9000", "--path", "/hooks"},
            Map.of(
                "SERVICE_CONSUMER_SECRET",
                "s",
                "PORT",
                "7000",
                "WEBHOOK_PATH",
                "/x",
                "LISTENER_MODE",
                "inline",
                "LOG_EVENTS",
                "false"));
    assertThat(c.settings().port()).isEqualTo(9000);
    assertThat(c.settings().path()).isEqualTo("/hooks");
    assertThat(c.settings().inlineListeners()).isTrue();
    assertThat(c.settings().logEvents()).isFalse();
  }

  @Test
  void run_badValues_exit2NamingTheValue() throws Exception {
    assertThat(run(Map.of("SERVICE_CONSUMER_SECRET", "s", "PORT", "eighty"))).isEqualTo(2);
    assertThat(run(Map.of("SERVICE_CONSUMER_SECRET", "s", "LISTENER_MODE", "fast"))).isEqualTo(2);
    assertThat(run(Map.of("SERVICE_CONSUMER_SECRET", "s"), "--secret", "s")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("'eighty'")
        .contains("'fast'")
        .contains("'--secret'");
  }

  @Test
  void listenerDelayMs_unsetOrInRange_isTakenElseConfigError() throws Exception {
    assertThat(ConsumerMain.listenerDelayMs(Map.of())).isZero();
    assertThat(ConsumerMain.listenerDelayMs(Map.of("LISTENER_DELAY_MS", " 50 "))).isEqualTo(50);
    assertThat(run(Map.of("SERVICE_CONSUMER_SECRET", "s", "LISTENER_DELAY_MS", "-1"))).isEqualTo(2);
    assertThat(run(Map.of("SERVICE_CONSUMER_SECRET", "s", "LISTENER_DELAY_MS", "slow")))
        .isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("'-1'").contains("'slow'");
  }

  @Test
  void run_badDatabaseUrl_exits2WithOneLineWithoutPassword() throws Exception {
    assertThat(
            run(
                Map.of(
                    "SERVICE_CONSUMER_SECRET",
                    "s",
                    "DATABASE_URL",
                    "postgres://app:s3cret@db.example")))
        .isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8).strip())
        .startsWith("servicehooks-consumer: DATABASE_URL has no database name")
        .contains("postgres://app:***@db.example")
        .doesNotContain("s3cret")
        .doesNotContain("\n");
  }

  @Test
  void run_semicolonSeparatedDatabaseUrl_exits2WithOneLineWithoutPassword() throws Exception {
    // pgjdbc would take "postgres;password=S3cretPW" as the user name, and the server's error would
    // repeat it.
    assertThat(
            run(
                Map.of(
                    "SERVICE_CONSUMER_SECRET",
                    "s",
                    "PORT",
                    "0",
                    "HOST",
                    "127.0.0.1",
                    "DATABASE_URL",
                    "jdbc:postgresql://127.0.0.1:5432/test?user=postgres;password=S3cretPW")))
        .isEqualTo(2);
    String printed = err.toString(StandardCharsets.UTF_8) + out.toString(StandardCharsets.UTF_8);
    assertThat(err.toString(StandardCharsets.UTF_8).strip())
        .startsWith("servicehooks-consumer: DATABASE_URL separates parameters with ';'")
        .doesNotContain("\n");
    assertThat(printed).doesNotContain("S3cretPW");
  }

  @Test
  @Timeout(30)
  void run_unreachableDatabase_exits2WithOneLineNamingTheRedactedUrl() throws Exception {
    // Port 9 (discard) on the loopback: nothing listens, the connection is refused at once.
    int exit =
        run(
            Map.of(
                "SERVICE_CONSUMER_SECRET",
                "s",
                "PORT",
                "0",
                "HOST",
                "127.0.0.1",
                "DATABASE_URL",
                "postgres://app:s3cret%21@127.0.0.1:9/inbox"));
    assertThat(exit).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8).strip())
        .startsWith("servicehooks-consumer: cannot connect to the database at")
        .contains("postgres://app:***@127.0.0.1:9/inbox")
        .doesNotContain("s3cret")
        .doesNotContain("\n");
  }

  @Test
  void parse_databaseUrl_switchesToDurableAndListenerFailIsChecked() throws Exception {
    ConsumerMain.Command c =
        ConsumerMain.parse(
            new String[0],
            Map.of(
                "SERVICE_CONSUMER_SECRET", "s",
                "DATABASE_URL", "postgres://db.example/inbox",
                "DATABASE_USER", "app",
                "DATABASE_PASSWORD", "s3cret"));
    assertThat(c.database().jdbcUrl()).isEqualTo("jdbc:postgresql://db.example/inbox");
    assertThat(c.database().user()).isEqualTo("app");
    assertThat(c.database().toString()).doesNotContain("s3cret");
    assertThat(ConsumerMain.parse(new String[0], Map.of("SERVICE_CONSUMER_SECRET", "s")).database())
        .isNull();
    assertThat(run(Map.of("SERVICE_CONSUMER_SECRET", "s", "LISTENER_FAIL", "maybe"))).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("LISTENER_FAIL").contains("'maybe'");
  }

  @Test
  void parse_withoutManagementPort_noneAndHealthStaysOnWebhookPort() throws Exception {
    ConsumerMain.Command c =
        ConsumerMain.parse(new String[0], Map.of("SERVICE_CONSUMER_SECRET", "s"));
    assertThat(c.settings().managementPort())
        .isEqualTo(StandaloneConsumer.Settings.NO_MANAGEMENT_PORT);
  }

  @Test
  void parse_managementPort_hostDefaultsToHost() throws Exception {
    ConsumerMain.Command c =
        ConsumerMain.parse(
            new String[0],
            Map.of("SERVICE_CONSUMER_SECRET", "s", "HOST", "127.0.0.1", "MANAGEMENT_PORT", "9090"));
    assertThat(c.settings().managementPort()).isEqualTo(9090);
    assertThat(c.settings().managementHost()).isEqualTo("127.0.0.1");
    assertThat(c.settings().toString()).contains("managementPort=9090");
  }

  @Test
  void parse_managementFlagsOverrideEnvironment() throws Exception {
    ConsumerMain.Command c =
        ConsumerMain.parse(
            new String[] {"--management-port", "9191", "--management-host", "::1"},
            Map.of(
                "SERVICE_CONSUMER_SECRET", "s", "MANAGEMENT_PORT", "9090", "MANAGEMENT_HOST", "x"));
    assertThat(c.settings().managementPort()).isEqualTo(9191);
    assertThat(c.settings().managementHost()).isEqualTo("::1");
  }

  @Test
  void parse_badManagementPort_refusedNamingTheValue() {
    for (String bad : new String[] {"nine", "65536", "-1", "80 80"}) {
      assertThatThrownBy(
              () ->
                  ConsumerMain.parse(
                      new String[0],
                      Map.of("SERVICE_CONSUMER_SECRET", "s", "MANAGEMENT_PORT", bad)))
          .as(bad)
          .isInstanceOf(ConsumerMain.ConfigException.class)
          .hasMessageStartingWith("MANAGEMENT_PORT must be")
          .hasMessageContaining(bad.strip());
    }
    assertThatThrownBy(
            () ->
                ConsumerMain.parse(
                    new String[] {"--management-port", "x"},
                    Map.of("SERVICE_CONSUMER_SECRET", "s")))
        .hasMessageContaining("'x'");
  }

  @Test
  @Timeout(30) // before the check, run() started a consumer and waited for SIGTERM
  void run_badManagementPort_exits2WithOneLine() throws Exception {
    assertThat(run(Map.of("SERVICE_CONSUMER_SECRET", "s", "PORT", "0", "MANAGEMENT_PORT", "nine")))
        .isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8).strip())
        .isEqualTo("servicehooks-consumer: MANAGEMENT_PORT must be a number, was 'nine'");
  }

  @Test
  @Timeout(30) // a consumer that started would wait for SIGTERM
  void run_portTaken_exits2WithOneLineNamingHostAndPort() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      String port = String.valueOf(taken.getLocalPort());
      Map<String, String> env =
          Map.of("SERVICE_CONSUMER_SECRET", LONG_SECRET, "HOST", "127.0.0.1", "PORT", port);
      assertThat(run(env)).isEqualTo(2);
      assertThat(err.toString(StandardCharsets.UTF_8).strip())
          .startsWith("servicehooks-consumer: cannot bind http://127.0.0.1:" + port + " ")
          .doesNotContain("\n")
          .doesNotContain(LONG_SECRET);
    }
  }

  @Test
  @Timeout(30)
  void run_managementPortTaken_exits2WithOneLineNamingIt() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      String port = String.valueOf(taken.getLocalPort());
      Map<String, String> env =
          Map.of(
              "SERVICE_CONSUMER_SECRET",
              LONG_SECRET,
              "HOST",
              "127.0.0.1",
              "PORT",
              "0",
              "MANAGEMENT_PORT",
              port);
      assertThat(run(env)).isEqualTo(2);
      assertThat(err.toString(StandardCharsets.UTF_8).strip())
          .startsWith(
              "servicehooks-consumer: cannot bind http://127.0.0.1:"
                  + port
                  + " for /health and /metrics")
          .doesNotContain("\n");
    }
  }

  @Test
  void parse_managementPortSameAsPort_refused() {
    assertThatThrownBy(
            () ->
                ConsumerMain.parse(
                    new String[0],
                    Map.of(
                        "SERVICE_CONSUMER_SECRET", "s", "PORT", "8080", "MANAGEMENT_PORT", "8080")))
        .isInstanceOf(ConsumerMain.ConfigException.class)
        .hasMessageContaining("MANAGEMENT_PORT")
        .hasMessageContaining("PORT");
  }

  @Test
  void parse_managementHostWithoutPort_refused() {
    assertThatThrownBy(
            () ->
                ConsumerMain.parse(
                    new String[0],
                    Map.of("SERVICE_CONSUMER_SECRET", "s", "MANAGEMENT_HOST", "127.0.0.1")))
        .isInstanceOf(ConsumerMain.ConfigException.class)
        .hasMessageContaining("MANAGEMENT_HOST")
        .hasMessageContaining("MANAGEMENT_PORT");
  }

  @Test
  void parse_withoutRedisUrl_dedupInMemory() throws Exception {
    ConsumerMain.Command c =
        ConsumerMain.parse(new String[0], Map.of("SERVICE_CONSUMER_SECRET", "s"));
    assertThat(c.settings().redisUrl()).isNull();
    assertThat(c.settings().redisPrefix()).isNull();
    assertThat(c.settings().toString()).doesNotContain("redis");
  }

  @Test
  void parse_redisUrlAndPrefix_takenAndPasswordNotInToString() throws Exception {
    ConsumerMain.Command c =
        ConsumerMain.parse(
            new String[0],
            Map.of(
                "SERVICE_CONSUMER_SECRET",
                "s",
                "REDIS_URL",
                " redis://app:pa55word@redis.internal:6380/2 ",
                "REDIS_PREFIX",
                "servicehooks:billing"));
    assertThat(c.settings().redisUrl()).isEqualTo("redis://app:pa55word@redis.internal:6380/2");
    assertThat(c.settings().redisPrefix()).isEqualTo("servicehooks:billing");
    assertThat(c.settings().toString())
        .contains("redisUrl=redis://***@redis.internal:6380/2")
        .contains("redisPrefix=servicehooks:billing")
        .doesNotContain("pa55word");
  }

  @Test
  void parse_tlsAndSentinelUrls_accepted() throws Exception {
    for (String url :
        List.of(
            "rediss://:pa55word@redis.internal:6380",
            "redis-sentinel://:pa55word@s1:26379,s2:26379/0#mymaster")) {
      ConsumerMain.Command c =
          ConsumerMain.parse(
              new String[0], Map.of("SERVICE_CONSUMER_SECRET", "s", "REDIS_URL", url));
      assertThat(c.settings().redisUrl()).isEqualTo(url);
    }
  }

  @Test
  void run_badRedisUrl_exits2WithOneLineWithoutThePassword() throws Exception {
    assertThat(
            run(
                Map.of(
                    "SERVICE_CONSUMER_SECRET",
                    "s",
                    "PORT",
                    "0",
                    "REDIS_URL",
                    "http://:pa55word@redis.internal:6379")))
        .isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8).strip())
        .startsWith("servicehooks-consumer: REDIS_URL: ")
        .contains("redis://, rediss:// or redis-sentinel://")
        .contains("http://***@redis.internal:6379")
        .doesNotContain("pa55word")
        .doesNotContain("\n");
  }

  @Test
  void run_unparsableRedisUrl_exits2WithoutThePassword() throws Exception {
    assertThat(
            run(
                Map.of(
                    "SERVICE_CONSUMER_SECRET",
                    "s",
                    "PORT",
                    "0",
                    "REDIS_URL",
                    "redis://:pa55word@redis.internal:99999")))
        .isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8).strip())
        .startsWith("servicehooks-consumer: REDIS_URL: not a valid Redis URI: ")
        .contains("redis://***@redis.internal:99999")
        .doesNotContain("pa55word")
        .doesNotContain("\n");
  }

  @Test
  void run_redisPrefixWithoutUrl_orWithBraces_exits2() throws Exception {
    assertThat(run(Map.of("SERVICE_CONSUMER_SECRET", "s", "REDIS_PREFIX", "app"))).isEqualTo(2);
    assertThat(
            run(
                Map.of(
                    "SERVICE_CONSUMER_SECRET",
                    "s",
                    "REDIS_URL",
                    "redis://127.0.0.1:6379",
                    "REDIS_PREFIX",
                    "app:{x}")))
        .isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("REDIS_PREFIX is set but REDIS_URL is not")
        .contains("REDIS_PREFIX: prefix must be non-blank and without braces: app:{x}");
  }

  @Test
  @Timeout(30)
  void run_redisNotReachable_exits2NamingTheUrlWithoutThePassword() throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    assertThat(
            run(
                Map.of(
                    "SERVICE_CONSUMER_SECRET",
                    LONG_SECRET,
                    "PORT",
                    "0",
                    "REDIS_URL",
                    "redis://default:pa55word@127.0.0.1:" + closed)))
        .isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8).strip())
        .startsWith(
            "servicehooks-consumer: cannot connect to Redis at redis://***@127.0.0.1:"
                + closed
                + " (REDIS_URL): ")
        .doesNotContain("pa55word")
        .doesNotContain("\n");
  }
}
