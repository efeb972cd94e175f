package io.servicehooks.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * One real KRaft broker (combined broker and controller) started in this JVM from Kafka's own test
 * kit, for one test class: topics are made per test and deleted after.
 */
final class KafkaTestBroker implements AutoCloseable {

  private final KafkaClusterTestKit cluster;
  private final Admin admin;

  private KafkaTestBroker(KafkaClusterTestKit cluster) {
    this.cluster = cluster;
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    this.admin = Admin.create(p);
  }

  static KafkaTestBroker start() throws Exception {
    return start(Map.of());
  }

  /** A broker whose node takes {@code overrides} too, e.g. the address it advertises to clients. */
  static KafkaTestBroker start(Map<String, String> overrides) throws Exception {
    KafkaClusterTestKit cluster =
        new KafkaClusterTestKit.Builder(
                new TestKitNodes.Builder()
                    .setCombined(true)
                    .setNumBrokerNodes(1)
                    .setNumControllerNodes(1)
                    .setPerServerProperties(Map.of(0, overrides))
                    .build())
            .setConfigProp("offsets.topic.replication.factor", "1")
            .setConfigProp("transaction.state.log.replication.factor", "1")
            .setConfigProp("transaction.state.log.min.isr", "1")
            .setConfigProp("group.initial.rebalance.delay.ms", "0")
            .build();
    cluster.format();
    cluster.startup();
    cluster.waitForReadyBrokers();
    return new KafkaTestBroker(cluster);
  }

  String bootstrapServers() {
    return cluster.bootstrapServers();
  }

  /** A new topic with {@code partitions} partitions and a name no other test uses. */
  String newTopic(int partitions) throws Exception {
    String name = "events-" + UUID.randomUUID();
    admin
        .createTopics(List.of(new NewTopic(name, partitions, (short) 1)))
        .all()
        .get(30, TimeUnit.SECONDS);
    return name;
  }

  void deleteTopic(String name) throws Exception {
    admin.deleteTopics(List.of(name)).all().get(30, TimeUnit.SECONDS);
  }

  /** Every record in {@code topic}, read from the start of each partition to its end. */
  List<ConsumerRecord<String, byte[]>> readAll(String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(p)) {
      List<TopicPartition> partitions = new ArrayList<>();
      consumer
          .partitionsFor(topic, Duration.ofSeconds(10))
          .forEach(info -> partitions.add(new TopicPartition(topic, info.partition())));
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(10));
      List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (!reached(consumer, end) && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
      return records;
    }
  }

  private static boolean reached(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (consumer.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() throws Exception {
    admin.close(Duration.ofSeconds(5));
    cluster.close();
  }
}
