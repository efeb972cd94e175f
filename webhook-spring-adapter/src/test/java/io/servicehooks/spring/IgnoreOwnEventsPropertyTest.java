package io.servicehooks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookEvent;
import io.servicehooks.core.WebhookListener;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.TestSigner;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code servicehooks.webhook.ignore-own-events}: by default the auto-configured consumer runs no
 * listener for the subscribed user's own post; {@code false} runs it.
 */
final class IgnoreOwnEventsPropertyTest {

  private static final String SECRET = "test-consumer-secret";
  private static final String USER = "2244994945";

  private final WebApplicationContextRunner runner =
      new WebApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(WebhookAutoConfiguration.class))
          .withUserConfiguration(Listeners.class)
          .withPropertyValues("servicehooks.webhook.consumer-secrets=" + SECRET);

  /** A listener bean for every event, keeping what it saw. */
  static final class Recorder implements WebhookListener {
    final List<WebhookEvent> events = new CopyOnWriteArrayList<>();

    @Override
    public void onEvent(WebhookEvent event) {
      events.add(event);
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class Listeners {
    @Bean
    Recorder recorder() {
      return new Recorder();
    }
  }

  private static void deliverOwnPostAndMention(WebhookConsumer consumer) {
    for (String body :
        List.of(Events.sample("post.create", USER), Events.sample("post.mention.create", USER))) {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      assertThat(
              consumer
                  .handle(WebhookRequest.post(TestSigner.sign(SECRET, bytes), bytes))
                  .join()
                  .status())
          .isEqualTo(200);
    }
  }

  @Test
  void default_ownPostRunsNoListener_mentionDoes() {
    runner.run(
        context -> {
          deliverOwnPostAndMention(context.getBean(WebhookConsumer.class));
          assertThat(context.getBean(Recorder.class).events)
              .extracting(WebhookEvent::type)
              .containsExactly("post.mention.create");
        });
  }

  @Test
  void ignoreOwnEventsFalse_ownPostRunsToo() {
    runner
        .withPropertyValues("servicehooks.webhook.ignore-own-events=false")
        .run(
            context -> {
              deliverOwnPostAndMention(context.getBean(WebhookConsumer.class));
              assertThat(context.getBean(Recorder.class).events)
                  .extracting(WebhookEvent::type)
                  .containsExactly("post.create", "post.mention.create");
            });
  }
}
