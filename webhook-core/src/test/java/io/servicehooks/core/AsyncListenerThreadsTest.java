package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static io.servicehooks.core.Fixtures.envelope;
import static io.servicehooks.core.Fixtures.signed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The asynchronous mode's listener threads never keep the JVM alive after {@link
 * WebhookConsumer#close()}, even when a listener outlives the drain time-out.
 */
final class AsyncListenerThreadsTest {

  private static final String THREAD_PREFIX = "servicehooks-listener-";

  @Test
  void close_listenerIgnoresInterruptPastDrainTimeout_itsThreadIsDaemon() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Set<Thread> listenerThreads = ConcurrentHashMap.newKeySet();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .acknowledgement(Acknowledgement.ASYNCHRONOUS)
            .asyncThreads(1)
            .drainTimeout(Duration.ofMillis(100))
            .on(
                "post.create",
                e -> {
                  listenerThreads.add(Thread.currentThread());
                  entered.countDown();
                  awaitIgnoringInterrupts(release);
                })
            .build();
    assertThat(consumer.handle(signed(SECRET, envelope("stuck", "post.create"))).join().status())
        .isEqualTo(200);
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

    consumer.close();

    assertThat(listenerThreads).singleElement().satisfies(t -> assertThat(t.isDaemon()).isTrue());
    assertThat(Thread.getAllStackTraces().keySet())
        .filteredOn(t -> t.getName().startsWith(THREAD_PREFIX) && t.isAlive())
        .allSatisfy(t -> assertThat(t.isDaemon()).as(t.getName()).isTrue());
    release.countDown();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> listenerThreads.stream().noneMatch(Thread::isAlive));
  }

  @Test
  void close_queueDrained_listenerThreadsTerminate() {
    Set<Thread> listenerThreads = ConcurrentHashMap.newKeySet();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .acknowledgement(Acknowledgement.ASYNCHRONOUS)
            .asyncThreads(2)
            .on("post.create", e -> listenerThreads.add(Thread.currentThread()))
            .build();
    for (int i = 0; i < 10; i++) {
      consumer.handle(signed(SECRET, envelope("d" + i, "post.create"))).join();
    }
    consumer.close();
    assertThat(listenerThreads).isNotEmpty();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> listenerThreads.stream().noneMatch(Thread::isAlive));
  }

  /** A listener that swallows interrupts, bounded so the test cannot hang. */
  private static void awaitIgnoringInterrupts(CountDownLatch release) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (release.getCount() > 0 && System.nanoTime() < deadline) {
      try {
        release.await(100, TimeUnit.MILLISECONDS);
      } catch (InterruptedException ignored) {
        // the point of this listener: it does not stop when interrupted
      }
    }
  }
}
