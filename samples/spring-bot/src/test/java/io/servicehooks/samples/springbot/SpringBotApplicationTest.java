package io.servicehooks.samples.springbot;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookResponse;
import io.servicehooks.registration.Webhook;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.testkit.DeliveryAttempt;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testkit.TestSigner;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The bot as docs/spring-boot.md's Spring example configures it (its {@code application.properties}
 * and {@link SecurityConfiguration}, word for word), on port 0, with the testkit's platform
 * simulator on the far side: it registers the webhook (a CRC check) and sends signed deliveries.
 */
final class SpringBotApplicationTest {

  private static final String USER = "2244994945";

  private static PlatformSimulator platform;
  private static ConfigurableApplicationContext app;
  private static int port;

  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() {
    platform = PlatformSimulator.builder().localMode(true).retrySchedule(List.of()).build().start();
    // Command-line arguments stand in for the environment variables the properties file maps.
    app =
        SpringApplication.run(
            SpringBotApplication.class,
            "--PORT=0",
            "--SERVICE_CONSUMER_SECRET=" + platform.consumerSecret(),
            "--spring.main.banner-mode=off");
    port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
  }

  @AfterAll
  static void stop() {
    if (app != null) {
      app.close();
    }
    if (platform != null) {
      platform.close();
    }
  }

  @Test
  void crc_getThroughSecurity_answeredWithTheConsumerSecret() throws Exception {
    HttpResponse<String> response = send(HttpRequest.newBuilder(url("/webhooks?crc_token=T-1")));
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
    assertThat(response.body()).isEqualTo(TestSigner.crcResponse(platform.consumerSecret(), "T-1"));
  }

  @Test
  void platform_registersAndDelivers_signedPostReachesTheListenerOnce() throws Exception {
    Webhook webhook =
        WebhookClient.builder()
            .baseUrl(platform.baseUrl())
            .apiCredentials(platform.apiKey(), platform.apiSecret())
            .allowInsecureUrls(true)
            .build()
            .ensureRegistered("http://127.0.0.1:" + port + "/webhooks");
    assertThat(webhook.valid()).as("the platform's CRC check passed").isTrue();

    BotListeners listeners = app.getBean(BotListeners.class);
    long postsBefore = listeners.posts();
    int attemptsBefore = platform.attempts().size();
    assertThat(
            platform.deliver(
                Events.activity(
                    "post.create",
                    USER,
                    java.util.Map.of(
                        "id", "1900000000000000042", "text", "hi bot", "author_id", "783214")),
                2))
        .isEqualTo(2);
    assertThat(platform.awaitIdle(Duration.ofSeconds(20))).isTrue();

    List<DeliveryAttempt> attempts = platform.attempts();
    assertThat(attempts.subList(attemptsBefore, attempts.size()))
        .hasSize(2)
        .allMatch(DeliveryAttempt::succeeded);
    // A POST without a CSRF token got through Spring Security; the duplicate was deduplicated.
    assertThat(listeners.posts()).isEqualTo(postsBefore + 1);
  }

  @Test
  void unsignedPost_answeredByServicehooksNotBySpringSecurity() throws Exception {
    byte[] body =
        Events.activity(
                "post.create",
                USER,
                java.util.Map.of("id", "7", "text", "unsigned", "author_id", "783214"))
            .getBytes(StandardCharsets.UTF_8);
    HttpResponse<String> response =
        send(
            HttpRequest.newBuilder(url("/webhooks"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)));

    WebhookResponse core =
        app.getBean(WebhookConsumer.class).handle(WebhookRequest.post(null, body)).join();
    assertThat(response.statusCode()).isEqualTo(401).isEqualTo(core.status());
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
    assertThat(response.body()).isEqualTo(core.bodyAsString()).startsWith("{\"error\":");
    assertThat(response.headers().firstValue("WWW-Authenticate")).isEmpty();
  }

  @Test
  void health_reachableWithoutLogin_showsTheWebhookUp() throws Exception {
    HttpResponse<String> response = send(HttpRequest.newBuilder(url("/actuator/health")));
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body())
        .contains("\"webhook\":{\"details\":{\"path\":\"/webhooks\"")
        .contains("\"acknowledgement\":\"SYNCHRONOUS\"")
        .doesNotContain(platform.consumerSecret());
  }

  @Test
  void prometheus_reachableWithoutLogin_hasTheWebhookMeters() throws Exception {
    send(HttpRequest.newBuilder(url("/webhooks?crc_token=T-2")));
    HttpResponse<String> response = send(HttpRequest.newBuilder(url("/actuator/prometheus")));
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).contains("webhook_crc_total{outcome=\"answered\"}");
  }

  @Test
  void anyOtherPath_needsAuthentication() throws Exception {
    for (String path : List.of("/", "/anything", "/actuator/env", "/actuator")) {
      HttpResponse<String> response = send(HttpRequest.newBuilder(url(path)));
      assertThat(response.statusCode()).as(path).isEqualTo(401);
      assertThat(response.headers().firstValue("WWW-Authenticate")).as(path).isPresent();
    }
  }

  @Test
  void otherMethodOnTheWebhookPath_needsAuthentication() throws Exception {
    HttpResponse<String> response =
        send(HttpRequest.newBuilder(url("/webhooks")).PUT(HttpRequest.BodyPublishers.noBody()));
    assertThat(response.statusCode()).isEqualTo(401);
  }

  @Test
  void springBootDocs_showExactlyThisConfiguration() throws IOException {
    String readme = Files.readString(Path.of("../../docs/spring-boot.md"));
    String security =
        Files.readString(
            Path.of("src/main/java/io/servicehooks/samples/springbot/SecurityConfiguration.java"));
    assertThat(security).startsWith("package io.servicehooks.samples.springbot;\n");
    assertThat(readme)
        .contains(
            "```properties\n"
                + Files.readString(Path.of("src/main/resources/application.properties"))
                + "```")
        // Word for word but for the package, which is the README application's.
        .contains(
            "```java\n"
                + security.replaceFirst(
                    "package io.servicehooks.samples.springbot;", "package com.example.bot;")
                + "```");
  }

  // ---- helpers ----------------------------------------------------------------------------------

  private HttpResponse<String> send(HttpRequest.Builder request)
      throws IOException, InterruptedException {
    return http.send(
        request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static URI url(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }
}
