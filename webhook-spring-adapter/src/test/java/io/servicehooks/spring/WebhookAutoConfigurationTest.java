package io.servicehooks.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.servicehooks.core.Acknowledgement;
import io.servicehooks.core.Deduplicator;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookEvent;
import io.servicehooks.core.WebhookListener;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookResponse;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.testkit.TestSigner;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.unit.DataSize;

@ExtendWith(OutputCaptureExtension.class)
final class WebhookAutoConfigurationTest {

  private static final String SECRET = "test-consumer-secret";

  private final WebApplicationContextRunner runner =
      new WebApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(WebhookAutoConfiguration.class));

  private final WebApplicationContextRunner configured =
      runner.withPropertyValues("servicehooks.webhook.consumer-secrets=" + SECRET);

  // ---- activation -------------------------------------------------------------------------------

  @Test
  void consumerSecret_missing_nothingConfigured() {
    runner.run(
        context ->
            assertThat(context)
                .hasNotFailed()
                .doesNotHaveBean(WebhookConsumer.class)
                .doesNotHaveBean(ServletRegistrationBean.class)
                .doesNotHaveBean(WebhookProperties.class));
  }

  @Test
  void consumerSecret_blank_nothingConfigured() {
    runner
        .withPropertyValues("servicehooks.webhook.consumer-secrets= ")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(WebhookConsumer.class));
  }

  @Test
  void consumerSecret_asIndexedList_configured() {
    runner
        .withPropertyValues("servicehooks.webhook.consumer-secrets[0]=" + SECRET)
        .run(context -> assertThat(context).hasSingleBean(WebhookConsumer.class));
  }

  @Test
  void applicationWithoutWeb_nothingConfigured() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WebhookAutoConfiguration.class))
        .withPropertyValues("servicehooks.webhook.consumer-secrets=" + SECRET)
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(WebhookConsumer.class));
  }

  @Test
  void reactiveWebApplication_nothingConfigured() {
    new ReactiveWebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WebhookAutoConfiguration.class))
        .withPropertyValues("servicehooks.webhook.consumer-secrets=" + SECRET)
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(WebhookConsumer.class));
  }

  // ---- properties -------------------------------------------------------------------------------

  @Test
  void properties_defaults_matchTheCore() {
    try (WebhookConsumer coreDefaults = WebhookConsumer.builder().consumerSecrets(SECRET).build()) {
      assertDefaults(coreDefaults);
    }
  }

  private void assertDefaults(WebhookConsumer coreDefaults) {
    configured.run(
        context -> {
          WebhookProperties properties = context.getBean(WebhookProperties.class);
          assertThat(properties.getConsumerSecrets()).containsExactly(SECRET);
          assertThat(properties.getPath()).isEqualTo("/webhooks");
          // The core's constants, or what a consumer built without the setting reports.
          assertThat(properties.getMaxBodySize().toBytes()).isEqualTo(coreDefaults.maxBodyBytes());
          assertThat(properties.getDedup().getWindow()).isEqualTo(Deduplicator.DEFAULT_WINDOW);
          assertThat(properties.getDedup().getMaxEntries())
              .isEqualTo(Deduplicator.DEFAULT_MAX_ENTRIES);
          assertThat(properties.getAcknowledgement().getMode())
              .isEqualTo(coreDefaults.acknowledgement());
          assertThat(properties.getMaxBodySize().toBytes())
              .isEqualTo(WebhookConsumer.DEFAULT_MAX_BODY_BYTES);
          assertThat(properties.getAcknowledgement().getMode())
              .isEqualTo(WebhookConsumer.DEFAULT_ACKNOWLEDGEMENT);
          assertThat(properties.getAcknowledgement().getQueueCapacity())
              .isEqualTo(WebhookConsumer.DEFAULT_ASYNC_QUEUE_CAPACITY);
          assertThat(properties.getAcknowledgement().getThreads())
              .isEqualTo(WebhookConsumer.DEFAULT_ASYNC_THREADS);
          assertThat(properties.getAcknowledgement().getDrainTimeout())
              .isEqualTo(WebhookConsumer.DEFAULT_DRAIN_TIMEOUT);
          // The documented values themselves, so that a change in the core is seen here.
          assertThat(properties.getAcknowledgement().getQueueCapacity()).isEqualTo(10_000);
          assertThat(properties.getAcknowledgement().getThreads()).isEqualTo(2);
          assertThat(properties.getAcknowledgement().getDrainTimeout())
              .isEqualTo(Duration.ofSeconds(30));
          // The documented values themselves, so that a change in the core is seen here.
          assertThat(properties.getMaxBodySize()).isEqualTo(DataSize.ofMegabytes(1));
          assertThat(properties.getDedup().getWindow()).isEqualTo(Duration.ofHours(24));
          assertThat(properties.getDedup().getMaxEntries()).isEqualTo(1_000_000L);
          assertThat(properties.getAcknowledgement().getMode())
              .isEqualTo(Acknowledgement.SYNCHRONOUS);
          WebhookConsumer consumer = context.getBean(WebhookConsumer.class);
          assertThat(consumer.maxBodyBytes()).isEqualTo(1024 * 1024);
          assertThat(urlMappings(context)).containsExactly("/webhooks");
        });
  }

  @Test
  void propertyMetadata_defaults_matchTheCore() throws IOException {
    // The processor cannot read a default from another class's constant, so the defaults are
    // declared in additional-spring-configuration-metadata.json: checked here against the core.
    Map<String, JsonNode> defaults = metadataDefaults();
    assertThat(
            DurationStyle.detectAndParse(
                defaults.get("servicehooks.webhook.dedup.window").asText()))
        .isEqualTo(Deduplicator.DEFAULT_WINDOW);
    assertThat(defaults.get("servicehooks.webhook.dedup.max-entries").asLong())
        .isEqualTo(Deduplicator.DEFAULT_MAX_ENTRIES);
    try (WebhookConsumer coreDefaults = WebhookConsumer.builder().consumerSecrets(SECRET).build()) {
      assertThat(
              DataSize.parse(defaults.get("servicehooks.webhook.max-body-size").asText()).toBytes())
          .isEqualTo(coreDefaults.maxBodyBytes());
      assertThat(defaults.get("servicehooks.webhook.acknowledgement.mode").asText())
          .isEqualToIgnoringCase(coreDefaults.acknowledgement().name());
    }
    assertThat(defaults.get("servicehooks.webhook.acknowledgement.queue-capacity").asInt())
        .isEqualTo(new WebhookProperties().getAcknowledgement().getQueueCapacity());
    assertThat(defaults.get("servicehooks.webhook.acknowledgement.threads").asInt())
        .isEqualTo(new WebhookProperties().getAcknowledgement().getThreads());
    assertThat(
            DurationStyle.detectAndParse(
                defaults.get("servicehooks.webhook.acknowledgement.drain-timeout").asText()))
        .isEqualTo(new WebhookProperties().getAcknowledgement().getDrainTimeout());
  }

  @Test
  void properties_set_boundAndApplied() {
    runner
        .withPropertyValues(
            "servicehooks.webhook.consumer-secrets=current-secret, previous-secret",
            "servicehooks.webhook.path=/hooks/service",
            "servicehooks.webhook.max-body-size=64KB",
            "servicehooks.webhook.dedup.window=2h",
            "servicehooks.webhook.dedup.max-entries=500",
            "servicehooks.webhook.acknowledgement.mode=asynchronous",
            "servicehooks.webhook.acknowledgement.queue-capacity=7",
            "servicehooks.webhook.acknowledgement.threads=1",
            "servicehooks.webhook.acknowledgement.drain-timeout=5s")
        .run(
            context -> {
              WebhookProperties properties = context.getBean(WebhookProperties.class);
              assertThat(properties.getConsumerSecrets())
                  .containsExactly("current-secret", "previous-secret");
              assertThat(properties.getPath()).isEqualTo("/hooks/service");
              assertThat(properties.getMaxBodySize()).isEqualTo(DataSize.ofKilobytes(64));
              assertThat(properties.getDedup().getWindow()).isEqualTo(Duration.ofHours(2));
              assertThat(properties.getDedup().getMaxEntries()).isEqualTo(500L);
              assertThat(properties.getAcknowledgement().getMode())
                  .isEqualTo(Acknowledgement.ASYNCHRONOUS);
              assertThat(properties.getAcknowledgement().getQueueCapacity()).isEqualTo(7);
              assertThat(properties.getAcknowledgement().getThreads()).isEqualTo(1);
              assertThat(properties.getAcknowledgement().getDrainTimeout())
                  .isEqualTo(Duration.ofSeconds(5));

              WebhookConsumer consumer = context.getBean(WebhookConsumer.class);
              assertThat(consumer.maxBodyBytes()).isEqualTo(64 * 1024);
              assertThat(consumer.acknowledgement()).isEqualTo(Acknowledgement.ASYNCHRONOUS);
              assertThat(urlMappings(context)).containsExactly("/hooks/service");
              // The first secret signs CRC answers, the second is still accepted on deliveries.
              WebhookResponse crc = consumer.handle(WebhookRequest.get("crc_token=abc")).join();
              assertThat(crc.bodyAsString())
                  .isEqualTo(TestSigner.crcResponse("current-secret", "abc"));
              assertThat(
                      consumer
                          .handle(signedDelivery("previous-secret", Bodies.post("1", "hi")))
                          .join()
                          .status())
                  .isEqualTo(200);
            });
  }

  @Test
  void properties_toString_hidesSecrets() {
    configured.run(
        context ->
            assertThat(context.getBean(WebhookProperties.class).toString())
                .doesNotContain(SECRET)
                .contains("consumerSecrets=1"));
  }

  @Test
  void path_notAbsolute_failsStartup() {
    configured
        .withPropertyValues("servicehooks.webhook.path=webhooks/*")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("servicehooks.webhook.path"));
  }

  // ---- backing off and customizing --------------------------------------------------------------

  @Test
  void userConsumer_defined_autoConfiguredConsumerBacksOff() {
    configured
        .withUserConfiguration(UserConsumer.class)
        .run(
            context -> {
              assertThat(context).hasSingleBean(WebhookConsumer.class);
              assertThat(context.getBean(WebhookConsumer.class))
                  .isSameAs(context.getBean("myConsumer"));
              assertThat(context).hasBean("webhookServletRegistration");
            });
  }

  @Test
  void userServletRegistration_defined_autoConfiguredOneBacksOff() {
    configured
        .withBean(
            "webhookServletRegistration",
            ServletRegistrationBean.class,
            ServletRegistrationBean::new)
        .run(context -> assertThat(urlMappings(context)).isEmpty());
  }

  @Test
  void customizer_defined_adjustsTheBuilder() {
    List<String> seen = new CopyOnWriteArrayList<>();
    configured
        .withBean(
            WebhookConsumerCustomizer.class,
            () ->
                builder ->
                    builder
                        .alias("PostCreateEvent", "post.create")
                        .on("post.create", e -> seen.add(e.id())))
        .run(
            context -> {
              WebhookConsumer consumer = context.getBean(WebhookConsumer.class);
              String body = Bodies.activity("e-1", "PostCreateEvent", "{\"id\":\"9\"}");
              assertThat(consumer.handle(signedDelivery(SECRET, body)).join().status())
                  .isEqualTo(200);
              assertThat(seen).containsExactly("e-1");
            });
  }

  // ---- listeners --------------------------------------------------------------------------------

  @Test
  void annotatedMethods_eventsDelivered_eachReachesItsMethods() {
    configured
        .withUserConfiguration(AnnotatedListeners.class)
        .run(
            context -> {
              WebhookConsumer consumer = context.getBean(WebhookConsumer.class);
              AnnotatedListeners listeners = context.getBean(AnnotatedListeners.class);
              deliver(consumer, Bodies.post("p-1", "hello"));
              deliver(
                  consumer,
                  Bodies.activity("b-1", "ProfileBioUpdate", "{\"before\":\"a\",\"after\":\"b\"}"));
              deliver(consumer, Bodies.activity("f-1", "follow.follow", "{}"));
              deliver(consumer, Bodies.activity("n-1", "news.new", "{}"));

              assertThat(listeners.posts).containsExactly(new Post("p-1", "hello"));
              assertThat(listeners.profileOrFollow)
                  .containsExactly("profile.update.bio", "follow.follow");
              assertThat(listeners.payloads).containsExactly("b");
              assertThat(listeners.everything)
                  .containsExactly(
                      "post.create", "profile.update.bio", "follow.follow", "news.new");
            });
  }

  @Test
  void listenerBeans_coreInterface_receiveEveryEventOrTheirAnnotatedTypes() {
    configured
        .withUserConfiguration(InterfaceListeners.class)
        .run(
            context -> {
              WebhookConsumer consumer = context.getBean(WebhookConsumer.class);
              deliver(consumer, Bodies.post("p-1", "hello"));
              deliver(consumer, Bodies.activity("d-1", "dm.received", "{}"));
              InterfaceListeners config = context.getBean(InterfaceListeners.class);
              assertThat(config.all).containsExactly("post.create", "dm.received");
              assertThat(config.dmOnly).containsExactly("dm.received");
            });
  }

  @Test
  void listenerMethod_twoParameters_failsStartupNamingTheMethod() {
    configured
        .withUserConfiguration(TwoParameterListener.class)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Invalid @OnWebhookEvent method")
                    .hasMessageContaining(
                        TwoParameterListener.class.getName() + ".onPost(WebhookEvent, String)")
                    .hasMessageContaining("exactly one"));
  }

  @Test
  void listenerMethod_badPattern_failsStartupNamingTheMethod() {
    configured
        .withUserConfiguration(BadPatternListener.class)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining(
                        BadPatternListener.class.getName() + ".onAnything(WebhookEvent)")
                    .hasMessageContaining("'post.*.create'"));
  }

  @Test
  void listenerMethod_primitiveParameter_failsStartupNamingTheMethod() {
    configured
        .withUserConfiguration(PrimitiveListener.class)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining(PrimitiveListener.class.getName() + ".onPost(int)"));
  }

  // ---- metrics and health -----------------------------------------------------------------------

  @Test
  void meterRegistry_present_recordsTheCoreMeters() {
    configured
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .run(
            context -> {
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              WebhookConsumer consumer = context.getBean(WebhookConsumer.class);
              deliver(consumer, Bodies.post("p-1", "hello"));
              consumer.handle(WebhookRequest.get("crc_token=abc")).join();
              assertThat(
                      registry
                          .get("webhook.events")
                          .tag("type", "post.create")
                          .tag("outcome", "unhandled")
                          .counter()
                          .count())
                  .isEqualTo(1.0);
              assertThat(
                      registry
                          .get("webhook.deliveries")
                          .tag("outcome", "accepted")
                          .counter()
                          .count())
                  .isEqualTo(1.0);
              assertThat(registry.get("webhook.crc").tag("outcome", "answered").counter().count())
                  .isEqualTo(1.0);
              assertThat(registry.get("webhook.delivery.latency").timer().count()).isEqualTo(1L);
            });
  }

  @Test
  void healthIndicator_configured_upWithPath() {
    configured.run(
        context -> {
          Health health = context.getBean("webhookHealthIndicator", HealthIndicator.class).health();
          assertThat(health.getStatus()).isEqualTo(Status.UP);
          assertThat(health.getDetails())
              .containsEntry("path", "/webhooks")
              .containsEntry("acknowledgement", "SYNCHRONOUS");
          assertThat(health.toString()).doesNotContain(SECRET);
        });
  }

  @Test
  void healthIndicator_disabled_absent() {
    configured
        .withPropertyValues("management.health.webhook.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean("webhookHealthIndicator"));
  }

  // ---- class path without the optional libraries ------------------------------------------------

  @Test
  void classPath_withoutMicrometer_endpointWithoutMetrics() {
    configured
        .withClassLoader(new FilteredClassLoader("io.micrometer.core"))
        .run(
            context -> {
              assertThat(context)
                  .hasNotFailed()
                  .hasSingleBean(WebhookConsumer.class)
                  .hasBean("webhookServletRegistration")
                  .hasBean("webhookHealthIndicator")
                  .doesNotHaveBean("webhookMetricsCustomizer");
              deliver(context.getBean(WebhookConsumer.class), Bodies.post("p-1", "hello"));
            });
  }

  @Test
  void observationRegistryBean_deliveriesAndListenersObservedInIt() {
    List<Observation.Context> stopped = new CopyOnWriteArrayList<>();
    ObservationRegistry observations = ObservationRegistry.create();
    observations
        .observationConfig()
        .observationHandler(
            new ObservationHandler<Observation.Context>() {
              @Override
              public void onStop(Observation.Context context) {
                stopped.add(context);
              }

              @Override
              public boolean supportsContext(Observation.Context context) {
                return true;
              }
            });
    configured
        .withBean(ObservationRegistry.class, () -> observations)
        .withBean("postListener", WebhookListener.class, () -> event -> {})
        .run(
            context -> {
              assertThat(context).hasBean("webhookObservationCustomizer");
              deliver(context.getBean(WebhookConsumer.class), Bodies.post("o-1", "hello"));
              assertThat(stopped)
                  .extracting(Observation.Context::getName)
                  .containsExactly("servicehooks.listener", "servicehooks.delivery");
            });
  }

  @Test
  void classPath_withoutMicrometerObservation_noObservationCustomizer() {
    configured
        .withClassLoader(new FilteredClassLoader("io.micrometer.observation"))
        .run(
            context ->
                assertThat(context).hasNotFailed().doesNotHaveBean("webhookObservationCustomizer"));
  }

  @Test
  void classPath_withMicrometer_metricsCustomizerPresent() {
    configured.run(context -> assertThat(context).hasBean("webhookMetricsCustomizer"));
  }

  @Test
  void classPath_withoutRegistrationModule_endpointWithoutRegistration() {
    configured
        .withPropertyValues(
            "servicehooks.registration.public-url=https://hooks.example.org/webhooks",
            "servicehooks.registration.base-url=https://api.example.com")
        .withInitializer(FakeEnvironment.of(Map.of("SERVICE_BEARER_TOKEN", "t")))
        .withClassLoader(new FilteredClassLoader("io.servicehooks.registration"))
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .hasSingleBean(WebhookConsumer.class)
                    .hasBean("webhookServletRegistration")
                    .doesNotHaveBean(WebhookClient.class)
                    .doesNotHaveBean(WebhookRegistrar.class)
                    .doesNotHaveBean(RegistrationProperties.class));
  }

  @Test
  void classPath_withoutSpringSecurity_endpointConfigured() {
    configured
        .withClassLoader(new FilteredClassLoader("org.springframework.security"))
        .run(
            context -> {
              assertThat(context)
                  .hasNotFailed()
                  .hasSingleBean(WebhookConsumer.class)
                  .hasBean("webhookServletRegistration");
              assertThat(urlMappings(context)).containsExactly("/webhooks");
            });
  }

  @Test
  void classPath_withoutHealthSupport_endpointWithoutHealthIndicator() {
    configured
        .withClassLoader(new FilteredClassLoader(HealthIndicator.class))
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .hasSingleBean(WebhookConsumer.class)
                    .hasBean("webhookServletRegistration")
                    .doesNotHaveBean("webhookHealthIndicator"));
  }

  // ---- registration -----------------------------------------------------------------------------

  @Test
  void registration_noPublicUrl_noClient() {
    configured.run(
        context ->
            assertThat(context)
                .doesNotHaveBean(WebhookClient.class)
                .doesNotHaveBean(WebhookRegistrar.class));
  }

  @Test
  void registration_credentialsOnlyInProperties_failsStartupWithoutNamingThem() {
    configured
        .withPropertyValues(
            "servicehooks.registration.public-url=https://hooks.example.org/webhooks",
            "servicehooks.registration.base-url=https://api.example.com",
            "SERVICE_BEARER_TOKEN=token-from-a-properties-file")
        .withInitializer(FakeEnvironment.of(Map.of()))
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("SERVICE_BEARER_TOKEN")
                    .hasMessageNotContaining("token-from-a-properties-file"));
  }

  @Test
  void registration_checkIntervalOrSilenceBelowOneSecond_failsStartupNamingIt() {
    for (String property : List.of("check-interval", "check-silence")) {
      configured
          .withPropertyValues(
              "servicehooks.registration.public-url=https://hooks.example.org/webhooks",
              "servicehooks.registration.base-url=https://api.example.com",
              "servicehooks.registration." + property + "=999ms")
          .withInitializer(FakeEnvironment.of(Map.of("SERVICE_BEARER_TOKEN", "t")))
          .run(
              context ->
                  assertThat(context)
                      .getFailure()
                      .rootCause()
                      .hasMessageContaining("servicehooks.registration." + property)
                      .hasMessageContaining("at least 1s"));
    }
  }

  @Test
  void registration_withoutBaseUrl_failsStartup() {
    configured
        .withPropertyValues(
            "servicehooks.registration.public-url=https://hooks.example.org/webhooks")
        .withInitializer(FakeEnvironment.of(Map.of("SERVICE_BEARER_TOKEN", "t")))
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("servicehooks.registration.base-url"));
  }

  @Test
  void registration_userClient_autoConfiguredClientBacksOff() {
    WebhookClient mine =
        WebhookClient.builder()
            .baseUrl(java.net.URI.create("https://api.example.com"))
            .bearerToken("t")
            .build();
    configured
        .withPropertyValues(
            "servicehooks.registration.public-url=https://hooks.example.org/webhooks")
        .withBean(WebhookClient.class, () -> mine)
        .run(
            context -> {
              assertThat(context.getBean(WebhookClient.class)).isSameAs(mine);
              assertThat(context).hasSingleBean(WebhookRegistrar.class);
            });
  }

  @Test
  void registration_platformUnreachable_loggedAndApplicationKeepsRunning(CapturedOutput output)
      throws IOException {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    configured
        .withPropertyValues(
            "servicehooks.registration.public-url=http://127.0.0.1:8080/webhooks",
            "servicehooks.registration.base-url=http://127.0.0.1:" + closedPort,
            "servicehooks.registration.allow-insecure-url=true")
        .withInitializer(
            FakeEnvironment.of(
                Map.of("SERVICE_API_KEY", "the-key", "SERVICE_API_SECRET", "the-api-secret")))
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(WebhookClient.class);
              context.publishEvent(
                  new ApplicationReadyEvent(
                      new SpringApplication(),
                      new String[0],
                      context.getSourceApplicationContext(),
                      Duration.ZERO));
              WebhookRegistrar registrar = context.getBean(WebhookRegistrar.class);
              await().atMost(Duration.ofSeconds(20)).until(() -> registrar.outcome().isDone());
              assertThat(registrar.outcome()).isCompletedExceptionally();
              assertThat(context.isRunning()).isTrue();
              assertThat(output)
                  .contains("Webhook not registered for http://127.0.0.1:8080/webhooks")
                  .contains("cannot be reached")
                  .doesNotContain("the-api-secret");
            });
  }

  // ---- helpers ----------------------------------------------------------------------------------

  /** The default values this module's generated property metadata declares, by property name. */
  private static Map<String, JsonNode> metadataDefaults() throws IOException {
    Map<String, JsonNode> defaults = new java.util.HashMap<>();
    ObjectMapper mapper = new ObjectMapper();
    Enumeration<URL> files =
        WebhookAutoConfigurationTest.class
            .getClassLoader()
            .getResources("META-INF/spring-configuration-metadata.json");
    for (URL file : Collections.list(files)) {
      try (InputStream in = file.openStream()) {
        for (JsonNode property : mapper.readTree(in).path("properties")) {
          String name = property.path("name").asText();
          if (name.startsWith("servicehooks.") && property.has("defaultValue")) {
            defaults.put(name, property.get("defaultValue"));
          }
        }
      }
    }
    return defaults;
  }

  private static java.util.Collection<String> urlMappings(
      org.springframework.context.ApplicationContext context) {
    ServletRegistrationBean<?> registration =
        context.getBean("webhookServletRegistration", ServletRegistrationBean.class);
    return registration.getUrlMappings();
  }

  private static void deliver(WebhookConsumer consumer, String body) {
    WebhookResponse response = consumer.handle(signedDelivery(SECRET, body)).join();
    assertThat(response.status()).as(response.bodyAsString()).isEqualTo(200);
  }

  /** A delivery of {@code json} signed by the testkit, not by the core under test. */
  private static WebhookRequest signedDelivery(String consumerSecret, String json) {
    return WebhookRequest.post(
        TestSigner.sign(consumerSecret, json), json.getBytes(StandardCharsets.UTF_8));
  }

  /** Delivery bodies in the activity envelope. */
  static final class Bodies {
    static String activity(String id, String type, String payloadJson) {
      return "{\"data\":{\"event_uuid\":\""
          + id
          + "\",\"event_type\":\""
          + type
          + "\",\"filter\":{\"user_id\":\"2244994945\"},\"payload\":"
          + payloadJson
          + "}}";
    }

    static String post(String id, String text) {
      return activity(
          id,
          "post.create",
          "{\"id\":\"" + id + "\",\"text\":\"" + text + "\",\"author_id\":\"783214\"}");
    }
  }

  record Post(String id, String text) {}

  @Configuration(proxyBeanMethods = false)
  static class UserConsumer {
    @Bean
    WebhookConsumer myConsumer() {
      return WebhookConsumer.builder().consumerSecrets("my-own-secret").build();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class AnnotatedListeners {
    final List<Post> posts = new CopyOnWriteArrayList<>();
    final List<String> profileOrFollow = new CopyOnWriteArrayList<>();
    final List<String> payloads = new CopyOnWriteArrayList<>();
    final List<String> everything = new CopyOnWriteArrayList<>();

    @OnWebhookEvent("post.create")
    void onPost(Post post) {
      posts.add(post);
    }

    @OnWebhookEvent({"profile.update.*", "follow.follow"})
    public void onProfileOrFollow(WebhookEvent event) {
      profileOrFollow.add(event.type());
    }

    @OnWebhookEvent(types = "profile.update.bio")
    void onBio(JsonNode payload) {
      payloads.add(payload.path("after").asText());
    }

    @OnWebhookEvent
    void onEverything(WebhookEvent event) {
      everything.add(event.type());
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class InterfaceListeners {
    final List<String> all = new CopyOnWriteArrayList<>();
    final List<String> dmOnly = new CopyOnWriteArrayList<>();

    @Bean
    WebhookListener allEvents() {
      return event -> all.add(event.type());
    }

    @Bean
    DmListener dmListener() {
      return new DmListener(dmOnly);
    }
  }

  @OnWebhookEvent("dm.*")
  static final class DmListener implements WebhookListener {
    private final List<String> seen;

    DmListener(List<String> seen) {
      this.seen = seen;
    }

    @Override
    public void onEvent(WebhookEvent event) {
      seen.add(event.type());
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class TwoParameterListener {
    @OnWebhookEvent("post.create")
    void onPost(WebhookEvent event, String extra) {}
  }

  @Configuration(proxyBeanMethods = false)
  static class BadPatternListener {
    @OnWebhookEvent("post.*.create")
    void onAnything(WebhookEvent event) {}
  }

  @Configuration(proxyBeanMethods = false)
  static class PrimitiveListener {
    @OnWebhookEvent("post.create")
    void onPost(int count) {}
  }
}
