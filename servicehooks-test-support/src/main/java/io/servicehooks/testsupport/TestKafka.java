package io.servicehooks.testsupport;

import java.nio.charset.StandardCharsets;
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
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * One real KRaft broker (combined broker and controller) started in the test's JVM from Kafka's own
 * test kit, for the modules beside webhook-kafka (the standalone consumer, the Spring adapter).
 * Each test makes its own topics ({@link #newTopic}) and deletes them ({@link #deleteTopic}).
 * Declare {@code org.apache.kafka:kafka-test-common-runtime} in test scope to use it.
 */
public final class TestKafka implements AutoCloseable {

  private final KafkaClusterTestKit cluster;
  private final Admin admin;
  private boolean closed;

  private TestKafka(KafkaClusterTestKit cluster) {
    this.cluster = cluster;
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    this.admin = Admin.create(p);
  }

  /** Starts a broker and waits until it is ready. */
  public static TestKafka start() throws Exception {
    KafkaClusterTestKit cluster =
        new KafkaClusterTestKit.Builder(
                new TestKitNodes.Builder()
                    .setCombined(true)
                    .setNumBrokerNodes(1)
                    .setNumControllerNodes(1)
                    .build())
            .setConfigProp("offsets.topic.replication.factor", "1")
            .setConfigProp("offsets.topic.num.partitions", "1")
            .setConfigProp("transaction.state.log.replication.factor", "1")
            .setConfigProp("transaction.state.log.min.isr", "1")
            .setConfigProp("group.initial.rebalance.delay.ms", "0")
            .build();
    cluster.format();
    cluster.startup();
    cluster.waitForReadyBrokers();
    return new TestKafka(cluster);
  }

  /** The {@code bootstrap.servers} of the broker. */
  public String bootstrapServers() {
    return cluster.bootstrapServers();
  }

  /** A new topic with {@code partitions} partitions and a name no other test uses. */
  public String newTopic(int partitions) throws Exception {
    String name = "events-" + UUID.randomUUID();
    createTopic(name, partitions);
    return name;
  }

  /** Creates the topic {@code name}. */
  public void createTopic(String name, int partitions) throws Exception {
    admin
        .createTopics(List.of(new NewTopic(name, partitions, (short) 1)))
        .all()
        .get(30, TimeUnit.SECONDS);
  }

  /** Deletes the topics named, those that exist. */
  public void deleteTopic(String... names) throws Exception {
    List<String> existing = new ArrayList<>(admin.listTopics().names().get(30, TimeUnit.SECONDS));
    existing.retainAll(List.of(names));
    if (!existing.isEmpty()) {
      admin.deleteTopics(existing).all().get(30, TimeUnit.SECONDS);
    }
  }

  /** Deletes the consumer group {@code groupId} (its members must have left). */
  public void deleteGroup(String groupId) throws Exception {
    try {
      admin.deleteConsumerGroups(List.of(groupId)).all().get(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      if (!(e.getCause() instanceof org.apache.kafka.common.errors.GroupIdNotFoundException)) {
        throw e;
      }
    }
  }

  /** Sends one record with string headers and waits for its acknowledgement. */
  public void send(String topic, String key, String value, Map<String, String> headers)
      throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p)) {
      ProducerRecord<String, byte[]> record =
          new ProducerRecord<>(topic, key, value.getBytes(StandardCharsets.UTF_8));
      headers.forEach((k, v) -> record.headers().add(k, v.getBytes(StandardCharsets.UTF_8)));
      producer.send(record).get(30, TimeUnit.SECONDS);
    }
  }

  /** Every record in {@code topic}, read from the start of each partition to its end. */
  public List<ConsumerRecord<String, byte[]>> readAll(String topic) {
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

  /** A record's header as UTF-8 text, or null. */
  public static String header(ConsumerRecord<?, ?> record, String name) {
    Header h = record.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  private static boolean reached(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (consumer.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  /** Stops the broker (once; a second call does nothing). */
  @Override
  public synchronized void close() throws Exception {
    if (closed) {
      return;
    }
    closed = true;
    admin.close(Duration.ofSeconds(5));
    cluster.close();
  }
}
