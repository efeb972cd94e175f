package io.servicehooks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookResponse;
import io.servicehooks.core.payload.DirectMessage;
import io.servicehooks.registration.Answering;
import io.servicehooks.registration.Say;
import io.servicehooks.registration.UserCredentialsSource;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.TestSigner;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Answering from {@code @OnWebhookEvent} methods: with {@code servicehooks.registration.base-url}
 * the application gets a ready {@link WebhookClient}, the default user's credentials from {@code
 * servicehooks.webhook.user.*} and an {@link Answering}; a method taking a {@link Say} answers a
 * signed delivery, and a real HTTP server playing the platform records the answer.
 */
final class AnsweringMethodsTest {

  private static final String SECRET = "test-consumer-secret";
  private static final String BOT = "2244994945";

  /** What the platform was asked: method, path, Authorization header, body. */
  record Asked(String method, String path, String authorization, String body) {}

  private final List<Asked> asked = new CopyOnWriteArrayList<>();
  private HttpServer platform;

  @BeforeEach
  void startPlatform() throws IOException {
    platform = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    platform.createContext(
        "/",
        exchange -> {
          byte[] body = exchange.getRequestBody().readAllBytes();
          asked.add(
              new Asked(
                  exchange.getRequestMethod(),
                  exchange.getRequestURI().getPath(),
                  exchange.getRequestHeaders().getFirst("Authorization"),
                  new String(body, StandardCharsets.UTF_8)));
          byte[] answer =
              "{\"data\":{\"dm_conversation_id\":\"c1\",\"dm_event_id\":\"77\"}}"
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(201, answer.length);
          exchange.getResponseBody().write(answer);
          exchange.close();
        });
    platform.start();
  }

  @AfterEach
  void stopPlatform() {
    platform.stop(0);
  }

  private WebApplicationContextRunner runner() {
    return new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WebhookAutoConfiguration.class))
        .withInitializer(
            FakeEnvironment.of(
                Map.of("SERVICE_API_KEY", "api-key", "SERVICE_API_SECRET", "api-secret")))
        .withPropertyValues(
            "servicehooks.webhook.consumer-secrets=" + SECRET,
            "servicehooks.registration.base-url=http://127.0.0.1:"
                + platform.getAddress().getPort(),
            "servicehooks.registration.allow-insecure-url=true");
  }

  /** A bot whose one method answers each direct message. */
  static final class DmBot {
    @OnWebhookEvent("dm.received")
    void onMessage(DirectMessage message, Say say) throws IOException {
      say.reply("got it");
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class Bot {
    @Bean
    DmBot dmBot() {
      return new DmBot();
    }
  }

  private static WebhookResponse deliver(WebhookConsumer consumer, String body) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    return consumer.handle(WebhookRequest.post(TestSigner.sign(SECRET, bytes), bytes)).join();
  }

  @Test
  void sayParameter_dmReceived_answersTheSenderAsTheDefaultUser() {
    runner()
        .withUserConfiguration(Bot.class)
        .withPropertyValues(
            "servicehooks.webhook.user.token=user-token",
            "servicehooks.webhook.user.token-secret=user-token-secret")
        .run(
            context -> {
              assertThat(context)
                  .hasNotFailed()
                  .hasSingleBean(WebhookClient.class)
                  .hasSingleBean(UserCredentialsSource.class)
                  .hasSingleBean(Answering.class);
              String dm = Events.sample("dm.received", BOT);

              WebhookResponse answer = deliver(context.getBean(WebhookConsumer.class), dm);

              assertThat(answer.status()).isEqualTo(200);
              String sender =
                  new ObjectMapper()
                      .readTree(dm)
                      .at("/data/payload/direct_message_events/0/sender_id")
                      .asText();
              assertThat(asked).hasSize(1);
              Asked request = asked.get(0);
              assertThat(request.method()).isEqualTo("POST");
              assertThat(request.path())
                  .isEqualTo("/2/dm_conversations/with/" + sender + "/messages");
              assertThat(request.authorization()).contains("oauth_token=\"user-token\"");
              assertThat(request.body()).contains("\"got it\"");
              assertThat(context.getBean(WebhookProperties.class).toString())
                  .doesNotContain("user-token");
            });
  }

  @Configuration(proxyBeanMethods = false)
  static class Observed {
    final List<io.micrometer.observation.Observation.Context> started =
        new java.util.concurrent.CopyOnWriteArrayList<>();

    @Bean
    io.micrometer.observation.ObservationRegistry observationRegistry() {
      io.micrometer.observation.ObservationRegistry registry =
          io.micrometer.observation.ObservationRegistry.create();
      registry
          .observationConfig()
          .observationHandler(
              new io.micrometer.observation.ObservationHandler<>() {
                @Override
                public void onStart(io.micrometer.observation.Observation.Context context) {
                  started.add(context);
                }

                @Override
                public boolean supportsContext(
                    io.micrometer.observation.Observation.Context context) {
                  return true;
                }
              });
      return registry;
    }
  }

  @Test
  void sayParameter_withTheApplicationsObservationRegistry_theAnswerIsAChildOfTheListener() {
    runner()
        .withUserConfiguration(Bot.class, Observed.class)
        .withPropertyValues(
            "servicehooks.webhook.user.token=user-token",
            "servicehooks.webhook.user.token-secret=user-token-secret")
        .run(
            context -> {
              assertThat(context).hasNotFailed();

              WebhookResponse answer =
                  deliver(
                      context.getBean(WebhookConsumer.class), Events.sample("dm.received", BOT));

              assertThat(answer.status()).isEqualTo(200);
              List<io.micrometer.observation.Observation.Context> started =
                  context.getBean(Observed.class).started;
              io.micrometer.observation.Observation.Context call =
                  started.stream()
                      .filter(c -> "servicehooks.answer".equals(c.getName()))
                      .findFirst()
                      .orElseThrow(
                          () -> new AssertionError("no servicehooks.answer in " + started));
              assertThat(call.getParentObservation()).isNotNull();
              assertThat(call.getParentObservation().getContextView().getName())
                  .isEqualTo("servicehooks.listener");
            });
  }

  @Test
  void sayParameter_withABearerTokenToo_answersSignedAsTheUser() {
    new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WebhookAutoConfiguration.class))
        .withInitializer(
            FakeEnvironment.of(
                Map.of(
                    "SERVICE_API_KEY",
                    "api-key",
                    "SERVICE_API_SECRET",
                    "api-secret",
                    "SERVICE_BEARER_TOKEN",
                    "app-only-token")))
        .withPropertyValues(
            "servicehooks.webhook.consumer-secrets=" + SECRET,
            "servicehooks.registration.base-url=http://127.0.0.1:"
                + platform.getAddress().getPort(),
            "servicehooks.registration.allow-insecure-url=true",
            "servicehooks.webhook.user.token=user-token",
            "servicehooks.webhook.user.token-secret=user-token-secret")
        .withUserConfiguration(Bot.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();

              WebhookResponse answer =
                  deliver(
                      context.getBean(WebhookConsumer.class), Events.sample("dm.received", BOT));

              assertThat(answer.status()).isEqualTo(200);
              assertThat(asked).hasSize(1);
              assertThat(asked.get(0).authorization())
                  .startsWith("OAuth ")
                  .contains("oauth_consumer_key=\"api-key\"", "oauth_token=\"user-token\"");
            });
  }

  @Test
  void sayParameter_withoutBaseUrl_startUpFailsNamingTheMethod() {
    new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WebhookAutoConfiguration.class))
        .withPropertyValues("servicehooks.webhook.consumer-secrets=" + SECRET)
        .withUserConfiguration(Bot.class)
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("DmBot.onMessage(DirectMessage, Say)")
                    .hasMessageContaining("servicehooks.registration.base-url"));
  }

  @Test
  void baseUrlBlankOrWithoutApiCredentials_startsWithoutAnsweringBeans() {
    for (String baseUrl :
        new String[] {"", "http://127.0.0.1:" + platform.getAddress().getPort()}) {
      new WebApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(WebhookAutoConfiguration.class))
          .withInitializer(FakeEnvironment.of(Map.of()))
          .withPropertyValues(
              "servicehooks.webhook.consumer-secrets=" + SECRET,
              "servicehooks.registration.base-url=" + baseUrl)
          .run(
              context ->
                  assertThat(context)
                      .hasNotFailed()
                      .doesNotHaveBean(Answering.class)
                      .doesNotHaveBean(WebhookClient.class));
    }
  }

  @Test
  void tokenWithoutSecret_startUpFailsNamingTheMissingProperty() {
    runner()
        .withPropertyValues("servicehooks.webhook.user.token=user-token")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("servicehooks.webhook.user.token-secret is not"));
  }
}
