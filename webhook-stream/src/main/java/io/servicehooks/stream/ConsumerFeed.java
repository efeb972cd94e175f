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
 *
 * <p>A reader that found the queue full waits until the consumer has taken half of it, not one
 * line: the consumer is the slower side whenever the queue fills, and waking the reader for every
 * line it takes would cost two context switches per line when both threads share a core. The reader
 * then refills half a queue in one go.
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
  private final int lowWater;

  /** The reader waits on this monitor for the queue to drain to {@link #lowWater}. */
  private final Object room = new Object();

  private volatile boolean readerWaiting;

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
    this.lowWater = capacity / 2;
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

  /**
   * Queues the line, waiting for room: once the queue is found full, until it has drained to half.
   */
  void put(Line line) throws InterruptedException {
    synchronized (room) {
      readerWaiting = true;
      try {
        while (queue.size() > lowWater && thread.isAlive()) {
          room.wait();
        }
      } finally {
        readerWaiting = false;
      }
    }
    queue.put(line);
  }

  /** Wakes a waiting reader once the queue has drained to {@link #lowWater}. */
  private void drained() {
    if (readerWaiting && queue.size() <= lowWater) {
      synchronized (room) {
        room.notifyAll();
      }
    }
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
    try {
      takeLines();
    } finally {
      synchronized (room) {
        room.notifyAll(); // a waiting reader must not wait for a thread that is gone
      }
    }
  }

  private void takeLines() {
    while (true) {
      Line line;
      try {
        line = queue.take();
      } catch (InterruptedException e) {
        return;
      }
      drained();
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
        answer = observations.event(line.connection(), consumer, line.bytes());
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
