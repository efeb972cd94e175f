package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.kafka.KafkaHandOff;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testsupport.JarProcesses;
import io.servicehooks.testsupport.Ports;
import io.servicehooks.testsupport.TestKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged jar with {@code KAFKA_BOOTSTRAP_SERVERS} against a real KRaft broker: a signed
 * delivery from the platform simulator lands in {@code KAFKA_TOPIC}, and a SASL password given in
 * {@code KAFKA_SASL_JAAS_CONFIG} appears nowhere in the process's output; with {@code DATABASE_URL}
 * too it refuses to start with one line.
 */
final class KafkaConsumerJarIT {

  private static final Path JAR = Path.of("target/servicehooks-consumer.jar");
  private static final String SECRET = "kafka-jar-it-consumer-secret-0123456789";
  private static final String JAAS_PASSWORD = "jaas-password-never-printed-1618";
  private static TestKafka kafka;

  @RegisterExtension final JarProcesses jars = new JarProcesses(JAR);

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

  @Test
  void handOff_simulatorsSignedDelivery_inTheTopic_jaasPasswordNeverPrinted(@TempDir Path dir)
      throws Exception {
    String topic = kafka.newTopic(2);
    try (PlatformSimulator simulator =
        PlatformSimulator.builder().consumerSecret(SECRET).localMode(true).build().start()) {
      int port = Ports.free();
      Map<String, String> env = new HashMap<>();
      env.put("SERVICE_CONSUMER_SECRET", SECRET);
      env.put("PORT", String.valueOf(port));
      env.put("HOST", "127.0.0.1");
      env.put("SERVICE_API_BASE_URL", simulator.baseUrl().toString());
      env.put("SERVICE_API_KEY", simulator.apiKey());
      env.put("SERVICE_API_SECRET", simulator.apiSecret());
      env.put("WEBHOOK_URL", "http://127.0.0.1:" + port + "/webhooks");
      env.put("ALLOW_INSECURE_URL", "true");
      env.put("KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
      env.put("KAFKA_TOPIC", topic);
      // Accepted by the clients and unused on a PLAINTEXT listener: only its printing is tested.
      env.put("KAFKA_SECURITY_PROTOCOL", "PLAINTEXT");
      env.put(
          "KAFKA_SASL_JAAS_CONFIG",
          "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"edge\""
              + " password=\""
              + JAAS_PASSWORD
              + "\";");
      Path out = dir.resolve("edge.txt");
      Process p = jars.launch().without("DATABASE_URL", "REDIS_URL").env(env).output(out).start();
      JarProcesses.awaitHealthy("http://127.0.0.1:" + port, Duration.ofSeconds(60));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> !simulator.webhookIds().isEmpty()); // registered: a CRC check answered

      simulator.deliver(
          Events.activity("kafka-jar-1", "post.create", Map.of("user_id", "42"), null, Map.of()));
      assertThat(simulator.awaitIdle(Duration.ofSeconds(30))).isTrue();

      List<ConsumerRecord<String, byte[]>> records = kafka.readAll(topic);
      assertThat(records).hasSize(1);
      assertThat(TestKafka.header(records.get(0), KafkaHandOff.EVENT_ID_HEADER))
          .isEqualTo("kafka-jar-1");
      assertThat(records.get(0).key()).isEqualTo("42");
      assertThat(simulator.attempts()).isNotEmpty();

      p.destroy();
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      String output = Files.readString(out, StandardCharsets.UTF_8);
      assertThat(output)
          .contains("Kafka hand-off: every event goes to topic " + topic)
          .contains("sasl.jaas.config=***")
          .contains("security.protocol=PLAINTEXT")
          .doesNotContain(JAAS_PASSWORD)
          .doesNotContain(SECRET)
          .doesNotContain("Handled post.create event kafka-jar-1"); // the listeners run elsewhere
    } finally {
      kafka.deleteTopic(topic);
    }
  }

  @Test
  void databaseUrlWithKafka_exits2WithOneLine(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("out.txt");
    Process p =
        jars.launch()
            .without("DATABASE_URL", "REDIS_URL")
            .env(
                Map.of(
                    "SERVICE_CONSUMER_SECRET",
                    SECRET,
                    "PORT",
                    "0",
                    "DATABASE_URL",
                    "postgres://u:db-password-never-printed@127.0.0.1:1/db",
                    "KAFKA_BOOTSTRAP_SERVERS",
                    kafka.bootstrapServers(),
                    "KAFKA_TOPIC",
                    "never-created",
                    "KAFKA_SASL_JAAS_CONFIG",
                    "x password=\"" + JAAS_PASSWORD + "\";"))
            .output(out)
            .start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isEqualTo(2);
    assertThat(Files.readAllLines(out))
        .singleElement()
        .asString()
        .startsWith(
            "servicehooks-consumer: KAFKA_BOOTSTRAP_SERVERS and DATABASE_URL both choose where"
                + " events are kept")
        .doesNotContain(JAAS_PASSWORD)
        .doesNotContain("db-password-never-printed");
  }
}
