package io.servicehooks.stream;

import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookResponse;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;

/**
 * The bounded hand-off between the reader thread and the consumer: one thread takes the lines in
 * order and hands each to {@link WebhookConsumer#handleFromOwnConnection}, with at most the
 * capacity in the consumer at once; when the queue is full the reader waits (back-pressure).
 */
final class ConsumerFeed {

  /** A line read, with when and on which connection. */
  record Line(byte[] bytes, long arrivedNanos, long connection) {}

  /** Hears the consumer's answer to each line handed over. */
  @FunctionalInterface
  interface Answered {
    void answered(Line line, WebhookResponse response, Throwable failure);
  }

  private static final Line STOP = new Line(new byte[0], 0, Long.MAX_VALUE);

  private final WebhookConsumer consumer;
  private final BlockingQueue<Line> queue;
  private final Semaphore inFlight;
  private final LongPredicate covered;
  private final Answered answered;
  private final StreamObservations observations;
  private final Thread thread;

  /**
   * @param covered whether the lines of a connection will come again with a backfill (they are then
   *     skipped)
   */
  ConsumerFeed(
      WebhookConsumer consumer,
      int capacity,
      LongPredicate covered,
      Answered answered,
      StreamObservations observations) {
    this.consumer = consumer;
    this.observations = observations;
    this.queue = new ArrayBlockingQueue<>(capacity);
    this.inFlight = new Semaphore(capacity);
    this.covered = covered;
    this.answered = answered;
    this.thread = new Thread(this::run, "servicehooks-stream-listener");
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** Queues the line if there is room at once. */
  boolean offer(Line line) {
    return queue.offer(line);
  }

  /** Queues the line, waiting for room. */
  void put(Line line) throws InterruptedException {
    queue.put(line);
  }

  /**
   * Lets the lines already queued reach the consumer for up to {@code timeout}, then stops the
   * thread. Returns how many lines were still queued when the time ran out, or -1 when all were
   * handed over.
   */
  int stop(Duration timeout) throws InterruptedException {
    if (!queue.offer(STOP, timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      thread.interrupt();
    }
    thread.join(timeout.toMillis());
    if (thread.isAlive()) {
      thread.interrupt();
      return queue.size();
    }
    return -1;
  }

  private void run() {
    while (true) {
      Line line;
      try {
        line = queue.take();
      } catch (InterruptedException e) {
        return;
      }
      if (line == STOP) {
        return;
      }
      if (covered.test(line.connection())) {
        continue; // a reconnect asks for it again
      }
      try {
        inFlight.acquire();
      } catch (InterruptedException e) {
        return;
      }
      CompletableFuture<WebhookResponse> answer;
      try {
        answer =
            observations.event(
                line.connection(), () -> consumer.handleFromOwnConnection(line.bytes()));
      } catch (RuntimeException e) {
        answer = CompletableFuture.failedFuture(e);
      }
      answer.whenComplete(
          (response, failure) -> {
            inFlight.release();
            answered.answered(line, response, failure);
          });
    }
  }
}
