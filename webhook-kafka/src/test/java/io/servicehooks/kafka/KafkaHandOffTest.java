package io.servicehooks.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.servicehooks.core.Deduplicator;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookResponse;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.TestSigner;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The hand-off on a real KRaft broker behind a real consumer answering signed deliveries: a
 * delivery is acknowledged only once every event is in the topic, a broker it cannot reach gives
 * 503 within the platform's budget, and the platform's copies reach the topic once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
final class KafkaHandOffTest {

  private static final String SECRET = "kafka-secret";
  private static KafkaTestBroker broker;

  private final List<WebhookConsumer> consumers = new ArrayList<>();
  private String topic;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = KafkaTestBroker.start();
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  @BeforeEach
  void newTopic() throws Exception {
    topic = broker.newTopic(3);
  }

  @AfterEach
  void cleanUp() throws Exception {
    consumers.forEach(WebhookConsumer::close);
    broker.deleteTopic(topic);
  }

  private WebhookConsumer edge(KafkaHandOff handOff, Deduplicator deduplicator) {
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .inbox(handOff)
            .deduplicator(deduplicator)
            .onAny(event -> {})
            .build();
    consumers.add(consumer);
    return consumer;
  }

  private WebhookConsumer edge(Deduplicator deduplicator) {
    return edge(KafkaHandOff.builder(broker.bootstrapServers(), topic).build(), deduplicator);
  }

  private static CompletableFuture<WebhookResponse> deliver(WebhookConsumer consumer, String body) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    return consumer.handle(WebhookRequest.post(TestSigner.sign(SECRET, bytes), bytes));
  }

  private static WebhookResponse answer(WebhookConsumer consumer, String body) throws Exception {
    return deliver(consumer, body).get(15, TimeUnit.SECONDS);
  }

  private static String header(ConsumerRecord<?, ?> record, String name) {
    Header h = record.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  /** A bootstrap address where nothing listens: a port just bound and closed again. */
  private static String unreachable() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return "127.0.0.1:" + socket.getLocalPort();
    }
  }

  @Test
  void acknowledgedDelivery_eachEventInTheTopicOnce_withKeyValueAndHeaders() throws Exception {
    WebhookConsumer consumer = edge(Deduplicator.inMemory());
    String created =
        Events.activity("ev-1", "post.create", Map.of("user_id", "111"), null, Map.of("id", "p1"));
    String renamed =
        Events.activity(
            "ev-2", "ProfileBioUpdate", Map.of("user_id", "222"), null, Map.of("bio", "hi"));

    WebhookResponse first = answer(consumer, created);
    WebhookResponse second = answer(consumer, renamed);

    assertThat(first.status()).isEqualTo(200);
    assertThat(second.status()).isEqualTo(200);
    List<ConsumerRecord<String, byte[]>> records = broker.readAll(topic);
    assertThat(records).hasSize(2);
    ConsumerRecord<String, byte[]> a =
        records.stream()
            .filter(r -> "ev-1".equals(header(r, KafkaHandOff.EVENT_ID_HEADER)))
            .findFirst()
            .orElseThrow();
    assertThat(a.key()).isEqualTo("111");
    assertThat(new String(a.value(), StandardCharsets.UTF_8)).isEqualTo(created);
    assertThat(header(a, KafkaHandOff.EVENT_TYPE_HEADER)).isEqualTo("post.create");
    assertThat(header(a, KafkaHandOff.ORIGINAL_TYPE_HEADER)).isNull();
    assertThat(header(a, KafkaHandOff.FAMILY_HEADER)).isNotBlank();
    ConsumerRecord<String, byte[]> b =
        records.stream()
            .filter(r -> "ev-2".equals(header(r, KafkaHandOff.EVENT_ID_HEADER)))
            .findFirst()
            .orElseThrow();
    assertThat(b.key()).isEqualTo("222");
    assertThat(new String(b.value(), StandardCharsets.UTF_8)).isEqualTo(renamed);
    assertThat(header(b, KafkaHandOff.EVENT_TYPE_HEADER)).isEqualTo("profile.update.bio");
    assertThat(header(b, KafkaHandOff.ORIGINAL_TYPE_HEADER)).isEqualTo("ProfileBioUpdate");
  }

  @Test
  void keyFunctionAndTopicPerType_chooseKeyAndTopic() throws Exception {
    String other = broker.newTopic(1);
    try {
      WebhookConsumer consumer =
          edge(
              KafkaHandOff.builder(broker.bootstrapServers(), topic)
                  .key(event -> "k-" + event.id())
                  .topicForType(type -> type.equals("post.delete") ? other : null)
                  .build(),
              Deduplicator.inMemory());

      assertThat(
              answer(
                      consumer,
                      Events.activity(
                          "ev-3", "post.create", Map.of("user_id", "1"), null, Map.of()))
                  .status())
          .isEqualTo(200);
      assertThat(
              answer(
                      consumer,
                      Events.activity(
                          "ev-4", "post.delete", Map.of("user_id", "1"), null, Map.of()))
                  .status())
          .isEqualTo(200);

      assertThat(broker.readAll(topic)).extracting(ConsumerRecord::key).containsExactly("k-ev-3");
      assertThat(broker.readAll(other)).extracting(ConsumerRecord::key).containsExactly("k-ev-4");
    } finally {
      broker.deleteTopic(other);
    }
  }

  @Test
  void noEventToSend_completesAtOnce() throws Exception {
    try (KafkaHandOff handOff = KafkaHandOff.builder(unreachable(), topic).build()) {
      assertThat(handOff.store(List.of()).toCompletableFuture().get(1, TimeUnit.SECONDS)).isEmpty();
    }
  }

  @Test
  void legacyBatch_oneRecordPerEvent_keyedByForUserId() throws Exception {
    WebhookConsumer consumer = edge(Deduplicator.inMemory());

    WebhookResponse response =
        answer(consumer, Events.accountPostCreate("4242", "hello", "p1", "p2", "p3"));

    assertThat(response.status()).isEqualTo(200);
    List<ConsumerRecord<String, byte[]>> records = broker.readAll(topic);
    assertThat(records).hasSize(3);
    assertThat(records).extracting(ConsumerRecord::key).containsOnly("4242");
    assertThat(records)
        .extracting(r -> header(r, KafkaHandOff.FOR_USER_ID_HEADER))
        .containsOnly("4242");
    assertThat(records)
        .extracting(r -> header(r, KafkaHandOff.EVENT_ID_HEADER))
        .doesNotHaveDuplicates();
    // One partition for the user: the batch's order is kept.
    assertThat(records)
        .extracting(ConsumerRecord::partition)
        .containsOnly(records.get(0).partition());
    assertThat(records)
        .extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
        .allSatisfy(v -> assertThat(v).startsWith("{").doesNotContain("for_user_id"))
        .anySatisfy(v -> assertThat(v).contains("\"p1\""))
        .anySatisfy(v -> assertThat(v).contains("\"p3\""));
  }

  @Test
  void unreachableBroker_503WithRetryAfterWithinBudget_retryThroughReachableBrokerLandsOnce()
      throws Exception {
    Deduplicator shared = Deduplicator.inMemory();
    WebhookConsumer cut = edge(KafkaHandOff.builder(unreachable(), topic).build(), shared);
    String body = Events.activity("ev-5", "post.create", Map.of("user_id", "5"), null, Map.of());

    long start = System.nanoTime();
    WebhookResponse refused = answer(cut, body);
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertThat(refused.status()).isEqualTo(503);
    assertThat(refused.headers()).containsKey("Retry-After");
    assertThat(refused.bodyAsString()).contains("inbox_unavailable");
    assertThat(took).isLessThan(Duration.ofSeconds(8));

    // The claim was released: the platform's retry, reaching an edge whose broker answers, lands
    // once.
    WebhookConsumer reachable = edge(shared);
    WebhookResponse retry = answer(reachable, body);
    assertThat(retry.status()).isEqualTo(200);
    assertThat(retry.bodyAsString()).contains("accepted");
    assertThat(broker.readAll(topic))
        .extracting(r -> header(r, KafkaHandOff.EVENT_ID_HEADER))
        .containsExactly("ev-5");
  }

  @Test
  void platformCopy_oneRecord_answeredDuplicate() throws Exception {
    WebhookConsumer consumer = edge(Deduplicator.inMemory());
    String body = Events.activity("ev-6", "post.create", Map.of("user_id", "6"), null, Map.of());

    WebhookResponse first = answer(consumer, body);
    WebhookResponse copy = answer(consumer, body);

    assertThat(first.status()).isEqualTo(200);
    assertThat(copy.status()).isEqualTo(200);
    assertThat(copy.bodyAsString()).contains("duplicate");
    assertThat(broker.readAll(topic)).hasSize(1);
  }

  @Test
  void copyWhileTheFirstIsBeingSent_503InFlight() throws Exception {
    // A broker that never answers keeps the first delivery's send open for max.block.ms.
    WebhookConsumer consumer =
        edge(
            KafkaHandOff.builder(unreachable(), topic).maxBlock(Duration.ofSeconds(3)).build(),
            Deduplicator.inMemory());
    String body = Events.activity("ev-7", "post.create", Map.of("user_id", "7"), null, Map.of());

    CompletableFuture<WebhookResponse> first = deliver(consumer, body);
    WebhookResponse copy = answer(consumer, body);

    assertThat(first).isNotDone();
    assertThat(copy.status()).isEqualTo(503);
    assertThat(copy.bodyAsString()).contains("in_flight");
    assertThat(copy.headers()).containsKey("Retry-After");
    assertThat(first.get(15, TimeUnit.SECONDS).status()).isEqualTo(503);
  }

  @Test
  void meters_ackedSendsTimedPerRecord_nothingLeftInFlight() throws Exception {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    WebhookConsumer consumer =
        edge(
            KafkaHandOff.builder(broker.bootstrapServers(), topic).meterRegistry(meters).build(),
            Deduplicator.inMemory());

    answer(
        consumer, Events.activity("ev-m1", "post.create", Map.of("user_id", "1"), null, Map.of()));
    answer(
        consumer, Events.activity("ev-m2", "post.create", Map.of("user_id", "2"), null, Map.of()));

    assertThat(meters.get("webhook.kafka.send").tag("outcome", "acked").timer().count())
        .isEqualTo(2);
    assertThat(meters.get("webhook.kafka.send").tag("outcome", "timeout").timer().count()).isZero();
    assertThat(meters.get("webhook.kafka.in.flight").gauge().value()).isZero();
  }

  @Test
  void meters_unreachableBroker_sendTimedOut_nothingLeftInFlight() throws Exception {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    WebhookConsumer consumer =
        edge(
            KafkaHandOff.builder(unreachable(), topic)
                .maxBlock(Duration.ofSeconds(1))
                .meterRegistry(meters)
                .build(),
            Deduplicator.inMemory());

    WebhookResponse answer =
        answer(
            consumer,
            Events.activity("ev-m3", "post.create", Map.of("user_id", "3"), null, Map.of()));

    assertThat(answer.status()).isEqualTo(503);
    assertThat(meters.get("webhook.kafka.send").tag("outcome", "timeout").timer().count())
        .isEqualTo(1);
    assertThat(meters.get("webhook.kafka.in.flight").gauge().value()).isZero();
  }
}
