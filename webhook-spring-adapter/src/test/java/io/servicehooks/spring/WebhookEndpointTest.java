package io.servicehooks.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.security.config.Customizer.withDefaults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.MeterRegistry;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookEvent;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookResponse;
import io.servicehooks.registration.Webhook;
import io.servicehooks.testkit.DeliveryAttempt;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testkit.TestSigner;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.context.ContextConfiguration;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.ClassUtils;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ContentCachingRequestWrapper;

/**
 * The whole path through a real Tomcat: the platform simulator registers the application (through
 * the auto-configured registration) and delivers signed events, through Spring Security and a
 * filter that reads the body before the endpoint does.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = WebhookEndpointTest.App.class,
    properties = {
      "servicehooks.webhook.max-body-size=64KB",
      "servicehooks.registration.public-url=http://127.0.0.1:${local.server.port}/webhooks",
      "servicehooks.registration.allow-insecure-url=true",
      "management.endpoints.web.exposure.include=health",
      "management.endpoint.health.show-details=always",
      "spring.main.banner-mode=off"
    })
@ContextConfiguration(initializers = WebhookEndpointTest.PlatformCredentials.class)
final class WebhookEndpointTest {

  static final PlatformSimulator platform =
      PlatformSimulator.builder().localMode(true).retrySchedule(List.of()).build().start();

  private static final String USER = "2244994945";

  @LocalServerPort int port;
  @Autowired Listeners listeners;
  @Autowired BodyReadingFilter filter;
  @Autowired MeterRegistry meters;
  @Autowired WebhookConsumer consumer;
  @Autowired WebhookRegistrar registrar;
  @Autowired ApplicationContext context;

  private final HttpClient http = HttpClient.newHttpClient();

  @DynamicPropertySource
  static void platformProperties(DynamicPropertyRegistry registry) {
    registry.add("servicehooks.webhook.consumer-secrets", platform::consumerSecret);
    registry.add("servicehooks.registration.base-url", () -> platform.baseUrl().toString());
  }

  @AfterAll
  static void stopPlatform() {
    platform.close();
  }

  @Test
  void deliveries_throughSecurityAndBodyReadingFilter_eachEventReachesItsListenerOnce() {
    Webhook webhook =
        registrar.outcome().orTimeout(20, java.util.concurrent.TimeUnit.SECONDS).join();
    assertThat(webhook.valid()).isTrue();

    int filterSawBefore = filter.bodiesRead.size();
    String post =
        Events.activity(
            "post.create",
            USER,
            java.util.Map.of(
                "id",
                "1900000000000000001",
                "text",
                "hello from the simulator",
                "author_id",
                "783214"));
    assertThat(platform.deliver(post, 2)).isEqualTo(2);
    assertThat(
            platform.deliver(Events.profileUpdate("ProfileBioUpdate", USER, "old bio", "new bio")))
        .isEqualTo(1);
    assertThat(platform.awaitIdle(Duration.ofSeconds(20))).isTrue();

    assertThat(platform.attempts()).hasSize(3).allMatch(DeliveryAttempt::succeeded);
    assertThat(listeners.posts)
        .containsExactly(new Post("1900000000000000001", "hello from the simulator"));
    assertThat(listeners.profileUpdates)
        .singleElement()
        .satisfies(
            event -> {
              assertThat(event.type()).isEqualTo("profile.update.bio");
              assertThat(event.originalType()).isEqualTo("ProfileBioUpdate");
              assertThat(event.payload().path("after").asText()).isEqualTo("new bio");
            });
    // The filter really read every body before the endpoint did.
    assertThat(filter.bodiesRead.subList(filterSawBefore, filter.bodiesRead.size()))
        .hasSize(3)
        .allMatch(length -> length > 0);

    assertThat(
            meters
                .get("webhook.events")
                .tag("type", "post.create")
                .tag("outcome", "dispatched")
                .counter()
                .count())
        .isEqualTo(1.0);
    assertThat(
            meters
                .get("webhook.events")
                .tag("type", "post.create")
                .tag("outcome", "duplicate")
                .counter()
                .count())
        .isEqualTo(1.0);
    assertThat(
            meters
                .get("webhook.events")
                .tag("type", "profile.update.bio")
                .tag("outcome", "dispatched")
                .counter()
                .count())
        .isEqualTo(1.0);
    assertThat(meters.get("webhook.delivery.latency").timer().count()).isGreaterThanOrEqualTo(3L);
  }

  @Test
  void crc_validToken_answersTheIndependentlyComputedHmac() throws Exception {
    String token = "Zm9vYmFy-crc_token.1234";
    HttpResponse<String> response =
        send(HttpRequest.newBuilder(endpoint("?crc_token=" + token + "&nonce=n1")).GET());

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
    assertThat(response.body()).isEqualTo(TestSigner.crcResponse(platform.consumerSecret(), token));
    assertThat(meters.get("webhook.crc").tag("outcome", "answered").counter().count())
        .isGreaterThanOrEqualTo(1.0);
  }

  @Test
  void crc_bodyLikeToken_refusedExactlyAsTheCore() throws Exception {
    String query = "crc_token=%7B%22a%22%3A1%7D";
    HttpResponse<String> response = send(HttpRequest.newBuilder(endpoint("?" + query)).GET());
    assertSameAnswer(response, consumer.handle(WebhookRequest.get(query)).join());
    assertThat(response.statusCode()).isEqualTo(400);
  }

  @Test
  void delivery_badSignature_answers401ExactlyAsTheCore() throws Exception {
    byte[] body =
        Events.activity(
                "post.create",
                USER,
                java.util.Map.of("id", "2", "text", "forged", "author_id", "783214"))
            .getBytes(StandardCharsets.UTF_8);
    String signature = TestSigner.sign("not-the-secret", body);
    HttpResponse<String> response =
        send(post(body).header(WebhookRequest.SIGNATURE_HEADER, signature));

    assertThat(response.statusCode()).isEqualTo(401);
    assertSameAnswer(response, consumer.handle(WebhookRequest.post(signature, body)).join());
    assertThat(listeners.posts).noneMatch(p -> p.id().equals("2"));
  }

  @Test
  void delivery_missingSignature_answers401() throws Exception {
    byte[] body =
        Events.activity(
                "post.create",
                USER,
                java.util.Map.of("id", "3", "text", "unsigned", "author_id", "783214"))
            .getBytes(StandardCharsets.UTF_8);
    HttpResponse<String> response = send(post(body));
    assertSameAnswer(response, consumer.handle(WebhookRequest.post(null, body)).join());
    assertThat(response.statusCode()).isEqualTo(401);
  }

  @Test
  void delivery_overMaxBodySize_answers413ExactlyAsTheCore() throws Exception {
    byte[] body = new byte[64 * 1024 + 1];
    Arrays.fill(body, (byte) ' ');
    String signature = TestSigner.sign(platform.consumerSecret(), body);
    HttpResponse<String> response =
        send(post(body).header(WebhookRequest.SIGNATURE_HEADER, signature));

    assertThat(response.statusCode()).isEqualTo(413);
    assertSameAnswer(response, consumer.adapterSupport().payloadTooLarge());
  }

  @Test
  void otherMethod_answers405ExactlyAsTheCore() throws Exception {
    HttpResponse<String> response =
        send(HttpRequest.newBuilder(endpoint("")).PUT(HttpRequest.BodyPublishers.noBody()));
    WebhookResponse core = consumer.handle(new WebhookRequest("PUT", null, Map.of(), null)).join();
    assertSameAnswer(response, core);
    assertThat(response.headers().firstValue("Allow")).hasValue("GET, POST");
  }

  @Test
  void security_onForEverythingElse() throws Exception {
    HttpResponse<String> response =
        send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/anything")).GET());
    assertThat(response.statusCode()).isEqualTo(401);
  }

  @Test
  void health_showsTheWebhookUp() throws Exception {
    HttpResponse<String> response =
        send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health"))
                .GET());
    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode webhook =
        new ObjectMapper().readTree(response.body()).path("components").path("webhook");
    assertThat(webhook.path("status").asText()).isEqualTo("UP");
    assertThat(webhook.path("details").path("path").asText()).isEqualTo("/webhooks");
    assertThat(response.body()).doesNotContain(platform.consumerSecret());
  }

  @Test
  void server_isTomcat_withoutUndertow() {
    assertThat(((WebServerApplicationContext) context).getWebServer())
        .isInstanceOf(TomcatWebServer.class);
    assertThat(ClassUtils.isPresent("io.undertow.Undertow", null)).isFalse();
  }

  // ---- helpers ----------------------------------------------------------------------------------

  private URI endpoint(String query) {
    return URI.create("http://127.0.0.1:" + port + "/webhooks" + query);
  }

  private HttpRequest.Builder post(byte[] body) {
    return HttpRequest.newBuilder(endpoint(""))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
  }

  private HttpResponse<String> send(HttpRequest.Builder request)
      throws IOException, InterruptedException {
    return http.send(
        request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static void assertSameAnswer(HttpResponse<String> response, WebhookResponse core) {
    assertThat(response.statusCode()).isEqualTo(core.status());
    assertThat(response.body()).isEqualTo(core.bodyAsString());
    assertThat(response.headers().firstValue("Content-Type")).hasValue(core.contentType());
  }

  // ---- the application --------------------------------------------------------------------------

  /**
   * The API key and secret reach the application the way they would in production: the environment.
   */
  static final class PlatformCredentials
      implements ApplicationContextInitializer<ConfigurableApplicationContext> {
    @Override
    public void initialize(ConfigurableApplicationContext context) {
      FakeEnvironment.of(
              Map.of(
                  "SERVICE_API_KEY", platform.apiKey(), "SERVICE_API_SECRET", platform.apiSecret()))
          .initialize(context);
    }
  }

  record Post(String id, String text) {}

  static class Listeners {
    final List<Post> posts = new CopyOnWriteArrayList<>();
    final List<WebhookEvent> profileUpdates = new CopyOnWriteArrayList<>();

    @OnWebhookEvent("post.create")
    void onPost(Post post) {
      posts.add(post);
    }

    @OnWebhookEvent("profile.update.*")
    void onProfileUpdate(WebhookEvent event) {
      profileUpdates.add(event);
    }
  }

  /** Reads every request body before the endpoint, as logging and auditing filters do. */
  static class BodyReadingFilter extends OncePerRequestFilter {
    final List<Integer> bodiesRead = new CopyOnWriteArrayList<>();

    @Override
    protected void doFilterInternal(
        HttpServletRequest request, HttpServletResponse response, FilterChain chain)
        throws ServletException, IOException {
      ContentCachingRequestWrapper wrapper =
          new ContentCachingRequestWrapper(request, 10 * 1024 * 1024);
      if ("POST".equals(request.getMethod())) {
        bodiesRead.add(wrapper.getInputStream().readAllBytes().length);
      }
      chain.doFilter(wrapper, response);
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {

    @Bean
    Listeners listeners() {
      return new Listeners();
    }

    @Bean
    BodyReadingFilter bodyReadingFilter() {
      return new BodyReadingFilter();
    }

    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
      // The README's line for secured applications, plus the health endpoint for this test.
      http.csrf(csrf -> csrf.ignoringRequestMatchers("/webhooks"))
          .authorizeHttpRequests(
              requests ->
                  requests
                      .requestMatchers("/webhooks", "/actuator/health")
                      .permitAll()
                      .anyRequest()
                      .authenticated())
          .httpBasic(withDefaults());
      return http.build();
    }
  }
}
