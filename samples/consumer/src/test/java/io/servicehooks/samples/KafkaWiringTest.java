package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code KAFKA_*} and {@code DELIVERY=kafka} as the standalone consumer reads them. */
final class KafkaWiringTest {

  private static final String JAAS_PASSWORD = "jaas-password-never-printed-2718";

  private static Map<String, String> env(String... pairs) {
    Map<String, String> env = new HashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }

  @Test
  void parse_noBootstrapServers_noKafka() throws Exception {
    assertThat(KafkaWiring.parse(env())).isNull();
    // Kubernetes' service links and stray client properties alone choose nothing.
    assertThat(KafkaWiring.parse(env("KAFKA_PORT", "tcp://10.0.0.1:9092"))).isNull();
  }

  @Test
  void parse_handOff_clientPropertiesAsConfluentTakesThem_secretsMasked() throws Exception {
    KafkaWiring.Config config =
        KafkaWiring.parse(
            env(
                "KAFKA_BOOTSTRAP_SERVERS", "broker-1:9092,broker-2:9092",
                "KAFKA_TOPIC", "servicehooks.events",
                "KAFKA_SECURITY_PROTOCOL", "SASL_SSL",
                "KAFKA_SASL_MECHANISM", "PLAIN",
                "KAFKA_SASL_JAAS_CONFIG",
                    "org.apache.kafka.common.security.plain.PlainLoginModule required"
                        + " username=\"edge\" password=\""
                        + JAAS_PASSWORD
                        + "\";",
                "KAFKA_SSL_TRUSTSTORE_PASSWORD", "truststore-" + JAAS_PASSWORD,
                "KAFKA_PORT", "tcp://10.0.0.1:9092",
                "KAFKA_PORT_9092_TCP_ADDR", "10.0.0.1",
                "KAFKA_SERVICE_HOST", "10.0.0.1"));

    assertThat(config.source()).isFalse();
    assertThat(config.bootstrapServers()).isEqualTo("broker-1:9092,broker-2:9092");
    assertThat(config.topic()).isEqualTo("servicehooks.events");
    assertThat(config.clientProperties())
        .containsOnlyKeys(
            "security.protocol", "sasl.mechanism", "sasl.jaas.config", "ssl.truststore.password")
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.mechanism", "PLAIN");
    assertThat(config.clientProperties().get("sasl.jaas.config")).contains(JAAS_PASSWORD);
    assertThat(config.clientSettings())
        .contains("security.protocol=SASL_SSL")
        .contains("sasl.jaas.config=***")
        .contains("ssl.truststore.password=***")
        .doesNotContain(JAAS_PASSWORD);
    assertThat(config.toString()).doesNotContain(JAAS_PASSWORD);
  }

  @Test
  void parse_deliveryKafka_groupDeadLetterTopicAndDurableRetrySettings() throws Exception {
    KafkaWiring.Config defaults =
        KafkaWiring.parse(
            env(
                "DELIVERY", "kafka",
                "KAFKA_BOOTSTRAP_SERVERS", "broker:9092",
                "KAFKA_TOPIC", "events"));
    assertThat(defaults.source()).isTrue();
    assertThat(defaults.groupId()).isEqualTo("servicehooks");
    assertThat(defaults.deadLetterTopic()).isEqualTo("events.dead");
    assertThat(defaults.maxAttempts()).isZero(); // the source's default, the durable inbox's
    assertThat(defaults.retryBase()).isNull();

    KafkaWiring.Config set =
        KafkaWiring.parse(
            env(
                "DELIVERY", "kafka",
                "KAFKA_BOOTSTRAP_SERVERS", "broker:9092",
                "KAFKA_TOPIC", "events",
                "KAFKA_GROUP_ID", "bots",
                "KAFKA_DEAD_LETTER_TOPIC", "events-failed",
                "INBOX_MAX_ATTEMPTS", "3",
                "INBOX_RETRY_BASE_MS", "250"));
    assertThat(set.groupId()).isEqualTo("bots");
    assertThat(set.deadLetterTopic()).isEqualTo("events-failed");
    assertThat(set.maxAttempts()).isEqualTo(3);
    assertThat(set.retryBase()).isEqualTo(Duration.ofMillis(250));
    assertThat(set.clientProperties()).isEmpty(); // KAFKA_GROUP_ID is ours, not group.id twice
  }

  @Test
  void parse_badSettings_oneLineNamingTheVariable() {
    assertThatThrownBy(() -> KafkaWiring.parse(env("DELIVERY", "kafka")))
        .hasMessageContaining("KAFKA_BOOTSTRAP_SERVERS, which is not set");
    assertThatThrownBy(() -> KafkaWiring.parse(env("KAFKA_TOPIC", "events")))
        .hasMessage(
            "KAFKA_TOPIC is set but KAFKA_BOOTSTRAP_SERVERS is not (no event would go to Kafka)");
    assertThatThrownBy(() -> KafkaWiring.parse(env("KAFKA_BOOTSTRAP_SERVERS", "b:9092")))
        .hasMessageStartingWith("KAFKA_TOPIC is not set");
    assertThatThrownBy(
            () ->
                KafkaWiring.parse(
                    env("KAFKA_BOOTSTRAP_SERVERS", "b:9092", "KAFKA_TOPIC", "bad topic")))
        .hasMessageStartingWith("KAFKA_TOPIC is not a topic name");
    assertThatThrownBy(
            () ->
                KafkaWiring.parse(
                    env(
                        "KAFKA_BOOTSTRAP_SERVERS",
                        "b:9092",
                        "KAFKA_TOPIC",
                        "t",
                        "KAFKA_GROUP_ID",
                        "g")))
        .hasMessageStartingWith("KAFKA_GROUP_ID is set but DELIVERY is not kafka");
    assertThatThrownBy(
            () ->
                KafkaWiring.parse(
                    env(
                        "KAFKA_BOOTSTRAP_SERVERS",
                        "b:9092",
                        "KAFKA_TOPIC",
                        "t",
                        "KAFKA_ACKS",
                        "1")))
        .hasMessageContaining("acks must stay all");
    assertThatThrownBy(
            () ->
                KafkaWiring.parse(
                    env(
                        "DELIVERY", "kafka",
                        "KAFKA_BOOTSTRAP_SERVERS", "b:9092",
                        "KAFKA_TOPIC", "t",
                        "INBOX_MAX_ATTEMPTS", "0")))
        .hasMessageStartingWith("INBOX_MAX_ATTEMPTS must be a number from 1 to 1000");
  }

  @Test
  void main_databaseUrlWithKafka_refusedWithOneLineAndExit2() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        ConsumerMain.run(
            new String[0],
            env(
                "SERVICE_CONSUMER_SECRET", "kafka-wiring-test-secret",
                "PORT", "0",
                "DATABASE_URL", "postgres://user:db-password-never-printed@127.0.0.1:1/db",
                "KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:1",
                "KAFKA_TOPIC", "events"),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8).lines())
        .singleElement()
        .asString()
        .startsWith(
            "servicehooks-consumer: KAFKA_BOOTSTRAP_SERVERS and DATABASE_URL both choose where"
                + " events are kept")
        .doesNotContain("db-password-never-printed");
  }

  @Test
  void main_clientRefusesAProperty_exit2WithOneLineWithoutTheJaasPassword() throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        ConsumerMain.run(
            new String[0],
            env(
                "SERVICE_CONSUMER_SECRET", "kafka-wiring-test-secret",
                "PORT", "0",
                "KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:1",
                "KAFKA_TOPIC", "events",
                "KAFKA_SECURITY_PROTOCOL", "NOT_A_PROTOCOL",
                "KAFKA_SASL_JAAS_CONFIG", "x required password=\"" + JAAS_PASSWORD + "\";"),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8).lines())
        .singleElement()
        .asString()
        .startsWith("servicehooks-consumer: Kafka client settings (KAFKA_*): ")
        .contains("NOT_A_PROTOCOL")
        .doesNotContain(JAAS_PASSWORD);
  }
}
