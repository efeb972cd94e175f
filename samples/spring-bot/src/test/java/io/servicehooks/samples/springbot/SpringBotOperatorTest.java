package io.servicehooks.samples.springbot;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.servicehooks.testsupport.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The operators' side of the bot in durable mode: the {@code webhookinbox} endpoint called with
 * HTTP Basic, as a script does, through the sample's own {@link SecurityConfiguration} on a real
 * PostgreSQL. Reading needs role {@code OPS}, retry (POST) and discard (DELETE) role {@code
 * OPS_WRITE}, and neither asks for a CSRF token.
 */
final class SpringBotOperatorTest {

  private static final String SECRET = "operator-test-consumer-secret";
  private static final String PASSWORD = "operator-test-password";

  private static TestDatabase.Schema schema;
  private static ConfigurableApplicationContext app;
  private static int port;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void start() throws Exception {
    schema = TestDatabase.schema();
    app =
        SpringApplication.run(
            new Class<?>[] {SpringBotApplication.class, Database.class},
            new String[] {
              "--PORT=0",
              "--SERVICE_CONSUMER_SECRET=" + SECRET,
              "--spring.main.banner-mode=off",
              "--servicehooks.webhook.acknowledgement.mode=durable",
              "--servicehooks.webhook.inbox.create-schema=true",
              "--servicehooks.webhook.inbox.schema=" + schema.name,
              "--management.endpoints.web.exposure.include=health,prometheus,webhookinbox",
              "--spring.security.user.name=ops",
              "--spring.security.user.password=" + PASSWORD,
              "--spring.security.user.roles=OPS,OPS_WRITE"
            });
    port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
  }

  /** The application's database, as {@code spring-boot-starter-jdbc} would build it from a URL. */
  @Configuration(proxyBeanMethods = false)
  static class Database {
    @Bean(destroyMethod = "close")
    HikariDataSource dataSource() {
      return TestDatabase.pool(4);
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (app != null) {
      app.close();
    }
    if (schema != null) {
      schema.close();
    }
  }

  @Test
  void operator_getPostDelete_reachTheEndpointWithoutCsrfToken() throws Exception {
    HttpResponse<String> read = send("GET", "/actuator/webhookinbox", null, true);
    assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
    assertThat(read.body()).contains("\"dead\":0");

    HttpResponse<String> retry = send("POST", "/actuator/webhookinbox", "{\"allDead\":true}", true);
    assertThat(retry.statusCode()).as(retry.body()).isEqualTo(200);
    assertThat(retry.body()).contains("\"retried\":0");

    HttpResponse<String> unknown = send("POST", "/actuator/webhookinbox", "{\"id\":987654}", true);
    assertThat(unknown.statusCode()).as(unknown.body()).isEqualTo(404);
    assertThat(unknown.body()).contains("no dead or pending inbox row has id 987654");

    HttpResponse<String> discard = send("DELETE", "/actuator/webhookinbox/987654", null, true);
    assertThat(discard.statusCode()).as(discard.body()).isEqualTo(404);
  }

  @Test
  void anonymous_postAndDelete_refused401() throws Exception {
    assertThat(send("GET", "/actuator/webhookinbox", null, false).statusCode()).isEqualTo(401);
    assertThat(send("POST", "/actuator/webhookinbox", "{\"allDead\":true}", false).statusCode())
        .isEqualTo(401);
    assertThat(send("DELETE", "/actuator/webhookinbox/1", null, false).statusCode()).isEqualTo(401);
  }

  private HttpResponse<String> send(String method, String path, String json, boolean operator)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .method(
                method,
                json == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(json));
    if (json != null) {
      request.header("Content-Type", "application/json");
    }
    if (operator) {
      request.header(
          "Authorization",
          "Basic "
              + Base64.getEncoder()
                  .encodeToString(("ops:" + PASSWORD).getBytes(StandardCharsets.UTF_8)));
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
