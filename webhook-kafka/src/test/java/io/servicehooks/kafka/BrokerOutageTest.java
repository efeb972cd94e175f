package io.servicehooks.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.core.Deduplicator;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookResponse;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.TestSigner;
import io.servicehooks.testsupport.TestKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The brokers go away mid-stream and come back, for one edge and its one producer: the delivery
 * made while they are gone is answered 503 with {@code Retry-After} within the platform's budget,
 * nothing is acknowledged that the topic lacks, and the platform's retry once they are back is
 * acknowledged and lands once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
final class BrokerOutageTest {

  private static final String SECRET = "kafka-outage-secret";
  private static TcpRelay relay;
  private static TestKafka broker;

  @BeforeAll
  static void start() throws Exception {
    relay = new TcpRelay();
    // Clients learn the relay as the broker's address, so every connection goes through it.
    broker =
        TestKafka.start(Map.of("advertised.listeners", "EXTERNAL://localhost:" + relay.port()));
    String servers = broker.bootstrapServers();
    relay.target(Integer.parseInt(servers.substring(servers.lastIndexOf(':') + 1)));
  }

  @AfterAll
  static void stop() throws Exception {
    if (broker != null) {
      relay.restore();
      broker.close();
    }
    if (relay != null) {
      relay.close();
    }
  }

  private static WebhookResponse answer(WebhookConsumer consumer, String body) throws Exception {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    return consumer
        .handle(WebhookRequest.post(TestSigner.sign(SECRET, bytes), bytes))
        .get(15, TimeUnit.SECONDS);
  }

  @Test
  void brokerGone_503WithinBudget_retryAfterItIsBack_acknowledgedAndInTheTopicOnce()
      throws Exception {
    String topic = broker.newTopic(1);
    try (WebhookConsumer edge =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .inbox(KafkaHandOff.builder("localhost:" + relay.port(), topic).build())
            .deduplicator(Deduplicator.inMemory())
            .onAny(event -> {})
            .build()) {
      String before =
          Events.activity("ev-a", "post.create", Map.of("user_id", "1"), null, Map.of());
      String during =
          Events.activity("ev-b", "post.create", Map.of("user_id", "1"), null, Map.of());
      assertThat(answer(edge, before).status()).isEqualTo(200);

      relay.cut();
      long start = System.nanoTime();
      WebhookResponse refused = answer(edge, during);
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertThat(refused.status()).isEqualTo(503);
      assertThat(refused.headers()).containsKey("Retry-After");
      assertThat(took).isLessThan(Duration.ofSeconds(8));

      // Let the producer give up the refused record (its delivery time-out) before the brokers
      // return.
      Thread.sleep(2_000);
      relay.restore();
      WebhookResponse retry = answer(edge, during);
      assertThat(retry.status()).isEqualTo(200);
      assertThat(retry.bodyAsString()).contains("accepted");
      assertThat(broker.readAll(topic))
          .extracting(r -> idOf(r.headers().lastHeader(KafkaHandOff.EVENT_ID_HEADER)))
          .containsExactly("ev-a", "ev-b");
    } finally {
      relay.restore();
      broker.deleteTopic(topic);
    }
  }

  private static String idOf(Header h) {
    return new String(h.value(), StandardCharsets.UTF_8);
  }
}
