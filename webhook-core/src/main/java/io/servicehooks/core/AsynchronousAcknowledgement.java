package io.servicehooks.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers a delivery once the events it owns are on a bounded in-memory queue, which the consumer's
 * own (daemon) threads drain through the {@link Dispatcher}. A full queue answers 503 and releases
 * the claims, so the platform's retry brings the events back. What this mode can lose is listed on
 * {@link Acknowledgement#ASYNCHRONOUS}.
 */
final class AsynchronousAcknowledgement implements AcknowledgementMode {

  // Logs under the consumer's name, as before the split: users' log configuration names it.
  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);

  private final DedupGate gate;
  private final Dispatcher dispatcher;
  private final Metrics metrics;
  private final Answers answers;
  private final AtomicBoolean closed;
  private final Duration drainTimeout;
  private final ThreadPoolExecutor queue;

  AsynchronousAcknowledgement(
      DedupGate gate,
      Dispatcher dispatcher,
      Metrics metrics,
      Answers answers,
      AtomicBoolean closed,
      ConsumerSettings settings) {
    this.gate = gate;
    this.dispatcher = dispatcher;
    this.metrics = metrics;
    this.answers = answers;
    this.closed = closed;
    this.drainTimeout = settings.drainTimeout;
    this.queue =
        new ThreadPoolExecutor(
            settings.asyncThreads,
            settings.asyncThreads,
            0L,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(settings.asyncQueueCapacity),
            threadFactory());
  }

  @Override
  public CompletableFuture<WebhookResponse> acknowledge(
      List<WebhookEvent> events, long start, Executor ignored) {
    Answers.Tally tally = new Answers.Tally();
    List<WebhookEvent> owned = new ArrayList<>();
    List<DedupGate.Claim> claims = new ArrayList<>();
    for (WebhookEvent event : events) {
      DedupGate.Claim claim = gate.claim(event, claims);
      switch (claim.kind()) {
        case OWNER:
          owned.add(event);
          claims.add(claim);
          break;
        case STORE_FAILED:
          metrics.event(event.type(), "failed");
          tally.failed.incrementAndGet();
          break;
        case RUNNING_ELSEWHERE:
          metrics.event(event.type(), "in_flight");
          tally.inFlight.incrementAndGet();
          break;
        default:
          // The original was (or is being) acknowledged already: so is its duplicate.
          metrics.event(event.type(), "duplicate");
          tally.duplicates.incrementAndGet();
      }
    }
    if (!owned.isEmpty()) {
      try {
        queue.execute(new QueuedDelivery(owned, claims));
        tally.handled.addAndGet(owned.size());
      } catch (RejectedExecutionException full) {
        gate.releaseAll(claims);
        String reason = closed.get() ? "shutting_down" : "queue_full";
        return answers.done(
            Answers.reject(503, "rejected", reason, "delivery queue is full, retry later"), start);
      }
    }
    return answers.done(tally.answer(), start);
  }

  /**
   * Lets the queue drain for up to the drain time-out; events still queued after that are dropped
   * and their dedup claims released, so a redelivery runs them.
   */
  @Override
  public void close() {
    queue.shutdown();
    try {
      if (!queue.awaitTermination(drainTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
        List<Runnable> dropped = queue.shutdownNow();
        dropped.forEach(r -> ((QueuedDelivery) r).abandon());
        log.warn(
            "Queue not drained within {}: dropped {} queued deliveries",
            drainTimeout,
            dropped.size());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      queue.shutdownNow().forEach(r -> ((QueuedDelivery) r).abandon());
    }
  }

  private static ThreadFactory threadFactory() {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "servicehooks-listener-" + n.incrementAndGet());
      // Daemon: a listener that outlives close()'s drain (or ignores its interrupt) must not keep
      // the JVM alive. What is still queued or running when the JVM exits is lost: see
      // Acknowledgement.ASYNCHRONOUS.
      t.setDaemon(true);
      return t;
    };
  }

  @Override
  public String toString() {
    return "AsynchronousAcknowledgement[queued=" + queue.getQueue().size() + "]";
  }

  /** A delivery's owned events waiting on the queue. */
  private final class QueuedDelivery implements Runnable {
    private final List<WebhookEvent> events;
    private final List<DedupGate.Claim> claims;

    QueuedDelivery(List<WebhookEvent> events, List<DedupGate.Claim> claims) {
      this.events = events;
      this.claims = claims;
    }

    @Override
    public void run() {
      try {
        gate.runOwned(events, claims, dispatcher::dispatch);
      } catch (RuntimeException storeFailure) {
        // Every claim ended; the platform was answered long ago, so the log is all that is left.
        log.error("Dedup store failed after a queued delivery ran", storeFailure);
      }
    }

    void abandon() {
      gate.releaseAll(claims);
    }
  }
}
