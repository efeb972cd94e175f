package io.servicehooks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.core.Acknowledgement;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.kafka.KafkaBrokerCheck;
import io.servicehooks.kafka.KafkaHandOff;
import io.servicehooks.kafka.KafkaSource;
import io.servicehooks.testsupport.TestKafka;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * {@code servicehooks.webhook.kafka.role=reader} in an application context against a real KRaft
 * broker: the consumer runs from the topic without a consumer secret or a webhook servlet, in the
 * group the properties name, with Boot's {@code spring.kafka.consumer.*}; what a reader cannot do
 * is a failure analysis that names the property.
 */
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
final class WebhookKafkaReaderConfigurationTest {

  private static final String JAAS_PASSWORD = "reader-jaas-password-never-printed-7373";
  private static TestKafka kafka;
  private String topic;
  private String group;

  private final WebApplicationContextRunner runner =
      new WebApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  WebhookAutoConfiguration.class, WebhookKafkaAutoConfiguration.class));

  @BeforeAll
  static void startBroker() throws Exception {
    kafka = TestKafka.start();
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (kafka != null) {
      kafka.close();
    }
  }

  @BeforeEach
  void newTopic() throws Exception {
    topic = kafka.newTopic(1);
    group = "reader-" + UUID.randomUUID();
  }

  @AfterEach
  void deleteTopicAndGroup() throws Exception {
    kafka.deleteTopic(topic, topic + KafkaSource.DEAD_LETTER_SUFFIX);
    kafka.deleteGroup(group);
  }

  private WebApplicationContextRunner reader(String... properties) {
    return runner
        .withPropertyValues(
            "spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
            "servicehooks.webhook.kafka.role=reader",
            "servicehooks.webhook.kafka.topic=" + topic,
            "servicehooks.webhook.kafka.startup-timeout=20s")
        .withPropertyValues(properties);
  }

  private static FailureAnalysis analysis(AssertableWebApplicationContext context) {
    assertThat(context).hasFailed();
    FailureAnalysis analysis =
        new WebhookSetupFailureAnalyzer().analyze(context.getStartupFailure());
    assertThat(analysis).as("a WebhookSetupException").isNotNull();
    return analysis;
  }

  @Test
  void reader_noSecretNoServlet_consumerRunsFromTheGroupOfSpringKafkaConsumerGroupId() {
    reader("spring.kafka.consumer.group-id=" + group)
        .run(
            context -> {
              assertThat(context)
                  .hasNotFailed()
                  .hasSingleBean(KafkaSource.class)
                  .doesNotHaveBean(KafkaHandOff.class)
                  .doesNotHaveBean("webhookServletRegistration")
                  .doesNotHaveBean("webhookUnreadableBodyFilter")
                  .doesNotHaveBean("webhookHealthIndicator");
              assertThat(context.getBean(KafkaSource.class))
                  .hasToString("KafkaSource[topic=" + topic + ", group=" + group + "]");
              assertThat(context.getBean(WebhookConsumer.class).acknowledgement())
                  .isEqualTo(Acknowledgement.DURABLE);
              HealthIndicator health =
                  context.getBean("webhookKafkaHealthIndicator", HealthIndicator.class);
              assertThat(health.health().getStatus()).isEqualTo(Status.UP);
              assertThat(context).hasBean("webhookKafkaReadiness");
            });
  }

  @Test
  void reader_groupIdProperty_winsOverSpringKafkaConsumerGroupId() {
    reader(
            "servicehooks.webhook.kafka.group-id=" + group,
            "spring.kafka.consumer.group-id=not-this-" + group)
        .run(
            context ->
                assertThat(context.getBean(KafkaSource.class).toString())
                    .endsWith("group=" + group + "]"));
  }

  @Test
  void reader_withoutTopic_failureAnalysisNamesTheTopicProperty() {
    runner
        .withPropertyValues("servicehooks.webhook.kafka.role=reader")
        .run(
            context ->
                assertThat(analysis(context).getDescription())
                    .isEqualTo(
                        "servicehooks.webhook.kafka.role=reader runs the listeners from the topic"
                            + " servicehooks.webhook.kafka.topic names, and it is not set."));
  }

  @Test
  void reader_withRegistrationOrStream_refusedBeforeAnyBrokerIsAsked() {
    runner
        .withPropertyValues(
            "spring.kafka.bootstrap-servers=127.0.0.1:1",
            "servicehooks.webhook.kafka.role=reader",
            "servicehooks.webhook.kafka.topic=" + topic,
            "servicehooks.registration.public-url=https://bot.example.com/webhooks",
            "servicehooks.webhook.stream.enabled=true")
        .run(
            context -> {
              FailureAnalysis analysis = analysis(context);
              assertThat(analysis.getDescription())
                  .startsWith("servicehooks.webhook.kafka.role=reader serves no webhook")
                  .contains("servicehooks.registration.public-url (registration)")
                  .contains("servicehooks.webhook.stream.enabled=true")
                  .doesNotContain("No Kafka broker answered");
              assertThat(analysis.getAction())
                  .startsWith(
                      "Set servicehooks.registration.public-url, servicehooks.webhook.stream.enabled"
                          + " on the edge");
            });
  }

  @Test
  void reader_settingsOutOfRange_failureAnalysisNamesTheProperty() {
    reader("servicehooks.webhook.kafka.max-attempts=0")
        .run(
            context ->
                assertThat(analysis(context).getDescription())
                    .isEqualTo(
                        "servicehooks.webhook.kafka.max-attempts must be at least 1, was 0."));
    reader("servicehooks.webhook.kafka.workers=0")
        .run(
            context ->
                assertThat(analysis(context).getDescription())
                    .isEqualTo("servicehooks.webhook.kafka.workers must be at least 1, was 0."));
    reader("servicehooks.webhook.kafka.dead-letter-topic=" + topic)
        .run(
            context ->
                assertThat(analysis(context).getDescription())
                    .startsWith(
                        "servicehooks.webhook.kafka.dead-letter-topic is the topic itself"));
  }

  @Test
  void reader_consumerSettingsKafkaRefuses_failureAnalysisWithoutSecrets(CapturedOutput output) {
    reader(
            "spring.kafka.properties.sasl.jaas.config=x password=\"" + JAAS_PASSWORD + "\";",
            "spring.kafka.consumer.isolation-level=sometimes")
        .run(
            context ->
                assertThat(analysis(context).getDescription())
                    .startsWith(
                        "The Kafka reader's clients refused the spring.kafka.* settings: Invalid"
                            + " value sometimes for configuration isolation.level"));
    reader("spring.kafka.consumer.enable-auto-commit=true")
        .run(
            context ->
                assertThat(analysis(context).getDescription())
                    .isEqualTo(
                        "The Kafka reader refused its settings: enable.auto.commit must stay"
                            + " false: offsets are committed after the listeners ran"));
    assertThat(output.getOut() + output.getErr()).doesNotContain(JAAS_PASSWORD);
  }

  @Test
  void reader_withoutWebhookKafka_failureAnalysisNamesTheModule() {
    reader()
        .withClassLoader(new FilteredClassLoader("io.servicehooks.kafka"))
        .run(
            context ->
                assertThat(analysis(context).getDescription())
                    .contains("role=reader, runs the listeners from it")
                    .contains("io.servicehooks:webhook-kafka is not on the class path"));
  }

  @Test
  void springKafkaConsumerSettings_mappedAsBootMapsThem_clientPropertiesLast() {
    StandardEnvironment env = new StandardEnvironment();
    env.getPropertySources()
        .addFirst(
            new MapPropertySource(
                "test",
                Map.of(
                    "spring.kafka.client-id", "bot",
                    "spring.kafka.consumer.client-id", "bot-reader",
                    "spring.kafka.consumer.auto-offset-reset", "LATEST",
                    "spring.kafka.consumer.max-poll-records", "50",
                    "spring.kafka.consumer.max-poll-interval", "2m",
                    "spring.kafka.consumer.heartbeat-interval", "2s",
                    "spring.kafka.consumer.fetch-max-wait", "300ms",
                    "spring.kafka.consumer.fetch-min-size", "1KB",
                    "spring.kafka.consumer.isolation-level", "read-committed",
                    "spring.kafka.consumer.properties.max.poll.records", "70")));
    assertThat(WebhookKafkaAutoConfiguration.clientProperties(env, "consumer"))
        .containsEntry("client.id", "bot-reader")
        .containsEntry("auto.offset.reset", "latest")
        .containsEntry("max.poll.records", "70")
        .containsEntry("max.poll.interval.ms", 120_000)
        .containsEntry("heartbeat.interval.ms", 2_000)
        .containsEntry("fetch.max.wait.ms", 300)
        .containsEntry("fetch.min.bytes", 1024)
        .containsEntry("isolation.level", "read_committed");
    assertThat(WebhookKafkaAutoConfiguration.clientProperties(env, "producer"))
        .doesNotContainKeys("auto.offset.reset", "isolation.level");
  }

  @Test
  void properties_defaultsAreTheSourcesDefaults() {
    KafkaProperties fresh = new KafkaProperties();
    assertThat(fresh.getRole()).isEqualTo(KafkaProperties.Role.EDGE);
    assertThat(fresh.getMaxAttempts()).isEqualTo(KafkaSource.DEFAULT_MAX_ATTEMPTS);
    assertThat(fresh.getBackoffBase()).isEqualTo(KafkaSource.DEFAULT_RETRY_BASE);
    assertThat(fresh.getWorkers()).isEqualTo(KafkaSource.DEFAULT_WORKERS);
    assertThat(fresh.getGroupId()).isNull();
    assertThat(
            WebhookKafkaAutoConfiguration.KafkaConfiguration.ReaderConfiguration.groupId(
                fresh, new StandardEnvironment()))
        .isEqualTo(KafkaSource.DEFAULT_GROUP_ID);
    assertThat(fresh.getDeadLetterTopic()).isNull();
  }

  @Test
  void edge_explicitRole_servesTheWebhookAndHandsOff() {
    runner
        .withPropertyValues(
            "servicehooks.webhook.consumer-secrets=reader-test-secret-for-the-edge-0123456",
            "spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
            "servicehooks.webhook.kafka.role=edge",
            "servicehooks.webhook.kafka.topic=" + topic)
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .hasSingleBean(KafkaHandOff.class)
                    .hasSingleBean(KafkaBrokerCheck.class)
                    .doesNotHaveBean(KafkaSource.class)
                    .hasBean("webhookServletRegistration"));
  }

  @Test
  void role_notEdgeOrReader_bindingFailureNamesTheProperty() {
    runner
        .withPropertyValues(
            "servicehooks.webhook.consumer-secrets=reader-test-secret-for-the-edge-0123456",
            "spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
            "servicehooks.webhook.kafka.role=consumer",
            "servicehooks.webhook.kafka.topic=" + topic)
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("consumer");
              assertThat(context.getStartupFailure().getMessage())
                  .contains("servicehooks.webhook.kafka");
            });
  }
}
