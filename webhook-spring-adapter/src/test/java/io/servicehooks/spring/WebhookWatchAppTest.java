package io.servicehooks.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.MeterRegistry;
import io.servicehooks.registration.Webhook;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.testkit.PlatformSimulator;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.context.ContextConfiguration;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A registered webhook that the platform switches off (the simulator marks it invalid, as after
 * failed CRC checks) is revalidated by the application on its own, within {@code
 * servicehooks.registration.check-interval}; the health shows the last CRC answer.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = WebhookWatchAppTest.App.class,
    properties = {
      "servicehooks.registration.public-url=http://127.0.0.1:${local.server.port}/webhooks",
      "servicehooks.registration.allow-insecure-url=true",
      "servicehooks.registration.check-interval=1000ms",
      "servicehooks.registration.check-silence=1h",
      "management.endpoints.web.exposure.include=health",
      "management.endpoint.health.show-details=always",
      "spring.main.banner-mode=off"
    })
@ContextConfiguration(initializers = WebhookWatchAppTest.PlatformCredentials.class)
final class WebhookWatchAppTest {

  static final PlatformSimulator platform =
      PlatformSimulator.builder().localMode(true).retrySchedule(List.of()).build().start();

  @LocalServerPort int port;
  @Autowired WebhookRegistrar registrar;
  @Autowired WebhookClient client;
  @Autowired MeterRegistry meters;

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
  void switchedOff_revalidatedWithinTheCheckInterval_healthShowsTheLastCrc() throws Exception {
    Webhook webhook = registrar.outcome().orTimeout(20, TimeUnit.SECONDS).join();
    assertThat(webhook.valid()).isTrue();
    JsonNode health =
        new ObjectMapper()
            .readTree(
                HttpClient.newHttpClient()
                    .send(
                        HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + port + "/actuator/health"))
                            .timeout(Duration.ofSeconds(10))
                            .build(),
                        HttpResponse.BodyHandlers.ofString())
                    .body());
    assertThat(health.at("/components/webhook/details/crcLastAnswered").asText()).startsWith("20");

    platform.invalidateWebhook(webhook.id());
    assertThat(client.list().get(0).valid()).isFalse();

    await().atMost(Duration.ofSeconds(20)).until(() -> client.list().get(0).valid());
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                meters
                        .get("webhook.registration.revalidations")
                        .tag("outcome", "revalidated")
                        .counter()
                        .count()
                    == 1.0);
  }

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

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
      http.csrf(csrf -> csrf.ignoringRequestMatchers("/webhooks"))
          .authorizeHttpRequests(
              requests ->
                  requests
                      .requestMatchers("/webhooks", "/actuator/health")
                      .permitAll()
                      .anyRequest()
                      .authenticated());
      return http.build();
    }
  }
}
