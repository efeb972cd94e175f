package io.servicehooks.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.servicehooks.core.Acknowledgement;
import io.servicehooks.core.Deduplicator;
import io.servicehooks.core.EventInbox;
import io.servicehooks.core.InboxOutcome;
import io.servicehooks.core.InboxProcessor;
import io.servicehooks.core.StoredEvent;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookEvent;
import io.servicehooks.core.WebhookListener;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.payload.OAuthRevoked;
import io.servicehooks.core.payload.PostCreated;
import io.servicehooks.core.payload.ReplayJobStatus;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.TestSigner;
import io.servicehooks.testsupport.TestKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The source on a real KRaft broker: the listeners of a consumer run from the topic the edge wrote,
 * once per event, in partition order, with offsets committed only after they ran; a poison event
 * reaches the dead-letter topic; partitions move between members without losing or repeating a
 * finished event.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
final class KafkaSourceTest {

  private static final String SECRET = "kafka-secret";
  private static final Duration WAIT = Duration.ofSeconds(45);
  private static TestKafka broker;
  private static KafkaProducer<String, byte[]> producer;

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private String topic;
  private String deadTopic;
  private String group;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = TestKafka.start();
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    producer = new KafkaProducer<>(p);
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (producer != null) {
      producer.close(Duration.ofSeconds(5));
    }
    if (broker != null) {
      broker.close();
    }
  }

  @BeforeEach
  void newTopics() throws Exception {
    topic = broker.newTopic(3);
    deadTopic = broker.newTopic(1);
    group = "group-" + topic;
  }

  @AfterEach
  void cleanUp() throws Exception {
    Collections.reverse(closeables);
    for (AutoCloseable c : closeables) {
      c.close();
    }
    broker.deleteTopic(topic);
    broker.deleteTopic(deadTopic);
  }

  // ---------------------------------------------------------------- helpers

  private KafkaSource.Builder source() {
    return KafkaSource.builder(broker.bootstrapServers(), topic)
        .groupId(group)
        .deadLetterTopic(deadTopic)
        .retryBase(Duration.ofMillis(20))
        .retryMax(Duration.ofMillis(200))
        .closeTimeout(Duration.ofSeconds(5))
        .consumerProperties(Map.of("session.timeout.ms", 6000, "heartbeat.interval.ms", 500));
  }

  private WebhookConsumer member(KafkaSource source, WebhookConsumer.Builder listeners) {
    WebhookConsumer consumer =
        listeners
            .consumerSecrets(SECRET)
            .acknowledgement(Acknowledgement.DURABLE)
            .inbox(source)
            .build();
    closeables.add(consumer);
    return consumer;
  }

  private WebhookConsumer member(KafkaSource source, WebhookListener listener) {
    return member(source, WebhookConsumer.builder().onAny(listener));
  }

  /** Writes the record the edge writes for an activity event {@code id} to {@code partition}. */
  private void send(int partition, String id) throws Exception {
    String value =
        Events.activity(
            id, "post.create", Map.of("user_id", "u" + partition), null, Map.of("id", id));
    RecordHeaders headers = new RecordHeaders();
    headers.add(KafkaHandOff.EVENT_ID_HEADER, utf8(id));
    headers.add(KafkaHandOff.EVENT_TYPE_HEADER, utf8("post.create"));
    headers.add(KafkaHandOff.FAMILY_HEADER, utf8("ACTIVITY"));
    producer
        .send(new ProducerRecord<>(topic, partition, "u" + partition, utf8(value), headers))
        .get(10, TimeUnit.SECONDS);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String header(ConsumerRecord<?, ?> record, String name) {
    return RecordEvents.header(record.headers(), name);
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      Thread.sleep(20);
    }
  }

  private static double records(SimpleMeterRegistry registry, String outcome) {
    var counter = registry.find("webhook.kafka.records").tag("outcome", outcome).counter();
    return counter == null ? 0 : counter.count();
  }

  // ---------------------------------------------------------------- edge to source

  /** An inbox that keeps what the edge hands the hand-off, and hands it on. */
  private static final class Recording implements EventInbox {
    final KafkaHandOff handOff;
    final List<StoredEvent> stored = new CopyOnWriteArrayList<>();

    Recording(KafkaHandOff handOff) {
      this.handOff = handOff;
    }

    @Override
    public CompletionStage<List<InboxOutcome>> store(List<StoredEvent> events) {
      stored.addAll(events);
      return handOff.store(events);
    }

    @Override
    public boolean deduplicates() {
      return false;
    }

    @Override
    public void start(InboxProcessor processor) {}

    @Override
    public void close() {
      handOff.close();
    }
  }

  @Test
  void edgeToTopicToSource_typedListenersSeeTheEventsAsTheyArrived() throws Exception {
    Recording recording =
        new Recording(KafkaHandOff.builder(broker.bootstrapServers(), topic).build());
    WebhookConsumer edge =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .inbox(recording)
            .deduplicator(Deduplicator.inMemory())
            .build();
    closeables.add(edge);
    // What a consumer answering the deliveries itself would hand its typed listener.
    Map<String, Object> direct = new ConcurrentHashMap<>();
    WebhookConsumer reference =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .onEvent(PostCreated.class, (event, post) -> direct.put(event.id(), post))
            .onEvent(OAuthRevoked.class, (event, revoked) -> direct.put(event.id(), revoked))
            .onEvent(ReplayJobStatus.class, (event, status) -> direct.put(event.id(), status))
            .build();
    closeables.add(reference);
    // Posts by someone other than the subscribed user: a user's own posts are skipped by default.
    String activity =
        Events.activity(
            "1001",
            "post.create",
            Map.of("user_id", "2244994945"),
            null,
            Map.of("id", "1001", "text", "hello from the envelope", "author_id", "999"));
    String batch =
        Events.accountActivity(
            "783214",
            "post_create_events",
            List.of(
                Map.of(
                    "id_str", "2002",
                    "text", "hello from the batch",
                    "user", Map.of("id_str", "555", "screen_name", "someone"))));
    String renamed =
        Events.activity(
            "ev-renamed",
            "ProfileBioUpdate",
            Map.of("user_id", "42"),
            "my-tag",
            Map.of("bio", "x"));
    // Legacy events without a for_user_id travel as their whole delivery.
    String revoke = Events.userRevoke("31337", "app-7");
    String replay = Events.replayJobStatus("wh-1", "job-1", "complete", "done");
    for (String body : List.of(activity, batch, renamed, revoke, replay)) {
      byte[] bytes = utf8(body);
      assertThat(
              edge.handle(WebhookRequest.post(TestSigner.sign(SECRET, bytes), bytes))
                  .get(15, TimeUnit.SECONDS)
                  .status())
          .isEqualTo(200);
      reference
          .handle(WebhookRequest.post(TestSigner.sign(SECRET, bytes), bytes))
          .get(15, TimeUnit.SECONDS);
    }

    Map<String, Object> typed = new ConcurrentHashMap<>();
    Map<String, WebhookEvent> seen = new ConcurrentHashMap<>();
    member(
        source().build(),
        WebhookConsumer.builder()
            .onEvent(PostCreated.class, (event, post) -> typed.put(event.id(), post))
            .onEvent(OAuthRevoked.class, (event, revoked) -> typed.put(event.id(), revoked))
            .onEvent(ReplayJobStatus.class, (event, status) -> typed.put(event.id(), status))
            .onAny(event -> seen.put(event.id(), event)));

    await("the five events ran", () -> seen.size() == 5);
    assertThat(typed).hasSize(4).isEqualTo(direct);
    assertThat(typed.values()).hasAtLeastOneElementOfType(OAuthRevoked.class);
    assertThat(typed.values()).hasAtLeastOneElementOfType(ReplayJobStatus.class);
    assertThat(((PostCreated) typed.get("2002")).text()).isEqualTo("hello from the batch");
    assertThat(((PostCreated) typed.get("1001")).text()).isEqualTo("hello from the envelope");
    // Every value a listener reads is the edge's: the JSON slices exactly, the names, the dedup
    // key.
    RecordEvents events = new RecordEvents(new com.fasterxml.jackson.databind.ObjectMapper());
    for (ConsumerRecord<String, byte[]> record : broker.readAll(topic)) {
      StoredEvent back = events.event(record.headers(), record.value());
      StoredEvent original =
          recording.stored.stream().filter(e -> e.id().equals(back.id())).findFirst().orElseThrow();
      if (original.forUserId() == null) {
        assertThat(back).usingRecursiveComparison().isEqualTo(original);
      } else {
        // A batch item travels alone: its delivery is a batch of that one item.
        assertThat(back)
            .usingRecursiveComparison()
            .ignoringFields("deliveryJson")
            .isEqualTo(original);
        assertThat(back.deliveryJson()).contains("\"post_create_events\":[" + back.payloadJson());
      }
    }
    WebhookEvent bio = seen.get("ev-renamed");
    assertThat(bio.type()).isEqualTo("profile.update.bio");
    assertThat(bio.originalType()).isEqualTo("ProfileBioUpdate");
    assertThat(bio.tag()).contains("my-tag");
    assertThat(bio.forUserId()).contains("42");
    assertThat(seen.get("2002").forUserId()).contains("783214");
  }

  // ---------------------------------------------------------------- dedup

  @Test
  void platformCopies_runOnce() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    member(
        source().meterRegistry(registry).build(),
        event -> runs.computeIfAbsent(event.id(), k -> new AtomicInteger()).incrementAndGet());

    send(0, "a");
    send(0, "a");
    send(1, "b");
    send(2, "a"); // a copy in another partition too
    send(1, "c");

    await(
        "all five records were read",
        () -> records(registry, "handled") + records(registry, "duplicate") == 5);
    assertThat(runs).containsOnlyKeys("a", "b", "c");
    assertThat(runs.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    assertThat(records(registry, "handled")).isEqualTo(3);
    assertThat(records(registry, "duplicate")).isEqualTo(2);
  }

  // ---------------------------------------------------------------- commits

  @Test
  void offsetsCommittedOnlyAfterListenersRan_unfinishedRunsAgainOnTheNextMember() throws Exception {
    Map<String, AtomicInteger> finished = new ConcurrentHashMap<>();
    CountDownLatch slowStarted = new CountDownLatch(1);
    CountDownLatch never = new CountDownLatch(1);
    KafkaSource first = source().closeTimeout(Duration.ofSeconds(1)).build();
    WebhookConsumer one =
        member(
            first,
            event -> {
              if (event.id().equals("slow")) {
                slowStarted.countDown();
                never.await(); // interrupted when the member closes
              }
              finished.computeIfAbsent(event.id(), k -> new AtomicInteger()).incrementAndGet();
            });
    send(0, "done-1");
    send(0, "slow");
    send(0, "after");
    assertThat(slowStarted.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(finished).containsOnlyKeys("done-1");

    one.close();

    // The next member (its own memory: only the committed offset tells it what finished).
    List<String> second = new CopyOnWriteArrayList<>();
    member(
        source().build(),
        event -> {
          second.add(event.id());
          finished.computeIfAbsent(event.id(), k -> new AtomicInteger()).incrementAndGet();
        });
    await("the next member ran the rest", () -> second.contains("after"));
    assertThat(second).containsExactly("slow", "after");
    assertThat(finished.get("done-1").get()).isEqualTo(1);
  }

  // ---------------------------------------------------------------- order and retries

  @Test
  void failingEvent_blocksOnlyItsPartition_orderKept_retriedUntilItSucceeds() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    List<String> order = new CopyOnWriteArrayList<>();
    AtomicBoolean healed = new AtomicBoolean();
    AtomicInteger attemptsOfBad = new AtomicInteger();
    member(
        source().meterRegistry(registry).maxAttempts(1000).build(),
        event -> {
          if (event.id().equals("p0-3")) {
            attemptsOfBad.incrementAndGet();
            if (!healed.get()) {
              throw new IllegalStateException("not yet");
            }
          }
          order.add(event.id());
        });
    for (int i = 1; i <= 6; i++) {
      send(0, "p0-" + i);
    }
    await("p0-3 failed twice", () -> attemptsOfBad.get() >= 2);
    // While p0-3 waits, the other partitions go on.
    for (int i = 1; i <= 3; i++) {
      send(1, "p1-" + i);
    }
    await("partition 1 ran", () -> order.contains("p1-3"));
    assertThat(order).doesNotContain("p0-3", "p0-4", "p0-5", "p0-6");
    healed.set(true);

    await("partition 0 ran", () -> order.contains("p0-6"));
    List<String> p0 = order.stream().filter(id -> id.startsWith("p0-")).toList();
    assertThat(p0).containsExactly("p0-1", "p0-2", "p0-3", "p0-4", "p0-5", "p0-6");
    assertThat(records(registry, "retried")).isEqualTo(attemptsOfBad.get() - 1);
    assertThat(records(registry, "handled")).isEqualTo(9);
  }

  @Test
  void poisonEvent_reachesTheDeadLetterTopicWithItsReason_andThePartitionGoesOn() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    List<String> handled = new CopyOnWriteArrayList<>();
    List<KafkaDeadLetter> letters = new CopyOnWriteArrayList<>();
    AtomicInteger poisonAttempts = new AtomicInteger();
    member(
        source().meterRegistry(registry).maxAttempts(3).onDeadLetter(letters::add).build(),
        event -> {
          if (event.id().equals("poison")) {
            poisonAttempts.incrementAndGet();
            throw new IllegalStateException("cannot digest " + event.id());
          }
          handled.add(event.id());
        });
    send(0, "before");
    send(0, "poison");
    send(0, "after");
    producer
        .send(new ProducerRecord<>(topic, 0, "k", utf8("not an edge record")))
        .get(10, TimeUnit.SECONDS);
    send(0, "last");

    await("the partition went on", () -> handled.contains("last"));
    assertThat(handled).containsExactly("before", "after", "last");
    assertThat(poisonAttempts.get()).isEqualTo(3);
    assertThat(letters).hasSize(2);
    KafkaDeadLetter letter = letters.get(0);
    assertThat(letter.eventId()).isEqualTo("poison");
    assertThat(letter.type()).isEqualTo("post.create");
    assertThat(letter.attempts()).isEqualTo(3);
    assertThat(letter.reason()).isEqualTo("java.lang.IllegalStateException: cannot digest poison");
    assertThat(letter.topic()).isEqualTo(topic);
    assertThat(letter.partition()).isZero();
    assertThat(letter.offset()).isEqualTo(1);
    assertThat(letter.deadLetterTopic()).isEqualTo(deadTopic);
    assertThat(letters.get(1).reason()).contains(KafkaHandOff.EVENT_ID_HEADER);

    List<ConsumerRecord<String, byte[]>> dead = broker.readAll(deadTopic);
    assertThat(dead).hasSize(2);
    ConsumerRecord<String, byte[]> d = dead.get(0);
    ConsumerRecord<String, byte[]> original =
        broker.readAll(topic).stream().filter(r -> r.offset() == 1).findFirst().orElseThrow();
    assertThat(d.key()).isEqualTo(original.key());
    assertThat(d.value()).isEqualTo(original.value());
    assertThat(header(d, KafkaHandOff.EVENT_ID_HEADER)).isEqualTo("poison");
    assertThat(header(d, KafkaHandOff.FAMILY_HEADER)).isEqualTo("ACTIVITY");
    assertThat(header(d, KafkaSource.DEAD_LETTER_REASON_HEADER))
        .isEqualTo("java.lang.IllegalStateException: cannot digest poison");
    assertThat(header(d, KafkaSource.DEAD_LETTER_ATTEMPTS_HEADER)).isEqualTo("3");
    assertThat(header(d, KafkaSource.DEAD_LETTER_TOPIC_HEADER)).isEqualTo(topic);
    assertThat(header(d, KafkaSource.DEAD_LETTER_PARTITION_HEADER)).isEqualTo("0");
    assertThat(header(d, KafkaSource.DEAD_LETTER_OFFSET_HEADER)).isEqualTo("1");
    assertThat(new String(dead.get(1).value(), StandardCharsets.UTF_8))
        .isEqualTo("not an edge record");
    assertThat(records(registry, "dead_lettered")).isEqualTo(2);
    assertThat(records(registry, "retried")).isEqualTo(2);
  }

  // ---------------------------------------------------------------- rebalances

  @Test
  void partitionsFetchedAheadOfTheirWorkers_runInOrderOnceEach_andCommitToTheEnd()
      throws Exception {
    int perPartition = 60;
    for (int i = 0; i < perPartition; i++) {
      for (int p = 0; p < 3; p++) {
        send(p, "p" + p + "-" + i);
      }
    }
    List<String> order = new CopyOnWriteArrayList<>();
    Map<String, AtomicInteger> finished = new ConcurrentHashMap<>();
    AtomicInteger attemptsOfBad = new AtomicInteger();
    // Low water marks: every partition is paused, drained and refilled many times over.
    WebhookConsumer one =
        member(
            source().maxAttempts(1000).laneWaterMarks(4, 2).build(),
            event -> {
              if (event.id().equals("p0-10") && attemptsOfBad.incrementAndGet() <= 2) {
                throw new IllegalStateException("not yet");
              }
              order.add(event.id());
              finished.computeIfAbsent(event.id(), k -> new AtomicInteger()).incrementAndGet();
            });

    await("every event finished", () -> finished.size() == 3 * perPartition);
    one.close();

    for (int p = 0; p < 3; p++) {
      String prefix = "p" + p + "-";
      List<String> expected = new ArrayList<>();
      for (int i = 0; i < perPartition; i++) {
        expected.add(prefix + i);
      }
      assertThat(order.stream().filter(id -> id.startsWith(prefix)).toList())
          .as("partition %d in offset order", p)
          .containsExactlyElementsOf(expected);
    }
    assertThat(finished.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    assertThat(attemptsOfBad).hasValue(3);
    Properties admin = new Properties();
    admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    try (Admin a = Admin.create(admin)) {
      Map<TopicPartition, OffsetAndMetadata> committed =
          a.listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get(30, TimeUnit.SECONDS);
      for (int p = 0; p < 3; p++) {
        assertThat(committed.get(new TopicPartition(topic, p)).offset())
            .as("partition %d committed past its last record at close", p)
            .isEqualTo(perPartition);
      }
    } finally {
      broker.deleteGroup(group);
    }
  }

  @Test
  void secondMemberJoinsMidStream_everyEventFinishedExactlyOnce() throws Exception {
    int count = 300;
    Map<String, AtomicInteger> finished = new ConcurrentHashMap<>();
    Map<String, String> by = new ConcurrentHashMap<>();
    WebhookListener listener1 = finishing(finished, by, "one");
    // Low water marks: partitions paused and refilled (the poll thread woken) across the hand-over.
    member(source().laneWaterMarks(4, 2).build(), listener1);
    for (int i = 0; i < count / 2; i++) {
      send(i % 3, "e" + i);
    }
    await("the first member is under way", () -> finished.size() >= 30);
    member(source().laneWaterMarks(4, 2).build(), finishing(finished, by, "two"));
    for (int i = count / 2; i < count; i++) {
      send(i % 3, "e" + i);
    }

    await("every event finished", () -> finished.size() == count);
    Thread.sleep(500); // a repeat would show up now
    assertThat(finished.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    assertThat(finished).hasSize(count);
    assertThat(by.values()).contains("one", "two");
  }

  private static WebhookListener finishing(
      Map<String, AtomicInteger> finished, Map<String, String> by, String member) {
    return event -> {
      Thread.sleep(2);
      by.put(event.id(), member);
      finished.computeIfAbsent(event.id(), k -> new AtomicInteger()).incrementAndGet();
    };
  }

  @Test
  void killedMember_itsPartitionsTakenOver_everyEventFinishedExactlyOnce() throws Exception {
    int count = 300;
    // Shared by the members, as webhook-redis's would be between processes.
    Deduplicator shared = Deduplicator.inMemory();
    SimpleMeterRegistry second = new SimpleMeterRegistry();
    Map<String, AtomicInteger> finished = new ConcurrentHashMap<>();
    Map<String, String> by = new ConcurrentHashMap<>();
    KafkaSource doomed =
        source()
            .deduplicator(shared)
            .claimLease(Duration.ofSeconds(2))
            .commitInterval(Duration.ofMinutes(5)) // it dies with finished records uncommitted
            .laneWaterMarks(4, 2)
            .build();
    member(doomed, finishing(finished, by, "doomed"));
    for (int i = 0; i < count / 2; i++) {
      send(i % 3, "e" + i);
    }
    await("the first member is under way", () -> finished.size() >= 30);

    doomed.kill();
    member(
        source()
            .deduplicator(shared)
            .claimLease(Duration.ofSeconds(2))
            .meterRegistry(second)
            .laneWaterMarks(4, 2)
            .build(),
        finishing(finished, by, "survivor"));
    for (int i = count / 2; i < count; i++) {
      send(i % 3, "e" + i);
    }

    await("every event finished", () -> finished.size() == count);
    Thread.sleep(500);
    assertThat(finished.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    assertThat(by.values()).contains("doomed", "survivor");
    // What the dead member finished but never committed came again and was known as done.
    assertThat(records(second, "duplicate")).isPositive();
  }

  // ---------------------------------------------------------------- settings

  @Test
  void store_refusedWithOneLine_aSourceTakesNoDeliveries() {
    KafkaSource source = KafkaSource.builder(broker.bootstrapServers(), topic).build();
    closeables.add(source);
    assertThatThrownBy(() -> source.store(List.of()).toCompletableFuture().join())
        .hasCauseInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("takes no deliveries");
    assertThat(source.deduplicates()).isTrue();
    assertThat(source.mayBlock()).isFalse();
  }

  @Test
  void builder_refusesAutoCommitAndADeadLetterTopicThatIsTheTopic() {
    assertThatThrownBy(
            () ->
                KafkaSource.builder("localhost:9092", "t")
                    .consumerProperties(Map.of("enable.auto.commit", "true")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("enable.auto.commit");
    assertThatThrownBy(
            () -> KafkaSource.builder("localhost:9092", "t").deadLetterTopic("t").build())
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> KafkaSource.builder("localhost:9092", "t").maxAttempts(0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void backOff_doublesFromTheBase_upToTheMaximum_neverBelowHalf() {
    KafkaSource.Builder b =
        KafkaSource.builder("localhost:9092", "t")
            .retryBase(Duration.ofSeconds(2))
            .retryMax(Duration.ofSeconds(10));
    assertThat(b.backoffMillis(1, 0)).isEqualTo(1000);
    assertThat(b.backoffMillis(1, 1)).isEqualTo(2000);
    assertThat(b.backoffMillis(2, 1)).isEqualTo(4000);
    assertThat(b.backoffMillis(3, 0.5)).isEqualTo(6000);
    assertThat(b.backoffMillis(30, 1)).isEqualTo(10_000);
  }
}
