package io.servicehooks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookResponse;
import io.servicehooks.kafka.KafkaBrokerCheck;
import io.servicehooks.kafka.KafkaHandOff;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.TestSigner;
import io.servicehooks.testsupport.Ports;
import io.servicehooks.testsupport.TestKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * {@code servicehooks.webhook.kafka.*} with Boot's {@code spring.kafka.*} against a real KRaft
 * broker: events go to the topic with the application's meters, the health follows the brokers, and
 * brokers unreachable at start are a failure analysis.
 */
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
final class WebhookKafkaAutoConfigurationTest {

  private static final String SECRET = "kafka-adapter-test-consumer-secret-0123456789";
  private static final String JAAS_PASSWORD = "spring-jaas-password-never-printed-4242";
  private static TestKafka kafka;
  private String topic;

  private final WebApplicationContextRunner runner =
      new WebApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  WebhookAutoConfiguration.class, WebhookKafkaAutoConfiguration.class))
          .withPropertyValues("servicehooks.webhook.consumer-secrets=" + SECRET);

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
    topic = kafka.newTopic(2);
  }

  @AfterEach
  void deleteTopic() throws Exception {
    kafka.deleteTopic(topic);
  }

  private static WebhookResponse deliver(WebhookConsumer consumer, String json) {
    return consumer
        .handle(
            WebhookRequest.post(
                TestSigner.sign(SECRET, json), json.getBytes(StandardCharsets.UTF_8)))
        .toCompletableFuture()
        .join();
  }

  @Test
  void springKafkaBootstrapServers_eventsInTheTopic_metersAndHealthUp(CapturedOutput output) {
    runner
        .withPropertyValues(
            "spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
            "spring.kafka.properties.sasl.jaas.config=x password=\"" + JAAS_PASSWORD + "\";",
            "spring.kafka.producer.properties.linger.ms=1",
            "servicehooks.webhook.kafka.topic=" + topic,
            "servicehooks.webhook.kafka.send-timeout=4s")
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(KafkaHandOff.class);
              WebhookConsumer consumer = context.getBean(WebhookConsumer.class);
              WebhookResponse answer =
                  deliver(
                      consumer,
                      Events.activity(
                          "spring-kafka-1", "post.create", Map.of("user_id", "5"), null, Map.of()));
              assertThat(answer.status()).as(answer.bodyAsString()).isEqualTo(200);

              var records = kafka.readAll(topic);
              assertThat(records).hasSize(1);
              ConsumerRecord<String, byte[]> record = records.get(0);
              assertThat(TestKafka.header(record, KafkaHandOff.EVENT_ID_HEADER))
                  .isEqualTo("spring-kafka-1");

              MeterRegistry meters = context.getBean(MeterRegistry.class);
              assertThat(meters.get("webhook.kafka.send").tag("outcome", "acked").timer().count())
                  .isEqualTo(1);
              assertThat(meters.get("webhook.kafka.in.flight").gauge().value()).isZero();

              HealthIndicator health =
                  context.getBean("webhookKafkaHealthIndicator", HealthIndicator.class);
              assertThat(health.health().getStatus()).isEqualTo(Status.UP);
              assertThat(context).hasBean("webhookKafkaReadiness");
            });
    assertThat(output)
        .contains("Webhook events go to Kafka topic " + topic)
        .doesNotContain(JAAS_PASSWORD);
  }

  @Test
  void brokerGone_healthDown() throws Exception {
    TestKafka own = TestKafka.start();
    try {
      own.createTopic(topic, 1);
      runner
          .withPropertyValues(
              "spring.kafka.bootstrap-servers=" + own.bootstrapServers(),
              "servicehooks.webhook.kafka.topic=" + topic)
          .run(
              context -> {
                assertThat(context).hasNotFailed();
                HealthIndicator health =
                    context.getBean("webhookKafkaHealthIndicator", HealthIndicator.class);
                assertThat(health.health().getStatus()).isEqualTo(Status.UP);

                own.close();

                org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> health.health().getStatus().equals(Status.DOWN));
                Health down = health.health();
                assertThat(String.valueOf(down.getDetails().get("error")))
                    .startsWith("no Kafka broker answered at " + own.bootstrapServers());
              });
    } finally {
      own.close();
    }
  }

  @Test
  void brokersUnreachableAtStart_failureAnalysisNamesServersAndWhatToDo() {
    String nobody = "127.0.0.1:" + Ports.free();
    runner
        .withPropertyValues(
            "spring.kafka.bootstrap-servers=" + nobody,
            "servicehooks.webhook.kafka.topic=" + topic,
            "servicehooks.webhook.kafka.startup-timeout=2s")
        .run(
            context -> {
              assertThat(context).hasFailed();
              FailureAnalysis analysis =
                  new WebhookSetupFailureAnalyzer().analyze(context.getStartupFailure());
              assertThat(analysis).isNotNull();
              assertThat(analysis.getDescription())
                  .startsWith("No Kafka broker answered within 2000 ms at " + nobody)
                  .contains("spring.kafka.bootstrap-servers");
              assertThat(analysis.getAction())
                  .contains("Start the brokers or correct spring.kafka.bootstrap-servers");
            });
  }

  @Test
  void durableModeWithKafka_failureAnalysis() {
    runner
        .withPropertyValues(
            "spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
            "servicehooks.webhook.kafka.topic=" + topic,
            "servicehooks.webhook.acknowledgement.mode=durable")
        .run(
            context -> {
              assertThat(context).hasFailed();
              FailureAnalysis analysis =
                  new WebhookSetupFailureAnalyzer().analyze(context.getStartupFailure());
              assertThat(analysis.getDescription()).contains("both choose where events are kept");
            });
  }

  @Test
  void noTopic_noKafka() {
    runner
        .withPropertyValues("spring.kafka.bootstrap-servers=" + kafka.bootstrapServers())
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .doesNotHaveBean(KafkaHandOff.class)
                    .doesNotHaveBean(KafkaBrokerCheck.class));
  }
}
