package io.servicehooks.benchmarks;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * The load harness's topics on the benchmark broker ({@code KAFKA_BOOTSTRAP_SERVERS}): a fresh
 * topic per cell, its record count after the cell, deleted after it.
 *
 * <pre>{@code
 * java -cp benchmarks.jar io.servicehooks.benchmarks.BenchKafka create <topic> <partitions>
 * java -cp benchmarks.jar io.servicehooks.benchmarks.BenchKafka count <topic>
 * java -cp benchmarks.jar io.servicehooks.benchmarks.BenchKafka delete <topic>
 * }</pre>
 */
public final class BenchKafka {

  private BenchKafka() {}

  public static void main(String[] args) throws Exception {
    String servers = System.getenv("KAFKA_BOOTSTRAP_SERVERS");
    try (Admin admin = admin(servers)) {
      switch (args[0]) {
        case "create" -> createTopic(admin, args[1], Integer.parseInt(args[2]));
        case "count" -> System.out.println(count(admin, args[1]));
        case "delete" -> admin.deleteTopics(List.of(args[1])).all().get(60, TimeUnit.SECONDS);
        default -> throw new IllegalArgumentException("create | count | delete, not " + args[0]);
      }
    }
  }

  static Admin admin(String servers) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000);
    return Admin.create(p);
  }

  /** Creates {@code topic} and waits until every partition has a leader. */
  static void createTopic(Admin admin, String topic, int partitions) throws Exception {
    admin
        .createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
        .all()
        .get(60, TimeUnit.SECONDS);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      try {
        TopicDescription d =
            admin
                .describeTopics(List.of(topic))
                .allTopicNames()
                .get(10, TimeUnit.SECONDS)
                .get(topic);
        if (d.partitions().stream().allMatch(p -> p.leader() != null)) {
          return;
        }
      } catch (Exception e) {
        // not known yet
      }
      TimeUnit.MILLISECONDS.sleep(100); // polling the broker's metadata
    }
    throw new IllegalStateException("topic " + topic + " has no leaders after 60 s");
  }

  /** The records in {@code topic}: the sum of its partitions' end offsets. */
  static long count(Admin admin, String topic) throws Exception {
    TopicDescription d =
        admin.describeTopics(List.of(topic)).allTopicNames().get(60, TimeUnit.SECONDS).get(topic);
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (TopicPartitionInfo p : d.partitions()) {
      TopicPartition tp = new TopicPartition(topic, p.partition());
      latest.put(tp, OffsetSpec.latest());
    }
    long total = 0;
    for (var e : admin.listOffsets(latest).all().get(60, TimeUnit.SECONDS).entrySet()) {
      total += e.getValue().offset();
    }
    return total;
  }
}
