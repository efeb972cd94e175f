package io.servicehooks.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
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

  // Logs under WebhookConsumer's name, the one logger users' log configuration names for the
  // whole consumer; the class that does the work is an implementation detail.
  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);

  private final DedupGate gate;
  private final Dispatcher dispatcher;
  private final Metrics metrics;
  private final Answers answers;
  private final AtomicBoolean closed;
  private final Duration drainTimeout;
  private final ThreadPoolExecutor queue;
  private final ListenerThreads threads;

  AsynchronousAcknowledgement(
      DedupGate gate,
      Dispatcher dispatcher,
      Metrics metrics,
      Answers answers,
      AtomicBoolean closed,
      ListenerThreads threads,
      ConsumerSettings settings) {
    this.gate = gate;
    this.dispatcher = dispatcher;
    this.metrics = metrics;
    this.answers = answers;
    this.closed = closed;
    this.threads = threads;
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
      List<WebhookEvent> events, long start, ListenerThreads.Caller caller) {
    CompletableFuture<List<DedupGate.Claim>> claimed = gate.claimAll(events);
    if (claimed.isDone()) {
      return CompletableFuture.completedFuture(enqueue(events, claimed.join(), start));
    }
    // Queueing never blocks: whichever thread brought the store's answer may do it.
    return threads.resumeNonBlocking(
        claimed,
        claims -> CompletableFuture.completedFuture(enqueue(events, claims, start)),
        start);
  }

  private WebhookResponse enqueue(
      List<WebhookEvent> events, List<DedupGate.Claim> claims, long start) {
    Answers.Tally tally = new Answers.Tally();
    List<WebhookEvent> owned = new ArrayList<>();
    List<DedupGate.Claim> owners = new ArrayList<>();
    boolean unavailable = false;
    for (int i = 0; i < events.size(); i++) {
      WebhookEvent event = events.get(i);
      DedupGate.Claim claim = claims.get(i);
      switch (claim.kind()) {
        case OWNER:
          owned.add(event);
          owners.add(claim);
          break;
        case STORE_FAILED:
          metrics.event(event.type(), "dedup_unavailable");
          unavailable = true;
          break;
        case STILL_RUNNING:
          metrics.event(event.type(), "in_flight");
          tally.inFlight(event);
          break;
        case IN_FLIGHT:
          if (!claim.running().owned()) {
            // The original here is still asking the store: its outcome is not known yet.
            metrics.event(event.type(), "in_flight");
            tally.inFlight(event);
            break;
          }
          // The original was queued, so acknowledged already: so is its copy.
          metrics.event(event.type(), "duplicate");
          tally.duplicates.incrementAndGet();
          break;
        default:
          metrics.event(event.type(), "duplicate");
          tally.duplicates.incrementAndGet();
      }
    }
    if (unavailable) {
      gate.releaseAll(owners);
      return answers.record(Answers.dedupUnavailable(), start);
    }
    if (!owned.isEmpty()) {
      try {
        queue.execute(new QueuedDelivery(owned, owners));
        tally.handled.addAndGet(owned.size());
      } catch (RejectedExecutionException full) {
        gate.releaseAll(owners);
        String reason = closed.get() ? "shutting_down" : "queue_full";
        return answers.record(
            Answers.reject(503, "rejected", reason, "delivery queue is full, retry later"), start);
      }
    }
    return answers.record(tally.answer(), start);
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
      // Every claim ends in there; a store failure is logged, since the platform was answered
      // long ago.
      gate.runOwned(events, claims, dispatcher::dispatch);
    }

    void abandon() {
      gate.releaseAll(claims);
    }
  }
}
