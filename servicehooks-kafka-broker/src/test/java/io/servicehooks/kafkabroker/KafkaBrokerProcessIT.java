package io.servicehooks.kafkabroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The broker in its own process: it answers, a stop takes it away, and a start on the same
 * directory brings it back on the same port with what was written before.
 */
final class KafkaBrokerProcessIT {

  @Test
  void stopAndStartKeepThePortAndTheRecords() throws Exception {
    Path jar = Path.of("target", KafkaBrokerProcess.JAR_NAME);
    try (KafkaBrokerProcess broker = KafkaBrokerProcess.builder().jar(jar).build().start()) {
      String servers = broker.bootstrapServers();
      assertThat(servers).startsWith("127.0.0.1:");
      createTopic(servers, "kept");
      send(servers, "kept", "before the stop");

      broker.stop();
      assertThat(broker.running()).isFalse();
      String[] hostPort = servers.split(":");
      assertThatThrownBy(
              () -> {
                try (Socket s = new Socket()) {
                  s.connect(
                      new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])), 1_000);
                }
              })
          .as("nothing listens while it is stopped")
          .isInstanceOf(java.io.IOException.class);

      broker.start();
      assertThat(broker.bootstrapServers()).isEqualTo(servers);
      send(servers, "kept", "after the start");
      assertThat(readAll(servers, "kept")).containsExactly("before the stop", "after the start");

      broker.kill();
      broker.start();
      assertThat(readAll(servers, "kept")).containsExactly("before the stop", "after the start");
      assertThat(Files.readString(broker.log())).contains("broker ready at " + servers);
    }
  }

  private static void createTopic(String servers, String topic) throws Exception {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
    try (Admin admin = Admin.create(p)) {
      admin
          .createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
  }

  private static void send(String servers, String topic, String value) throws Exception {
    Map<String, Object> p =
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            servers,
            ProducerConfig.ACKS_CONFIG,
            "all",
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            StringSerializer.class.getName(),
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
            StringSerializer.class.getName());
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      producer.send(new ProducerRecord<>(topic, value)).get(60, TimeUnit.SECONDS);
    }
  }

  private static List<String> readAll(String servers, String topic) {
    Map<String, Object> p =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers,
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp), Duration.ofSeconds(30)).get(tp);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (consumer.position(tp, Duration.ofSeconds(30)) < end && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
          values.add(r.value());
        }
      }
    }
    return values;
  }
}
