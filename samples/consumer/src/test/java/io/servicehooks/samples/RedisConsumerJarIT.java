package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.testkit.TestSigner;
import io.servicehooks.testsupport.JarProcesses;
import io.servicehooks.testsupport.Ports;
import io.servicehooks.testsupport.TestRedis;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two processes of the packaged jar with the same {@code REDIS_URL} and {@code REDIS_PREFIX}
 * against a real Redis behave as one consumer: a delivery handled by one is a duplicate on the
 * other.
 */
final class RedisConsumerJarIT {

  private static final Path JAR = Path.of("target/servicehooks-consumer.jar");
  private static final String SECRET = "redis-jar-test-consumer-secret-0123456789";
  private static final String PASSWORD = "not-a-real-redis-password-4711";
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final TestRedis redis = TestRedis.shared();
  @RegisterExtension final JarProcesses jars = new JarProcesses(JAR);
  private final List<Process> processes = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    jars.close(); // the consumers first: the store is closed after the server
    redis.close(); // deletes every key under the test's prefix
    try (TestRedis check = TestRedis.shared()) {
      assertThat(check.admin().keys(redis.prefix + ":*")).isEmpty();
    }
  }

  private Process start(Path output, Map<String, String> env) throws IOException {
    Process p =
        jars.launch()
            .without("SERVICE_CONSUMER_SECRET", "REDIS_URL", "REDIS_PREFIX")
            .env(env)
            .output(output)
            .start();
    processes.add(p);
    return p;
  }

  private String startConsumer(Path output) throws IOException {
    int port = Ports.free();
    start(
        output,
        Map.of(
            "SERVICE_CONSUMER_SECRET",
            SECRET,
            "PORT",
            String.valueOf(port),
            "HOST",
            "127.0.0.1",
            "REDIS_URL",
            redis.urlWithPassword(PASSWORD),
            "REDIS_PREFIX",
            redis.prefix));
    return "http://127.0.0.1:" + port;
  }

  private static void awaitHealthy(String base) {
    JarProcesses.awaitHealthy(base, Duration.ofSeconds(60));
  }

  private static String delivery(String id) {
    return "{\"data\":{\"event_uuid\":\"" + id + "\",\"event_type\":\"NewsNew\",\"payload\":{}}}";
  }

  private static HttpResponse<String> post(String base, String json) throws Exception {
    return CLIENT.send(
        HttpRequest.newBuilder(URI.create(base + "/webhooks"))
            .header("X-Service-Webhooks-Signature", TestSigner.sign(SECRET, json))
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Posts like the platform: a 503 is retried until the delivery is answered 200. */
  private static String postUntil200(String base, String json) {
    String[] body = new String[1];
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              HttpResponse<String> r = post(base, json);
              assertThat(r.statusCode()).as(r.body()).isIn(200, 503);
              body[0] = r.body();
              return r.statusCode() == 200;
            });
    return body[0];
  }

  private static List<String> handled(Path... logs) throws IOException {
    List<String> ids = new ArrayList<>();
    Pattern line = Pattern.compile("Handled news\\.new event (\\S+)");
    for (Path log : logs) {
      Matcher m = line.matcher(Files.readString(log, StandardCharsets.UTF_8));
      while (m.find()) {
        ids.add(m.group(1));
      }
    }
    return ids;
  }

  @Test
  void twoJars_sameRedisAndPrefix_eachEventHandledOnceInTotal(@TempDir Path dir) throws Exception {
    Path logA = dir.resolve("a.txt");
    Path logB = dir.resolve("b.txt");
    String a = startConsumer(logA);
    String b = startConsumer(logB);
    awaitHealthy(a);
    awaitHealthy(b);

    // The same signed delivery to both, one after the other: run by A, a duplicate on B.
    HttpResponse<String> first = post(a, delivery("1"));
    HttpResponse<String> copy = post(b, delivery("1"));
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body()).contains("accepted");
    assertThat(copy.statusCode()).isEqualTo(200);
    assertThat(copy.body()).contains("duplicate");

    // Twenty more, each sent to both at the same moment (a copy that finds its event running on
    // the other is answered 503 and retried, as the platform would).
    List<CompletableFuture<String>> answers = new ArrayList<>();
    for (int i = 2; i <= 21; i++) {
      String json = delivery(String.valueOf(i));
      answers.add(CompletableFuture.supplyAsync(() -> postUntil200(a, json)));
      answers.add(CompletableFuture.supplyAsync(() -> postUntil200(b, json)));
    }
    List<String> bodies = new ArrayList<>();
    for (CompletableFuture<String> answer : answers) {
      bodies.add(answer.get(60, TimeUnit.SECONDS));
    }
    assertThat(bodies.stream().filter(s -> s.contains("\"duplicate\""))).hasSize(20);
    assertThat(bodies.stream().filter(s -> s.contains("\"accepted\""))).hasSize(20);

    // One done key per event under the prefix, and every event handled exactly once in total.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(handled(logA, logB)).hasSize(21));
    assertThat(handled(logA, logB)).doesNotHaveDuplicates();
    List<String> keys = redis.keys();
    assertThat(keys).hasSize(21).contains(redis.prefix + ":{e:1}");
    for (String key : keys) {
      assertThat(redis.admin().get(key)).as(key).isEqualTo("d");
    }

    for (Process p : processes) {
      p.destroy(); // SIGTERM: the store is closed after the server
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).isIn(0, 143);
    }
    for (Path log : List.of(logA, logB)) {
      String text = Files.readString(log, StandardCharsets.UTF_8);
      String where = redis.url.contains("@") ? "://***@" : "://***@" + redis.url.substring(8);
      assertThat(text)
          .contains("Dedup on Redis at redis" + where + ", prefix " + redis.prefix)
          .contains("Stopped")
          .doesNotContain(PASSWORD)
          .doesNotContain(SECRET);
    }
  }

  @Test
  void jar_redisNotReachable_exits2WithOneLineWithoutThePassword(@TempDir Path dir)
      throws Exception {
    Path out = dir.resolve("out.txt");
    String nobody = "redis://default:" + PASSWORD + "@127.0.0.1:" + Ports.free();
    Process p =
        start(out, Map.of("SERVICE_CONSUMER_SECRET", SECRET, "PORT", "0", "REDIS_URL", nobody));
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isEqualTo(2);
    assertThat(Files.readAllLines(out))
        .singleElement()
        .asString()
        .startsWith("servicehooks-consumer: cannot connect to Redis at redis://***@127.0.0.1:")
        .contains("(REDIS_URL)")
        .doesNotContain(PASSWORD);
  }
}
