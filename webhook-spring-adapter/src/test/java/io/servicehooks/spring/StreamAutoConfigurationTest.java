package io.servicehooks.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.core.WebhookListener;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.stream.ActivityStream;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.PlatformSimulator;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@code servicehooks.webhook.stream.*} against the platform simulator over real HTTP. */
final class StreamAutoConfigurationTest {

  static final List<String> HANDLED = new CopyOnWriteArrayList<>();
  static PlatformSimulator simulator;

  private final WebApplicationContextRunner runner =
      new WebApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(WebhookAutoConfiguration.class, StreamAutoConfiguration.class))
          .withPropertyValues("servicehooks.webhook.consumer-secrets=test-consumer-secret");

  @AfterEach
  void stop() {
    if (simulator != null) {
      simulator.close();
    }
    HANDLED.clear();
  }

  @Configuration(proxyBeanMethods = false)
  static class App {
    @Bean
    WebhookClient webhookClient() {
      return WebhookClient.builder()
          .baseUrl(simulator.baseUrl())
          .apiCredentials(simulator.apiKey(), simulator.apiSecret())
          .build();
    }

    @Bean
    WebhookListener everything() {
      return event -> HANDLED.add(event.id());
    }
  }

  @Test
  void enabled_unset_noStream() {
    simulator = PlatformSimulator.builder().build().start();
    runner
        .withUserConfiguration(App.class)
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ActivityStream.class));
  }

  @Test
  void enabled_startsWhenReady_eventsReachTheListeners_closedWithTheContext() {
    simulator = PlatformSimulator.builder().build().start();
    runner
        .withUserConfiguration(App.class)
        .withPropertyValues(
            "servicehooks.webhook.stream.enabled=true",
            "servicehooks.webhook.stream.backfill-minutes=2")
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(ActivityStream.class);
              ActivityStream stream = context.getBean(ActivityStream.class);
              assertThat(stream.state()).isEqualTo(ActivityStream.State.NEW);
              assertThat(simulator.openStreams()).isEmpty();

              context.publishEvent(
                  new ApplicationReadyEvent(
                      new SpringApplication(), new String[0], context, Duration.ZERO));

              await().until(() -> simulator.openStreams().size() == 1);
              assertThat(simulator.openStreams().get(0).backfillMinutes()).isEqualTo(2);
              simulator.deliverToStream(
                  Events.activity("77", "post.create", Map.of("user_id", "1"), null, Map.of()));
              await().until(() -> HANDLED.contains("77"));
              context.close();
              assertThat(stream.state()).isEqualTo(ActivityStream.State.CLOSED);
            });
  }

  @Test
  void backfillOutOfRange_failsStartup() {
    simulator = PlatformSimulator.builder().build().start();
    runner
        .withUserConfiguration(App.class)
        .withPropertyValues(
            "servicehooks.webhook.stream.enabled=true",
            "servicehooks.webhook.stream.backfill-minutes=9")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("backfill-minutes must be between 1 and 5, was 9"));
  }

  @Test
  void backfillZero_failsStartupSayingWhatItWouldLose() {
    simulator = PlatformSimulator.builder().build().start();
    runner
        .withUserConfiguration(App.class)
        .withPropertyValues(
            "servicehooks.webhook.stream.enabled=true",
            "servicehooks.webhook.stream.backfill-minutes=0")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("backfill-minutes must be between 1 and 5, was 0")
                    .hasMessageContaining("would lose every event the consumer could not take"));
  }

  @Test
  void enabled_withoutClientOrBaseUrl_failsStartupNamingIt() {
    runner
        .withPropertyValues("servicehooks.webhook.stream.enabled=true")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("servicehooks.registration.base-url"));
  }
}
