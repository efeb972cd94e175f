package io.servicehooks.benchmarks;

import io.servicehooks.core.Acknowledgement;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.kafka.KafkaSource;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link KafkaSource} as a contender of {@link KafkaSourceBench}: a {@link WebhookConsumer} in
 * durable mode whose inbox is the source (its defaults: four workers, dedup in memory, offsets
 * committed every second), one listener counting events, as the standalone consumer's {@code
 * DELIVERY=kafka} runs it. The clock stops when the listener ran for the last event; closing the
 * consumer (its final synchronous commit) is not timed.
 */
final class KafkaSourceContender implements KafkaSourceBench.Contender {

  static final String NAME = "KafkaSource (WebhookConsumer, durable)";

  @Override
  public String name() {
    return NAME;
  }

  /** The source contender. */
  static List<KafkaSourceBench.Contender> available() {
    return List.of(new KafkaSourceContender());
  }

  @Override
  public long drain(String servers, String topic, String group, long events) throws Exception {
    AtomicLong handled = new AtomicLong();
    AtomicLong last = new AtomicLong();
    CountDownLatch all = new CountDownLatch(1);
    KafkaSource source = KafkaSource.builder(servers, topic).groupId(group).build();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(Payloads.SECRET)
            .acknowledgement(Acknowledgement.DURABLE)
            .inbox(source)
            // The pool's posts are the subscribed user's own: run the listener for every one.
            .ignoreOwnEvents(false)
            .on(
                "post.create",
                event -> {
                  if (handled.incrementAndGet() == events) {
                    last.set(System.nanoTime());
                    all.countDown();
                  }
                })
            .build();
    try {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
      while (!all.await(10, TimeUnit.SECONDS)) {
        System.err.println("[source] KafkaSource: " + handled.get() + " of " + events + " so far");
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("KafkaSource: " + handled.get() + " in 10 min");
        }
      }
    } finally {
      consumer.close();
    }
    return last.get();
  }
}
