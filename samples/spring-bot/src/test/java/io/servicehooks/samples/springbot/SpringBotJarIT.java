package io.servicehooks.samples.springbot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.testkit.TestSigner;
import io.servicehooks.testsupport.JarProcesses;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Starts the executable jar exactly as a user would ({@code SERVICE_CONSUMER_SECRET=... PORT=0 java
 * -jar target/servicehooks-spring-bot.jar}) and talks HTTP to it.
 */
final class SpringBotJarIT {

  private static final String SECRET = "sample-consumer-secret";
  private static final String PREVIOUS_SECRET = "previous-consumer-secret";
  private static final Pattern STARTED = Pattern.compile("Tomcat started on port (\\d+)");

  private static JarProcesses jars;
  private static Process bot;
  private static Path log;
  private static int port;

  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void startTheJar() throws IOException {
    Path jar = Path.of(System.getProperty("bot.jar", "target/servicehooks-spring-bot.jar"));
    assertThat(jar).exists();
    log = jar.resolveSibling("spring-bot-it.log");
    jars = new JarProcesses(jar);
    bot =
        jars.launch()
            .env("SERVICE_CONSUMER_SECRET", SECRET + "," + PREVIOUS_SECRET)
            .env("PORT", "0")
            .without(
                "SERVICE_WEBHOOK_URL",
                "SERVICE_API_BASE_URL",
                "SERVICE_BEARER_TOKEN",
                "SERVICE_API_KEY",
                "SERVICE_API_SECRET")
            .output(log)
            .start();
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> startedPort() != null || !bot.isAlive());
    assertThat(bot.isAlive()).as("the bot exited; see %s", log).isTrue();
    port = startedPort();
  }

  @AfterAll
  static void stopTheJar() throws InterruptedException {
    if (jars != null) {
      jars.close();
    }
  }

  @Test
  void crc_answeredWithTheCurrentSecret() throws Exception {
    HttpResponse<String> response =
        send(HttpRequest.newBuilder(url("/webhooks?crc_token=Tok-42")).GET());
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
    assertThat(response.body()).isEqualTo(TestSigner.crcResponse(SECRET, "Tok-42"));
    assertThat(send(HttpRequest.newBuilder(url("/actuator/prometheus")).GET()).body())
        .contains("webhook_crc_total{outcome=\"answered\"}");
  }

  @Test
  void signedDeliveries_reachTheListenersOnce_andShowInPrometheus() throws Exception {
    String post =
        envelope(
            "-7001",
            "post.create",
            "{\"id\":\"7001\",\"text\":\"hello bot\",\"author_id\":\"783214\"}");
    String bio = envelope("7002", "ProfileBioUpdate", "{\"before\":\"old\",\"after\":\"new\"}");

    assertThat(deliver(post, SECRET).body())
        .isEqualTo("{\"status\":\"accepted\",\"events\":1,\"duplicates\":0}");
    assertThat(deliver(post, SECRET).body())
        .isEqualTo("{\"status\":\"duplicate\",\"events\":0,\"duplicates\":1}");
    assertThat(deliver(bio, PREVIOUS_SECRET).statusCode()).isEqualTo(200);
    assertThat(deliver(bio, "wrong-secret").statusCode()).isEqualTo(401);

    String logged = Files.readString(log);
    assertThat(count(logged, "Post 7001 by 783214: hello bot")).isEqualTo(1);
    assertThat(count(logged, "profile.update.bio (sent as ProfileBioUpdate)")).isEqualTo(1);

    String metrics = send(HttpRequest.newBuilder(url("/actuator/prometheus")).GET()).body();
    assertThat(metrics)
        .contains("webhook_events_total{outcome=\"dispatched\",type=\"post.create\"} 1.0")
        .contains("webhook_events_total{outcome=\"duplicate\",type=\"post.create\"} 1.0")
        .contains("webhook_events_total{outcome=\"dispatched\",type=\"profile.update.bio\"} 1.0")
        .contains("webhook_deliveries_total{outcome=\"invalid_signature\"} 1.0")
        .contains("webhook_delivery_latency_seconds_count");
  }

  @Test
  void health_showsTheWebhookUp() throws Exception {
    HttpResponse<String> response = send(HttpRequest.newBuilder(url("/actuator/health")).GET());
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body())
        .contains("\"webhook\":{\"details\":{\"path\":\"/webhooks\"")
        .doesNotContain(SECRET);
  }

  @Test
  void withoutConsumerSecret_refusesToStart() throws Exception {
    Path jar = Path.of(System.getProperty("bot.jar", "target/servicehooks-spring-bot.jar"));
    try (JarProcesses refused = new JarProcesses(jar)) {
      Process process = refused.launch().without("SERVICE_CONSUMER_SECRET").start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
      // The adapter refuses the placeholder that application.properties leaves unresolved.
      assertThat(process.exitValue()).isNotZero();
      assertThat(output)
          .contains("APPLICATION FAILED TO START")
          .contains(
              "servicehooks.webhook.consumer-secrets[0] is the unresolved placeholder"
                  + " ${SERVICE_CONSUMER_SECRET}")
          .contains("Set SERVICE_CONSUMER_SECRET")
          .doesNotContain("Tomcat started on port");
    }
  }

  // ---- helpers ----------------------------------------------------------------------------------

  private HttpResponse<String> deliver(String body, String secret) throws Exception {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    return send(
        HttpRequest.newBuilder(url("/webhooks"))
            .header("Content-Type", "application/json")
            .header("x-service-webhooks-signature", TestSigner.sign(secret, bytes))
            .POST(HttpRequest.BodyPublishers.ofByteArray(bytes)));
  }

  private HttpResponse<String> send(HttpRequest.Builder request)
      throws IOException, InterruptedException {
    return http.send(
        request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static URI url(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }

  private static String envelope(String id, String type, String payload) {
    return "{\"data\":{\"event_uuid\":\""
        + id
        + "\",\"event_type\":\""
        + type
        + "\",\"filter\":{\"user_id\":\"2244994945\"},\"payload\":"
        + payload
        + "}}";
  }

  private static Integer startedPort() throws IOException {
    Matcher matcher = STARTED.matcher(Files.exists(log) ? Files.readString(log) : "");
    return matcher.find() ? Integer.valueOf(matcher.group(1)) : null;
  }

  private static int count(String text, String needle) {
    int n = 0;
    for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
      n++;
    }
    return n;
  }
}
