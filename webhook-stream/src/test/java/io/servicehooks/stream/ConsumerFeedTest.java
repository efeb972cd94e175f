package io.servicehooks.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.testkit.Events;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The hand-off between the reader and the consumer: bounded, in order, and a reader that found it
 * full waits for half of it to drain rather than waking for every line taken.
 */
final class ConsumerFeedTest {

  private static final String SECRET = "feed-test-secret";
  private static final int CAPACITY = 8;

  @Test
  void fullQueue_readerWaitsUntilHalfIsTaken_thenRefills_inOrder() throws Exception {
    Semaphore permits = new Semaphore(0);
    AtomicInteger entered = new AtomicInteger();
    List<String> handled = new CopyOnWriteArrayList<>();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .onAny(
                event -> {
                  entered.incrementAndGet();
                  if (!permits.tryAcquire(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("never released");
                  }
                  handled.add(event.id());
                })
            .build();
    ConsumerFeed feed =
        new ConsumerFeed(
            consumer,
            CAPACITY,
            connection -> false,
            (line, response, failure) -> {},
            StreamObservations.NONE);
    feed.start();
    int lines = 40;
    AtomicInteger put = new AtomicInteger();
    Thread reader =
        new Thread(
            () -> {
              try {
                for (int i = 0; i < lines; i++) {
                  ConsumerFeed.Line line = new ConsumerFeed.Line(event("e" + i), 0, 1);
                  if (!feed.offer(line)) {
                    feed.put(line);
                  }
                  put.incrementAndGet();
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "test-reader");
    reader.start();
    try {
      // One line in the listener, the queue full, the reader waiting with the next.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> entered.get() == 1 && reader.getState() == Thread.State.WAITING);
      int putBefore = put.get();
      int queued = putBefore - entered.get();
      assertThat(queued).isGreaterThan(CAPACITY / 2 + 1);

      // Taking lines while more than half stays queued does not wake the reader.
      int keepAboveHalf = queued - (CAPACITY / 2 + 1);
      permits.release(keepAboveHalf);
      await().atMost(Duration.ofSeconds(10)).until(() -> entered.get() == 1 + keepAboveHalf);
      await()
          .during(Duration.ofMillis(300))
          .atMost(Duration.ofSeconds(5))
          .until(() -> put.get() == putBefore);

      // The line that drains it to half does, and the reader fills the queue again.
      permits.release(1);
      await().atMost(Duration.ofSeconds(10)).until(() -> put.get() - entered.get() == CAPACITY);

      permits.release(lines);
      await().atMost(Duration.ofSeconds(20)).until(() -> handled.size() == lines);
      assertThat(handled).containsExactlyElementsOf(ids(lines));
    } finally {
      permits.release(lines);
      reader.join(10_000);
      assertThat(feed.stop(Duration.ofSeconds(10))).isEqualTo(-1);
      consumer.close();
    }
  }

  private static List<String> ids(int count) {
    return java.util.stream.IntStream.range(0, count).mapToObj(i -> "e" + i).toList();
  }

  private static byte[] event(String id) {
    return Events.activity(id, "post.create", Map.of("user_id", "2244994945"), null, Map.of())
        .getBytes(StandardCharsets.UTF_8);
  }
}
