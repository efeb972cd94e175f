package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.servicehooks.kafka.KafkaHandOff;
import io.servicehooks.kafka.KafkaSource;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.TestSigner;
import io.servicehooks.testsupport.TestKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * The standalone consumer's main, in this JVM, on a real KRaft broker: an edge ({@code
 * KAFKA_BOOTSTRAP_SERVERS}) hands a signed delivery's event to the topic, a reader ({@code
 * DELIVERY=kafka}) runs the listeners from it and logs {@code Handled <type> event <id>}, a failing
 * event reaches {@code KAFKA_DEAD_LETTER_TOPIC} after {@code INBOX_MAX_ATTEMPTS}, and health and
 * readiness go DOWN while no broker answers.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
final class KafkaConsumerTest {

  private static final String SECRET = "kafka-consumer-test-secret-0123456789";
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private static TestKafka kafka;

  private final List<ConsumerMain.Running> running = new ArrayList<>();
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private String topic;
  private String group;

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
  void setUp() throws Exception {
    topic = kafka.newTopic(2);
    group = "group-" + UUID.randomUUID();
    logs.start();
    ((Logger) LoggerFactory.getLogger("servicehooks.consumer")).addAppender(logs);
  }

  @AfterEach
  void tearDown() throws Exception {
    running.forEach(ConsumerMain.Running::close);
    ((Logger) LoggerFactory.getLogger("servicehooks.consumer")).detachAppender(logs);
    kafka.deleteTopic(topic, topic + KafkaSource.DEAD_LETTER_SUFFIX);
    kafka.deleteGroup(group);
  }

  private ConsumerMain.Running start(Map<String, String> env) throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int[] exit = new int[1];
    ConsumerMain.Running r =
        ConsumerMain.start(
            new String[0],
            env,
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            ConsumerMain.Listeners.NONE,
            exit);
    assertThat(r).as(err.toString(StandardCharsets.UTF_8)).isNotNull();
    running.add(r);
    return r;
  }

  private Map<String, String> edgeEnv(String servers) {
    Map<String, String> env = new HashMap<>();
    env.put("SERVICE_CONSUMER_SECRET", SECRET);
    env.put("PORT", "0");
    env.put("HOST", "127.0.0.1");
    env.put("KAFKA_BOOTSTRAP_SERVERS", servers);
    env.put("KAFKA_TOPIC", topic);
    return env;
  }

  private Map<String, String> readerEnv() {
    Map<String, String> env = new HashMap<>();
    env.put("DELIVERY", "kafka");
    env.put("PORT", "0");
    env.put("HOST", "127.0.0.1");
    env.put("KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    env.put("KAFKA_TOPIC", topic);
    env.put("KAFKA_GROUP_ID", group);
    return env;
  }

  private static HttpResponse<String> post(int port, String body) throws Exception {
    return CLIENT.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/webhooks"))
            .timeout(Duration.ofSeconds(20))
            .header(TestSigner.SIGNATURE_HEADER, TestSigner.sign(SECRET, body))
            .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return CLIENT.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(20))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private List<String> lines() {
    synchronized (logs) {
      return logs.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }
  }

  @Test
  void edgeThenReader_eventInTheTopic_listenersRunFromIt_handledLine() throws Exception {
    ConsumerMain.Running edge = start(edgeEnv(kafka.bootstrapServers()));
    HttpResponse<String> answer =
        post(
            edge.port(),
            Events.activity("kafka-ev-1", "post.create", Map.of("user_id", "7"), null, Map.of()));
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    List<ConsumerRecord<String, byte[]>> records = kafka.readAll(topic);
    assertThat(records).hasSize(1);
    assertThat(TestKafka.header(records.get(0), KafkaHandOff.EVENT_ID_HEADER))
        .isEqualTo("kafka-ev-1");
    assertThat(lines()).noneMatch(l -> l.startsWith("Handled")); // not run on the edge

    ConsumerMain.Running reader = start(readerEnv());

    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> lines().contains("Handled post.create event kafka-ev-1"));
    assertThat(lines()).anyMatch(l -> l.startsWith("Kafka mode: no webhook"));
    assertThat(get(reader.port(), "/health").statusCode()).isEqualTo(200);
    assertThat(get(reader.port(), "/webhooks").statusCode()).isEqualTo(404);
    assertThat(get(reader.port(), "/metrics").body())
        .contains("webhook_kafka_records_total{")
        .doesNotContain("webhook_crc");
    assertThat(get(edge.port(), "/metrics").body())
        .contains("webhook_kafka_send_seconds_count{outcome=\"acked\"} 1\n")
        .contains("webhook_kafka_in_flight ");
  }

  @Test
  void readerWithFailingListener_eventRetriedThenInTheDeadLetterTopic() throws Exception {
    kafka.send(
        topic,
        "9",
        Events.activity("kafka-poison-1", "post.create", Map.of("user_id", "9"), null, Map.of()),
        Map.of(
            KafkaHandOff.EVENT_ID_HEADER, "kafka-poison-1",
            KafkaHandOff.EVENT_TYPE_HEADER, "post.create",
            KafkaHandOff.FAMILY_HEADER, "ACTIVITY"));
    Map<String, String> env = readerEnv();
    env.put("LISTENER_FAIL", "true");
    env.put("INBOX_MAX_ATTEMPTS", "2");
    env.put("INBOX_RETRY_BASE_MS", "100");

    start(env);

    String dead = topic + KafkaSource.DEAD_LETTER_SUFFIX;
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> lines().stream().anyMatch(l -> l.startsWith("Dead letter: post.create")));
    List<ConsumerRecord<String, byte[]>> letters = kafka.readAll(dead);
    assertThat(letters).hasSize(1);
    assertThat(TestKafka.header(letters.get(0), KafkaHandOff.EVENT_ID_HEADER))
        .isEqualTo("kafka-poison-1");
    assertThat(TestKafka.header(letters.get(0), KafkaSource.DEAD_LETTER_ATTEMPTS_HEADER))
        .isEqualTo("2");
    assertThat(lines()).noneMatch(l -> l.startsWith("Handled"));
  }

  @Test
  void brokerGone_healthAndReadinessDown_thenStopsCleanly() throws Exception {
    TestKafka own = TestKafka.start();
    try {
      own.createTopic(topic, 1);
      ConsumerMain.Running edge = start(edgeEnv(own.bootstrapServers()));
      assertThat(get(edge.port(), "/health").statusCode()).isEqualTo(200);
      assertThat(get(edge.port(), "/health/ready").statusCode()).isEqualTo(200);

      own.close();

      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .untilAsserted(
              () -> {
                HttpResponse<String> health = get(edge.port(), "/health");
                assertThat(health.statusCode()).isEqualTo(503);
                assertThat(health.body()).contains("\"kafka\":\"no Kafka broker answered at ");
              });
      HttpResponse<String> ready = get(edge.port(), "/health/ready");
      assertThat(ready.statusCode()).isEqualTo(503);
      assertThat(ready.body()).contains("no Kafka broker answers");
      assertThat(get(edge.port(), "/health/live").statusCode()).isEqualTo(200);
    } finally {
      own.close();
    }
  }

  @Test
  void noBrokerAtStart_exit2WithOneLine() throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int[] exit = new int[1];
    Map<String, String> env = edgeEnv("127.0.0.1:" + io.servicehooks.testsupport.Ports.free());
    ConsumerMain.Running r =
        ConsumerMain.start(
            new String[0],
            env,
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            ConsumerMain.Listeners.NONE,
            exit);
    assertThat(r).isNull();
    assertThat(exit[0]).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8).lines())
        .singleElement()
        .asString()
        .startsWith(
            "servicehooks-consumer: cannot reach Kafka (KAFKA_BOOTSTRAP_SERVERS) within 10 s");
  }
}
