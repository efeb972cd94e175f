package io.servicehooks.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.servicehooks.core.WebhookEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.NestedExceptionUtils;

/**
 * The start-up checks and the serving line in a real {@code SpringApplication} with Tomcat on port
 * 0, where Spring Boot's failure analysis and a management server's child context take part.
 */
@ExtendWith(OutputCaptureExtension.class)
final class WebhookStartupApplicationTest {

  private static final String PROPERTY = "servicehooks.webhook.consumer-secrets";
  private static final String UNSET = "SERVICEHOOKS_TEST_UNSET_SECRET";

  @Test
  void unresolvedPlaceholder_applicationFailsToStartWithDescriptionAndAction(
      CapturedOutput output) {
    Throwable failure = catchThrowable(() -> start(PROPERTY + "=${" + UNSET + "}").close());

    assertThat(NestedExceptionUtils.getMostSpecificCause(failure))
        .isInstanceOf(WebhookSetupException.class);
    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("Description:")
        .contains(PROPERTY + "[0] is the unresolved placeholder ${" + UNSET + "}")
        .contains("Action:")
        .contains("Set " + UNSET)
        .doesNotContain("Tomcat started on port");
  }

  @Test
  void listenersWithMisspeltSecretProperty_applicationFailsToStartNamingTheProperty(
      CapturedOutput output) {
    Throwable failure =
        catchThrowable(
            () -> start("servicehooks.webhook.consumer-secret=a-real-secret-value").close());

    assertThat(failure).isNotNull();
    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains(PROPERTY + " is not set")
        .contains("servicehooks.webhook.consumer-secret (did you mean " + PROPERTY + "?)")
        .contains(Listener.class.getName() + ".onEvent(WebhookEvent)")
        .doesNotContain("a-real-secret-value")
        .doesNotContain("Tomcat started on port");
  }

  @Test
  void served_oneInfoLineWithContextPathPortAndMode_evenWithAManagementChildContext(
      CapturedOutput output) {
    try (ConfigurableApplicationContext context =
        start(
            PROPERTY + "=a-real-secret-value",
            "server.servlet.context-path=/app",
            "management.server.port=0",
            "servicehooks.webhook.acknowledgement.mode=asynchronous")) {
      String port = context.getEnvironment().getProperty("local.server.port");
      assertThat(port).isNotBlank().isNotEqualTo("0");
      String line =
          "Serving webhooks at /app/webhooks on port " + port + ", acknowledgement ASYNCHRONOUS";
      assertThat(output.getOut()).contains(line).doesNotContain("a-real-secret-value");
      assertThat(output.getOut().split("Serving webhooks at ", -1)).hasSize(2);
    }
  }

  private static ConfigurableApplicationContext start(String... properties) {
    String[] all = new String[properties.length + 3];
    all[0] = "server.port=0";
    all[1] = "spring.main.banner-mode=off";
    all[2] = "spring.application.name=startup-test";
    System.arraycopy(properties, 0, all, 3, properties.length);
    return new SpringApplicationBuilder(App.class)
        .web(WebApplicationType.SERVLET)
        .properties(all)
        .run();
  }

  static final class Listener {
    @OnWebhookEvent("post.create")
    void onEvent(WebhookEvent event) {}
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    Listener listener() {
      return new Listener();
    }
  }
}
