package io.servicehooks.testkit;

import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Signs and POSTs deliveries, retries them on the configured schedule (on a timer, or stepped with
 * the simulator's clock), records every attempt and runs replay jobs from the {@link
 * DeliveryHistory}. Attempts and retries stay in one class: the attempts list and the retry queue
 * are updated under one lock, so a test that sees a failed attempt knows its retry is already
 * waiting, and the stepped clock reads both.
 */
final class Deliveries {

  static final String SIGNATURE_HEADER = "x-service-webhooks-signature";

  private static final Logger log = LoggerFactory.getLogger(Deliveries.class);

  // Upper bound on waiting for attempts to answer while the clock is stepped: an attempt ends by
  // its own time-out, this only guards against a stuck HTTP client.
  private static final Duration ANSWER_SLACK = Duration.ofSeconds(5);

  /** One delivery: a body bound for one webhook, retried until it succeeds or the schedule ends. */
  private static final class Delivery {
    final long id;
    final RegisteredWebhook webhook;
    final byte[] body;
    final String text;
    final String signature;
    final CompletableFuture<Boolean> done = new CompletableFuture<>();

    Delivery(long id, RegisteredWebhook webhook, byte[] body, String signature) {
      this.id = id;
      this.webhook = webhook;
      this.body = body;
      this.text = new String(body, StandardCharsets.UTF_8);
      this.signature = signature;
    }
  }

  /** A retry waiting for the simulator's clock to reach {@code due}. */
  private record PendingRetry(Instant due, long order, Delivery delivery, int attempt) {}

  private final HttpClient client;
  private final Hmac hmac;
  private final SimClock clock;
  private final ScheduledExecutorService scheduler;
  private final List<Duration> retrySchedule;
  private final Duration attemptTimeout;
  private final boolean retriesOnSimulatorClock;

  private final AtomicLong deliveryIds = new AtomicLong();
  private final List<DeliveryAttempt> attempts = new ArrayList<>();
  // Guarded by attempts: an attempt that failed and its pending retry appear together, so a test
  // that sees the attempt can move the clock and know the retry is already waiting for it.
  private final PriorityQueue<PendingRetry> pendingRetries =
      new PriorityQueue<>(
          Comparator.comparing(PendingRetry::due).thenComparingLong(PendingRetry::order));
  private long retryOrder;
  private final DeliveryHistory history;
  private final AtomicLong dropped = new AtomicLong();
  private final InFlight deliveriesInFlight = new InFlight(); // deliveries and replay jobs
  private final InFlight attemptsInFlight = new InFlight(); // HTTP attempts awaiting their answer

  Deliveries(
      HttpClient client,
      Hmac hmac,
      SimClock clock,
      ScheduledExecutorService scheduler,
      List<Duration> retrySchedule,
      Duration attemptTimeout,
      boolean retriesOnSimulatorClock) {
    this.client = client;
    this.hmac = hmac;
    this.clock = clock;
    this.scheduler = scheduler;
    this.retrySchedule = List.copyOf(retrySchedule);
    this.attemptTimeout = attemptTimeout;
    this.retriesOnSimulatorClock = retriesOnSimulatorClock;
    this.history = new DeliveryHistory(clock);
  }

  /**
   * Adds an event produced now for {@code webhook} to its history, whether or not it will be
   * delivered, and forgets the events that fell out of the replay reach.
   */
  void remember(RegisteredWebhook webhook, byte[] body) {
    history.remember(webhook.id, body);
  }

  /** Forgets, for every webhook, the events produced before the replay reach. */
  void prune() {
    history.prune();
  }

  /** The history of {@code webhookId} within the replay reach, oldest first. */
  List<HistoryEntry> history(String webhookId) {
    return history.entries(webhookId);
  }

  /** How many deliveries were given up: retries exhausted, or the webhook stopped receiving. */
  long dropped() {
    return dropped.get();
  }

  /**
   * Starts one delivery of {@code body} to {@code webhook}; the future completes with whether an
   * attempt got a 2xx answer (false once the retries are exhausted or the webhook stops receiving).
   */
  CompletableFuture<Boolean> start(RegisteredWebhook webhook, byte[] body) {
    // The body is signed once per delivery: every retry sends identical bytes and signature.
    Delivery delivery = new Delivery(deliveryIds.incrementAndGet(), webhook, body, hmac.sign(body));
    deliveriesInFlight.begin();
    delivery.done.whenComplete((ok, e) -> deliveriesInFlight.end());
    attempt(delivery, 1);
    return delivery.done;
  }

  /**
   * Runs a replay job: redelivers the events produced for the webhook in the window one after
   * another, then sends the {@code replay_job_status} delivery and finally calls {@code
   * onFinished}. A job told to {@code fail} redelivers nothing and reports Incomplete.
   */
  void replay(
      RegisteredWebhook webhook,
      Instant from,
      Instant toExclusive,
      String jobId,
      boolean fail,
      Runnable onFinished) {
    deliveriesInFlight.begin();
    List<byte[]> window = fail ? List.of() : history.producedBetween(webhook.id, from, toExclusive);
    CompletableFuture<Boolean> chain = CompletableFuture.completedFuture(!fail);
    for (byte[] body : window) {
      chain = chain.thenCompose(allOk -> start(webhook, body).thenApply(ok -> allOk && ok));
    }
    chain
        .thenCompose(
            allOk ->
                start(
                    webhook,
                    Events.replayJobStatus(
                            webhook.id,
                            jobId,
                            allOk ? "Complete" : "Incomplete",
                            allOk
                                ? "Job completed successfully"
                                : fail
                                    ? "Job failed (simulated fault); no events were delivered"
                                    : "Job completed; some events were not delivered")
                        .getBytes(StandardCharsets.UTF_8)))
        .whenComplete(
            (ok, e) -> {
              onFinished.run();
              deliveriesInFlight.end();
            });
  }

  List<DeliveryAttempt> attempts() {
    synchronized (attempts) {
      return List.copyOf(attempts);
    }
  }

  /**
   * Waits until no delivery, retry or replay job is in flight; false when {@code timeout} passed
   * first.
   */
  boolean awaitIdle(Duration timeout) {
    return deliveriesInFlight.awaitNone(timeout);
  }

  private void attempt(Delivery delivery, int number) {
    if (!delivery.webhook.receivesDeliveries()) {
      log.info(
          "delivery {} (attempt {}) dropped: {}",
          delivery.id,
          number,
          delivery.webhook.whyNoDeliveries());
      dropped.incrementAndGet();
      delivery.done.complete(false);
      return;
    }
    Instant startedAt = clock.now();
    HttpRequest request;
    try {
      request =
          HttpRequest.newBuilder(URI.create(delivery.webhook.url))
              .timeout(attemptTimeout)
              .header("Content-Type", "application/json")
              .header(SIGNATURE_HEADER, delivery.signature)
              .POST(HttpRequest.BodyPublishers.ofByteArray(delivery.body))
              .build();
    } catch (IllegalArgumentException e) {
      record(delivery, number, 0, "invalid webhook url", startedAt);
      log.info(
          "delivery {} to webhook {} dropped: its URL is not one the simulator can call",
          delivery.id,
          delivery.webhook.id);
      dropped.incrementAndGet();
      delivery.done.complete(false);
      return;
    }
    attemptsInFlight.begin();
    try {
      CompletableFuture<HttpResponse<Void>> sent =
          client.sendAsync(request, HttpResponse.BodyHandlers.discarding());
      // The request time-out covers the headers only: an answer whose body stops part-way would
      // hold the attempt for ever. The attempt's time-out bounds the whole answer.
      CompletableFuture.delayedExecutor(attemptTimeout.toNanos(), TimeUnit.NANOSECONDS)
          .execute(() -> sent.cancel(true));
      sent.whenComplete(
          (response, error) -> {
            try {
              finish(
                  delivery,
                  number,
                  response == null ? 0 : response.statusCode(),
                  error == null ? null : describe(error),
                  startedAt);
            } finally {
              // After finish: a replay's next delivery, started by this outcome, is already
              // counted, so a stepped clock never sees a gap between the two.
              attemptsInFlight.end();
            }
          });
    } catch (RuntimeException e) {
      attemptsInFlight.end();
      throw e;
    }
  }

  private void finish(
      Delivery delivery, int number, int status, String failure, Instant startedAt) {
    boolean succeeded = status >= 200 && status < 300;
    boolean retryOnClock = !succeeded && retriesOnSimulatorClock && number <= retrySchedule.size();
    synchronized (attempts) {
      record(delivery, number, status, failure, startedAt);
      if (retryOnClock) {
        pendingRetries.add(
            new PendingRetry(
                clock.now().plus(retrySchedule.get(number - 1)),
                retryOrder++,
                delivery,
                number + 1));
      }
    }
    if (succeeded) {
      delivery.done.complete(true);
    } else if (!retryOnClock) {
      retryOrGiveUp(delivery, number);
    }
  }

  /**
   * Moves the simulator's clock forward by {@code by}. With retries on the simulator's clock, it
   * steps through the retries that come due on the way, in time order: the clock stops at each
   * retry's due time, the retry runs, and the next step waits for its answer (bounded by the
   * attempt time-out), so a failed retry's own next retry is scheduled from the right time and runs
   * in the same call if it also falls before the end. One call can thus run a whole retry schedule,
   * and a test can produce events over simulated minutes without sleeping.
   */
  void advance(Duration by) {
    if (!retriesOnSimulatorClock) {
      clock.advance(by);
      return;
    }
    Instant target = clock.now().plus(by);
    awaitAnswers();
    while (true) {
      Instant due;
      synchronized (attempts) {
        PendingRetry next = pendingRetries.peek();
        if (next == null || next.due().isAfter(target)) {
          break;
        }
        due = next.due();
      }
      moveClockTo(due);
      runDueRetries();
      awaitAnswers();
    }
    moveClockTo(target);
  }

  private void moveClockTo(Instant time) {
    Duration gap = Duration.between(clock.now(), time);
    if (gap.isNegative() || gap.isZero()) {
      return;
    }
    clock.advance(gap);
  }

  /** Starts the retries whose time has come on the simulator's clock, oldest first. */
  private void runDueRetries() {
    Instant now = clock.now();
    List<PendingRetry> due = new ArrayList<>();
    synchronized (attempts) {
      while (!pendingRetries.isEmpty() && !pendingRetries.peek().due().isAfter(now)) {
        due.add(pendingRetries.poll());
      }
    }
    for (PendingRetry retry : due) {
      attempt(retry.delivery(), retry.attempt());
    }
  }

  /** Waits until every attempt started so far has its outcome, or the bound passes. */
  private void awaitAnswers() {
    if (!attemptsInFlight.awaitNone(attemptTimeout.plus(ANSWER_SLACK))
        && !Thread.currentThread().isInterrupted()) {
      log.warn(
          "{} delivery attempts still unanswered; the clock moves on", attemptsInFlight.count());
    }
  }

  private void retryOrGiveUp(Delivery delivery, int failedAttempt) {
    if (failedAttempt > retrySchedule.size()) {
      log.info(
          "delivery {} to webhook {} dropped after {} attempts",
          delivery.id,
          delivery.webhook.id,
          failedAttempt);
      dropped.incrementAndGet();
      delivery.done.complete(false);
      return;
    }
    Duration wait = retrySchedule.get(failedAttempt - 1);
    try {
      scheduler.schedule(
          () -> attempt(delivery, failedAttempt + 1), wait.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      delivery.done.complete(false); // the simulator is closing
    }
  }

  private void record(
      Delivery delivery, int number, int status, String failure, Instant startedAt) {
    DeliveryAttempt attempt =
        new DeliveryAttempt(
            delivery.webhook.id, delivery.id, number, delivery.text, status, failure, startedAt);
    synchronized (attempts) {
      attempts.add(attempt);
    }
    if (attempt.succeeded()) {
      log.debug(
          "delivery {} attempt {} to webhook {}: HTTP {}",
          delivery.id,
          number,
          delivery.webhook.id,
          status);
    } else {
      // A failed attempt is what a rehearsal watches for: the retries and the drop that follow.
      log.info(
          "delivery {} attempt {} to webhook {} failed: {}",
          delivery.id,
          number,
          delivery.webhook.id,
          failure == null ? "HTTP " + status : failure);
    }
  }

  private String describe(Throwable error) {
    Throwable cause =
        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    if (cause instanceof HttpTimeoutException || cause instanceof CancellationException) {
      // cancelled only when the attempt's time-out passed
      return "timed out after " + attemptTimeout.toMillis() + " ms";
    }
    if (cause instanceof ConnectException) {
      return "connection refused";
    }
    return cause.getClass().getSimpleName();
  }
}
