package io.servicehooks.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.servicehooks.kafkabroker.KafkaBrokerProcess;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The source side of the Kafka mode, measured: how many events a second the listeners run from a
 * full topic, {@code KafkaSource} (run by a {@code WebhookConsumer} in durable mode, as the
 * standalone consumer's {@code DELIVERY=kafka} does) against a hand-written {@link KafkaConsumer}
 * loop with the same commit rule.
 *
 * <p>Each round and each contender: a fresh topic ({@code PARTITIONS}, default 4) filled with
 * {@code EVENTS} records (default 200,000) written as the edge's hand-off writes them (the 1.5 KB
 * activity envelope of the load pool as the value, the {@code servicehooks-*} headers, keys spread
 * over 1,024 users), not timed; then a new group reads it from the start and the clock runs from
 * the subscription until the listener ran for the last event (the final commit is not timed). CPU
 * per event: this JVM's process CPU until the contender closed its consumer; the broker's from
 * {@code /proc/<pid>/stat} when this run started it. The contenders alternate, rounds {@code
 * ROUNDS} (default 3), after one untimed pass of each over {@code WARMUP_EVENTS} (default 50,000);
 * medians reported.
 *
 * <p>The hand-written loop: {@code poll}, for each record its id and type from the headers, the
 * value parsed with one shared {@link ObjectMapper}, put-if-absent of the id into a Caffeine cache
 * (the source's in-memory dedup), the listener (a counter); the offsets of what ran committed every
 * second ({@code commitAsync}) and synchronously when it closes, as {@code KafkaSource} commits: at
 * least once, never an offset past an event whose listeners did not run. One thread (the poll loop
 * runs the listener), where the source runs partitions side by side on its workers.
 *
 * <p>The broker: {@code KAFKA_BOOTSTRAP_SERVERS} when set, else one started for the run in its own
 * process ({@link KafkaBrokerProcess}; {@code KAFKA_BROKER_JAR} names the jar). Results to stdout
 * and, with {@code OUT=file.md}, to that file.
 *
 * <pre>{@code
 * KAFKA_BROKER_JAR=servicehooks-kafka-broker/target/kafka-broker.jar EVENTS=200000 ROUNDS=3 \
 *   java -Xmx1g -cp benchmarks/target/benchmarks.jar io.servicehooks.benchmarks.KafkaSourceBench
 * }</pre>
 */
public final class KafkaSourceBench {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final int USERS = 1024;
  private static final long COMMIT_INTERVAL = TimeUnit.SECONDS.toNanos(1);

  /** One way of reading a full topic and running a listener per event. */
  interface Contender {
    String name();

    /**
     * Reads {@code topic} from the start with group {@code group} until {@code events} ran; the
     * {@link System#nanoTime()} when the listener ran for the last one.
     */
    long drain(String servers, String topic, String group, long events) throws Exception;
  }

  /** One measurement. */
  record Run(
      String contender, int round, long events, double seconds, double cpuUs, double brokerCpuUs) {
    double eventsPerSecond() {
      return events / seconds;
    }
  }

  private KafkaSourceBench() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> env = System.getenv();
    long events = Long.parseLong(env.getOrDefault("EVENTS", "200000"));
    int partitions = Integer.parseInt(env.getOrDefault("PARTITIONS", "4"));
    int rounds = Integer.parseInt(env.getOrDefault("ROUNDS", "3"));
    long warmup = Long.parseLong(env.getOrDefault("WARMUP_EVENTS", "50000"));
    String given = env.get("KAFKA_BOOTSTRAP_SERVERS");
    List<Contender> contenders = new ArrayList<>(KafkaSourceContender.available());
    contenders.add(new HandWrittenLoop());
    KafkaBrokerProcess broker = null;
    String servers = given;
    if (servers == null || servers.isBlank()) {
      broker = KafkaBrokerProcess.builder().build().start();
      servers = broker.bootstrapServers();
    }
    List<Run> runs = new ArrayList<>();
    String load0 = loadAverage();
    try (Admin admin = BenchKafka.admin(servers)) {
      // One untimed pass each first: both contenders measured warm (JIT, broker caches).
      for (Contender c : contenders) {
        if (warmup > 0) {
          String topic = "source-warmup-" + UUID.randomUUID();
          BenchKafka.createTopic(admin, topic, partitions);
          fill(servers, topic, warmup);
          c.drain(servers, topic, "source-warmup-" + UUID.randomUUID(), warmup);
          admin.deleteTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
        }
      }
      for (int round = 1; round <= rounds; round++) {
        for (Contender c : contenders) {
          String topic = "source-bench-" + UUID.randomUUID();
          BenchKafka.createTopic(admin, topic, partitions);
          fill(servers, topic, events);
          long cpu0 = processCpuNanos();
          long broker0 = broker == null ? -1 : ticks(broker.pid());
          long began = System.nanoTime();
          long last = c.drain(servers, topic, "source-bench-" + UUID.randomUUID(), events);
          double seconds = (last - began) / 1e9;
          double cpuUs = (processCpuNanos() - cpu0) / 1e3 / events;
          double brokerUs =
              broker == null ? Double.NaN : ticksToUs(ticks(broker.pid()) - broker0) / events;
          Run r = new Run(c.name(), round, events, seconds, cpuUs, brokerUs);
          runs.add(r);
          System.err.printf(
              Locale.ROOT,
              "[source] round %d %s: %,.0f events/s (%.2f s), %.1f us CPU/event, broker %.1f us,"
                  + " load %s%n",
              round,
              c.name(),
              r.eventsPerSecond(),
              seconds,
              cpuUs,
              brokerUs,
              loadAverage());
          admin.deleteTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
        }
      }
    } finally {
      if (broker != null) {
        broker.close();
      }
    }
    String report = report(runs, events, partitions, rounds, load0, given == null);
    System.out.print(report);
    String out = env.get("OUT");
    if (out != null && !out.isBlank()) {
      Files.writeString(Path.of(out), report, StandardCharsets.UTF_8);
    }
  }

  /** Fills {@code topic} with {@code events} records as the edge's hand-off writes them. */
  static void fill(String servers, String topic, long events) throws Exception {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    long seed = System.nanoTime();
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p)) {
      for (long i = 0; i < events; i++) {
        String id = Payloads.eventUuid(seed, i);
        RecordHeaders h = new RecordHeaders();
        h.add("servicehooks-event-id", id.getBytes(StandardCharsets.UTF_8));
        h.add("servicehooks-event-type", "post.create".getBytes(StandardCharsets.UTF_8));
        h.add("servicehooks-family", "ACTIVITY".getBytes(StandardCharsets.UTF_8));
        producer.send(
            new ProducerRecord<>(topic, null, "user-" + (i % USERS), Payloads.envelope(id), h));
      }
      producer.flush();
    }
  }

  /** The hand-written {@link KafkaConsumer} loop (see the class comment). */
  static final class HandWrittenLoop implements Contender {
    @Override
    public String name() {
      return "hand-written KafkaConsumer loop";
    }

    @Override
    public long drain(String servers, String topic, String group, long events) throws Exception {
      Map<String, Object> p = new HashMap<>();
      p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
      p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
      p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
      p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
      p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
      Cache<String, Boolean> seen =
          Caffeine.newBuilder()
              .expireAfterWrite(Duration.ofHours(24))
              .maximumSize(1_000_000)
              .build();
      LongAdder handled = new LongAdder();
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
      long committed = System.nanoTime();
      long last;
      try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(p)) {
        consumer.subscribe(List.of(topic));
        while (handled.sum() < events) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException("hand-written loop: " + handled.sum() + " in 10 min");
          }
          ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(100));
          for (ConsumerRecord<String, byte[]> r : records) {
            String id = header(r, "servicehooks-event-id");
            String type = header(r, "servicehooks-event-type");
            JsonNode event = MAPPER.readTree(r.value());
            if (seen.asMap().putIfAbsent(id, Boolean.TRUE) == null
                && "post.create".equals(type)
                && !event.isMissingNode()) {
              handled.increment(); // the listener
            }
          }
          if (!records.isEmpty() && System.nanoTime() - committed >= COMMIT_INTERVAL) {
            consumer.commitAsync();
            committed = System.nanoTime();
          }
        }
        last = System.nanoTime();
        consumer.commitSync();
      }
      return last;
    }

    private static String header(ConsumerRecord<?, ?> r, String name) {
      Header h = r.headers().lastHeader(name);
      return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
  }

  private static String report(
      List<Run> runs, long events, int partitions, int rounds, String load0, boolean ownBroker) {
    Map<String, List<Run>> by = new LinkedHashMap<>();
    runs.forEach(r -> by.computeIfAbsent(r.contender(), k -> new ArrayList<>()).add(r));
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "Source from a full topic: %,d events (1.5 KB each) in %d partitions, %d round(s),"
                + " broker %s. Machine: %d CPUs; load average %s at start, %s at end.%n%n",
            events,
            partitions,
            rounds,
            ownBroker ? "in its own process (KafkaBrokerProcess)" : "at KAFKA_BOOTSTRAP_SERVERS",
            Runtime.getRuntime().availableProcessors(),
            load0,
            loadAverage()));
    b.append(
        "| contender | events/s (median) | per round | CPU µs/event (median, this JVM) | broker CPU"
            + " µs/event |\n|---|---:|---|---:|---:|\n");
    Map<String, Double> medians = new LinkedHashMap<>();
    for (var e : by.entrySet()) {
      double median = median(e.getValue().stream().mapToDouble(Run::eventsPerSecond).toArray());
      medians.put(e.getKey(), median);
      StringBuilder per = new StringBuilder();
      e.getValue()
          .forEach(
              r ->
                  per.append(per.length() == 0 ? "" : ", ")
                      .append(String.format(Locale.ROOT, "%,.0f", r.eventsPerSecond())));
      b.append(
          String.format(
              Locale.ROOT,
              "| %s | %,.0f | %s | %.1f | %.1f |%n",
              e.getKey(),
              median,
              per,
              median(e.getValue().stream().mapToDouble(Run::cpuUs).toArray()),
              median(e.getValue().stream().mapToDouble(Run::brokerCpuUs).toArray())));
    }
    Double source = medians.get(KafkaSourceContender.NAME);
    Double hand = medians.get(new HandWrittenLoop().name());
    if (source != null && hand != null) {
      b.append(
          String.format(
              Locale.ROOT, "%nKafkaSource / hand-written loop, events/s: %.2f%n", source / hand));
    }
    return b.toString();
  }

  private static double median(double[] v) {
    double[] s = Arrays.stream(v).filter(x -> !Double.isNaN(x)).sorted().toArray();
    if (s.length == 0) {
      return Double.NaN;
    }
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** utime + stime of {@code pid}, in clock ticks. */
  private static long ticks(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  private static double ticksToUs(long ticks) {
    return ticks * 1e6 / 100; // USER_HZ is 100 on Linux
  }

  private static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return "?";
    }
  }
}
