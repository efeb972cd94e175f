package io.servicehooks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookEvent;
import io.servicehooks.core.WebhookListener;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.testkit.TestSigner;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Collections;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * Start-up with a consumer secret that is missing, misspelt or still a placeholder: refused loudly
 * when the application has listeners or the secret is a placeholder, one log line otherwise; and
 * the one line that says the endpoint is served.
 */
@ExtendWith(OutputCaptureExtension.class)
final class WebhookStartupChecksTest {

  private static final String PROPERTY = "servicehooks.webhook.consumer-secrets";
  private static final String UNSET = "SERVICEHOOKS_TEST_UNSET_SECRET";

  /**
   * Both auto-configurations, as an application gets them, and a process environment without it.
   */
  private final WebApplicationContextRunner runner =
      new WebApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  WebhookAutoConfiguration.class, WebhookEndpointOffAutoConfiguration.class))
          .withInitializer(FakeEnvironment.of(Map.of()));

  // ---- an unresolved placeholder ----------------------------------------------------------------

  @Test
  void consumerSecret_unresolvedPlaceholder_failsStartupNamingPropertyAndPlaceholder() {
    runner
        .withPropertyValues(PROPERTY + "=${" + UNSET + "}")
        .run(
            context -> {
              assertThat(refusal(context))
                  .isInstanceOf(WebhookSetupException.class)
                  .hasMessageContaining(PROPERTY + "[0] is the unresolved placeholder ${" + UNSET)
                  .hasMessageContaining("Set " + UNSET);
            });
  }

  @Test
  void placeholder_unresolvable_isBoundAsItsLiteralText() {
    // What the start-up check guards against: Spring's binding leaves a placeholder it cannot
    // resolve as it is, so the text ${...} itself would have become the secret.
    StandardEnvironment environment = new StandardEnvironment();
    environment
        .getPropertySources()
        .addFirst(new MapPropertySource("test", Map.of(PROPERTY, "${" + UNSET + "}")));
    environment
        .getPropertySources()
        .remove(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
    ConfigurationPropertySources.attach(environment);
    assertThat(Binder.get(environment).bind(PROPERTY, Bindable.listOf(String.class)).get())
        .containsExactly("${" + UNSET + "}");
  }

  @Test
  void consumerSecret_placeholderForThePreviousSecret_refusedWithoutShowingTheCurrentOne() {
    runner
        .withPropertyValues(PROPERTY + "=the-current-secret,${" + UNSET + "}")
        .run(
            context ->
                assertThat(refusal(context))
                    .hasMessageContaining(PROPERTY + "[1]")
                    .hasMessageContaining(UNSET)
                    .hasMessageNotContaining("the-current-secret"));
  }

  @Test
  void consumerSecret_placeholderResolvedFromTheEnvironment_servesWithTheVariablesValue() {
    runner
        .withInitializer(FakeEnvironment.of(Map.of("SERVICE_CONSUMER_SECRET", "from-the-env")))
        .withPropertyValues(PROPERTY + "=${SERVICE_CONSUMER_SECRET}")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              String crc =
                  context
                      .getBean(WebhookConsumer.class)
                      .handle(WebhookRequest.get("crc_token=t"))
                      .join()
                      .bodyAsString();
              assertThat(crc).isEqualTo(TestSigner.crcResponse("from-the-env", "t"));
            });
  }

  @Test
  void failureAnalyzer_setupException_givesDescriptionAndAction() {
    runner
        .withPropertyValues(PROPERTY + "=${" + UNSET + "}")
        .run(
            context -> {
              FailureAnalysis analysis =
                  new WebhookSetupFailureAnalyzer().analyze(context.getStartupFailure());
              assertThat(analysis).isNotNull();
              assertThat(analysis.getDescription()).contains(PROPERTY + "[0]");
              assertThat(analysis.getAction()).startsWith("Set " + UNSET);
            });
  }

  // ---- listeners but no secret ------------------------------------------------------------------

  @Test
  void listenerMethods_noSecret_failStartupNamingTheProperty() {
    runner
        .withUserConfiguration(MethodListener.class)
        .run(
            context ->
                assertThat(refusal(context))
                    .isInstanceOf(WebhookSetupException.class)
                    .hasMessageContaining(PROPERTY + " is not set")
                    .hasMessageContaining(MethodListener.class.getName() + ".onPost(WebhookEvent)")
                    .hasMessageContaining("Set " + PROPERTY));
  }

  @Test
  void listenerBean_noSecret_failsStartupNamingTheProperty() {
    runner
        .withBean("myListener", WebhookListener.class, () -> event -> {})
        .run(
            context ->
                assertThat(refusal(context))
                    .hasMessageContaining(PROPERTY + " is not set")
                    .hasMessageContaining("WebhookListener bean 'myListener'"));
  }

  @Test
  void listenerMethods_misspeltProperty_failStartupNamingBothWithoutTheValue() {
    runner
        .withUserConfiguration(MethodListener.class)
        .withPropertyValues("servicehooks.webhook.consumer-secret=the-real-secret")
        .run(
            context ->
                assertThat(refusal(context))
                    .hasMessageContaining(PROPERTY + " is not set")
                    .hasMessageContaining(
                        "servicehooks.webhook.consumer-secret (did you mean " + PROPERTY + "?)")
                    .hasMessageNotContaining("the-real-secret"));
  }

  @Test
  void listenerMethods_misspeltEnvironmentVariable_failStartupNamingIt() {
    // One S short: SERVICEHOOKS_WEBHOOK_CONSUMERSECRET binds to nothing.
    runner
        .withInitializer(
            FakeEnvironment.of(Map.of("SERVICEHOOKS_WEBHOOK_CONSUMERSECRET", "the-real-secret")))
        .withUserConfiguration(MethodListener.class)
        .run(
            context ->
                assertThat(refusal(context))
                    .hasMessageContaining(
                        "servicehooks.webhook.consumersecret (did you mean " + PROPERTY + "?)")
                    .hasMessageNotContaining("the-real-secret"));
  }

  @Test
  void listenerMethods_emptyDefaultOfAnUnsetVariable_failStartupSayingBlank() {
    runner
        .withUserConfiguration(MethodListener.class)
        .withPropertyValues(PROPERTY + "=${" + UNSET + ":}")
        .run(context -> assertThat(refusal(context)).hasMessageContaining(PROPERTY + " is blank"));
  }

  @Test
  void noListenersNoSecret_endpointOffWithOneInfoLine(CapturedOutput output) {
    runner.run(
        context -> {
          assertThat(context).hasNotFailed().doesNotHaveBean(WebhookConsumer.class);
          assertThat(count(output.getOut(), "Webhook endpoint off: " + PROPERTY + " is not set"))
              .isEqualTo(1);
          assertThat(output.getOut()).contains("INFO").doesNotContain("WARN");
        });
  }

  @Test
  void noListenersMisspeltSecret_endpointOffWithOneWarnNamingIt(CapturedOutput output) {
    runner
        .withPropertyValues("servicehooks.webhook.consumer-secret=the-real-secret")
        .run(
            context -> {
              assertThat(context).hasNotFailed().doesNotHaveBean(WebhookConsumer.class);
              assertThat(output.getOut())
                  .contains("WARN")
                  .contains("Webhook endpoint off: " + PROPERTY + " is not set")
                  .contains("servicehooks.webhook.consumer-secret (did you mean " + PROPERTY + "?)")
                  .doesNotContain("the-real-secret");
            });
  }

  @Test
  void ownConsumerBean_noSecret_startsAndSaysTheAdapterDoesNotServeIt(CapturedOutput output) {
    runner
        .withUserConfiguration(MethodListener.class)
        .withBean(
            WebhookConsumer.class, () -> WebhookConsumer.builder().consumerSecrets("own").build())
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(output.getOut())
                  .contains("the application's own WebhookConsumer is not served by the adapter");
            });
  }

  @Test
  void secretSet_noOffCheck() {
    runner
        .withUserConfiguration(MethodListener.class)
        .withPropertyValues(PROPERTY + "=s3cret")
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .hasSingleBean(WebhookConsumer.class)
                    .doesNotHaveBean(WebhookEndpointOffAutoConfiguration.EndpointOffCheck.class));
  }

  // ---- the line that says it serves -------------------------------------------------------------

  @Test
  void served_logsPathAndAcknowledgementOnce(CapturedOutput output) {
    runner
        .withPropertyValues(
            PROPERTY + "=s3cret",
            "servicehooks.webhook.path=/hooks",
            "servicehooks.webhook.acknowledgement.mode=asynchronous")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(count(output.getOut(), "Serving webhooks at /hooks, acknowledgement"))
                  .isEqualTo(1);
              assertThat(output.getOut())
                  .contains("Serving webhooks at /hooks, acknowledgement ASYNCHRONOUS")
                  .doesNotContain("s3cret");
            });
  }

  @Test
  void served_unknownServicehooksProperty_warnsNamingIt(CapturedOutput output) {
    runner
        .withPropertyValues(PROPERTY + "=s3cret", "servicehooks.webhook.max-body=1MB")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(output.getOut())
                  .contains(
                      "Not a servicehooks property, ignored: servicehooks.webhook.max-body"
                          + " (did you mean servicehooks.webhook.max-body-size?)");
            });
  }

  // ---- management.health.webhook.enabled --------------------------------------------------------

  @Test
  void healthEnabledProperty_inTheMetadata_withDescriptionAndDefaultTrue() throws IOException {
    JsonNode property = metadata("management.health.webhook.enabled");
    assertThat(property).as("management.health.webhook.enabled in the metadata").isNotNull();
    assertThat(property.path("type").asText()).isEqualTo("java.lang.Boolean");
    assertThat(property.path("description").asText()).contains("webhook health indicator");
    assertThat(property.path("defaultValue").asBoolean(false)).isTrue();
  }

  @Test
  void healthEnabledProperty_honoured() {
    WebApplicationContextRunner configured = runner.withPropertyValues(PROPERTY + "=s3cret");
    configured.run(context -> assertThat(context).hasBean("webhookHealthIndicator"));
    configured
        .withPropertyValues("management.health.webhook.enabled=true")
        .run(context -> assertThat(context).hasBean("webhookHealthIndicator"));
    configured
        .withPropertyValues("management.health.webhook.enabled=false")
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .hasSingleBean(WebhookConsumer.class)
                    .doesNotHaveBean("webhookHealthIndicator"));
    configured
        .withPropertyValues("management.health.defaults.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean("webhookHealthIndicator"));
    configured
        .withPropertyValues(
            "management.health.defaults.enabled=false", "management.health.webhook.enabled=true")
        .run(context -> assertThat(context).hasBean("webhookHealthIndicator"));
  }

  @Test
  void secretFromEnvironmentVariable_bothSpellingsSpringBinds_servedWithoutWarning(
      CapturedOutput output) {
    for (String variable :
        new String[] {
          "SERVICEHOOKS_WEBHOOK_CONSUMERSECRETS", "SERVICEHOOKS_WEBHOOK_CONSUMER_SECRETS"
        }) {
      runner
          .withInitializer(FakeEnvironment.of(Map.of(variable, "from-the-env")))
          .withUserConfiguration(MethodListener.class)
          .run(
              context -> {
                assertThat(context)
                    .as(variable)
                    .hasNotFailed()
                    .hasSingleBean(WebhookConsumer.class);
                assertThat(output.getOut()).doesNotContain("Not a servicehooks property");
              });
    }
  }

  // ---- helpers ----------------------------------------------------------------------------------

  /** The innermost cause of a failed start-up, or the failure itself when it has none. */
  private static Throwable refusal(AssertableWebApplicationContext context) {
    assertThat(context).hasFailed();
    return NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure());
  }

  private static JsonNode metadata(String name) throws IOException {
    ObjectMapper mapper = new ObjectMapper();
    for (URL file :
        Collections.list(
            WebhookStartupChecksTest.class
                .getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
      try (InputStream in = file.openStream()) {
        for (JsonNode property : mapper.readTree(in).path("properties")) {
          if (property.path("name").asText().equals(name)) {
            return property;
          }
        }
      }
    }
    return null;
  }

  private static int count(String text, String needle) {
    int n = 0;
    for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
      n++;
    }
    return n;
  }

  @Configuration(proxyBeanMethods = false)
  static class MethodListener {
    @OnWebhookEvent("post.create")
    void onPost(WebhookEvent event) {}
  }
}
