package io.servicehooks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.core.WebhookListener;
import io.servicehooks.testsupport.TestDatabase;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * In durable mode the inbox is part of Boot's readiness group, so readiness goes 503 while the
 * inbox database does not answer and 200 again when it does; liveness stays 200.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = WebhookProbesAppTest.App.class,
    properties = {
      "servicehooks.webhook.consumer-secrets=test-consumer-secret",
      "servicehooks.webhook.acknowledgement.mode=durable",
      "management.endpoint.health.probes.enabled=true",
      "management.endpoint.health.show-details=always",
      "management.endpoints.web.exposure.include=health",
      "spring.main.banner-mode=off"
    })
@DirtiesContext
final class WebhookProbesAppTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final AtomicBoolean CUT = new AtomicBoolean();
  private static TestDatabase.Schema schema;

  @LocalServerPort int port;

  private final HttpClient http = HttpClient.newHttpClient();

  @DynamicPropertySource
  static void inboxSchema(DynamicPropertyRegistry registry) throws Exception {
    schema = TestDatabase.schema();
    registry.add("servicehooks.webhook.inbox.schema", () -> schema.name);
  }

  @AfterAll
  static void dropSchema() throws Exception {
    schema.close();
  }

  @Test
  void readiness_followsTheInboxDatabase_livenessDoesNot() throws Exception {
    HttpResponse<String> ready = get("/actuator/health/readiness");
    assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
    assertThat(JSON.readTree(ready.body()).get("status").asText()).isEqualTo("UP");

    CUT.set(true);
    try {
      HttpResponse<String> cut = get("/actuator/health/readiness");
      assertThat(cut.statusCode()).as(cut.body()).isEqualTo(503);
      assertThat(JSON.readTree(cut.body()).get("status").asText()).isEqualTo("DOWN");
      HttpResponse<String> live = get("/actuator/health/liveness");
      assertThat(live.statusCode()).as(live.body()).isEqualTo(200);
      assertThat(JSON.readTree(live.body()).get("status").asText()).isEqualTo("UP");
    } finally {
      CUT.set(false);
    }

    assertThat(get("/actuator/health/readiness").statusCode()).isEqualTo(200);
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {

    @Bean
    WebhookListener ignoring() {
      return event -> {};
    }

    /** The real test database, or, while CUT, a real driver that finds nothing at its address. */
    @Bean
    DataSource dataSource() throws Exception {
      int port;
      try (ServerSocket s = new ServerSocket(0)) {
        port = s.getLocalPort();
      }
      PGSimpleDataSource nowhere = new PGSimpleDataSource();
      nowhere.setURL("jdbc:postgresql://127.0.0.1:" + port + "/test");
      nowhere.setConnectTimeout(1);
      DataSource real = TestDatabase.dataSource();
      return (DataSource)
          Proxy.newProxyInstance(
              WebhookProbesAppTest.class.getClassLoader(),
              new Class<?>[] {DataSource.class},
              (proxy, method, args) -> {
                try {
                  return method.invoke(CUT.get() ? nowhere : real, args);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
              });
    }
  }
}
