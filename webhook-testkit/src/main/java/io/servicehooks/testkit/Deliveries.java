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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Signs and POSTs deliveries, retries them on the configured schedule, records every attempt and
 * keeps the log of delivered events that replay jobs draw from.
 */
final class Deliveries {

  static final String SIGNATURE_HEADER = "x-service-webhooks-signature";

  private static final Logger log = LoggerFactory.getLogger(Deliveries.class);

  /** An event as first delivered, kept for replay. */
  private record LoggedEvent(Instant time, byte[] body) {}

  /** One delivery: a body bound for one webhook, retried until it succeeds or the schedule ends. */
  private static final class Delivery {
    final long id;
    final Webhook webhook;
    final byte[] body;
    final String text;
    final String signature;
    final CompletableFuture<Boolean> done = new CompletableFuture<>();

    Delivery(long id, Webhook webhook, byte[] body, String signature) {
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
  private final List<LoggedEvent> eventLog = new ArrayList<>();
  private final Object idle = new Object();
  private int inFlight;

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
  }

  /** Remembers an event for later replay, stamped with the simulator's current time. */
  void log(byte[] body) {
    synchronized (eventLog) {
      eventLog.add(new LoggedEvent(clock.now(), body));
    }
  }

  /** Events first delivered in {@code [from, toExclusive)}, oldest first. */
  List<byte[]> loggedBetween(Instant from, Instant toExclusive) {
    List<byte[]> out = new ArrayList<>();
    synchronized (eventLog) {
      for (LoggedEvent e : eventLog) {
        if (!e.time().isBefore(from) && e.time().isBefore(toExclusive)) {
          out.add(e.body());
        }
      }
    }
    return out;
  }

  /**
   * Starts one delivery of {@code body} to {@code webhook}; the future completes with whether an
   * attempt got a 2xx answer (false once the retries are exhausted or the webhook stops receiving).
   */
  CompletableFuture<Boolean> start(Webhook webhook, byte[] body) {
    // The body is signed once per delivery: every retry sends identical bytes and signature.
    Delivery delivery = new Delivery(deliveryIds.incrementAndGet(), webhook, body, hmac.sign(body));
    begin();
    delivery.done.whenComplete((ok, e) -> end());
    attempt(delivery, 1);
    return delivery.done;
  }

  /**
   * Runs a replay job: redelivers the logged events of the window one after another, then sends the
   * {@code replay_job_status} delivery and finally calls {@code onFinished}.
   */
  void replay(
      Webhook webhook, Instant from, Instant toExclusive, String jobId, Runnable onFinished) {
    begin();
    CompletableFuture<Boolean> chain = CompletableFuture.completedFuture(true);
    for (byte[] body : loggedBetween(from, toExclusive)) {
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
                                : "Job completed; some events were not delivered")
                        .getBytes(StandardCharsets.UTF_8)))
        .whenComplete(
            (ok, e) -> {
              onFinished.run();
              end();
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
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (idle) {
      while (inFlight > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(idle, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
      return true;
    }
  }

  private void attempt(Delivery delivery, int number) {
    if (!delivery.webhook.receivesDeliveries()) {
      log.debug(
          "delivery {} to webhook {} dropped: webhook is invalid or deleted",
          delivery.id,
          delivery.webhook.id);
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
      delivery.done.complete(false);
      return;
    }
    client
        .sendAsync(request, HttpResponse.BodyHandlers.discarding())
        .whenComplete(
            (response, error) ->
                finish(
                    delivery,
                    number,
                    response == null ? 0 : response.statusCode(),
                    error == null ? null : describe(error),
                    startedAt));
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

  /** Starts the retries whose time has come on the simulator's clock, oldest first. */
  void runDueRetries() {
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

  private void retryOrGiveUp(Delivery delivery, int failedAttempt) {
    if (failedAttempt > retrySchedule.size()) {
      log.info(
          "delivery {} to webhook {} dropped after {} attempts",
          delivery.id,
          delivery.webhook.id,
          failedAttempt);
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
    log.debug(
        "delivery {} attempt {} to webhook {}: {}",
        delivery.id,
        number,
        delivery.webhook.id,
        failure == null ? "HTTP " + status : failure);
  }

  private String describe(Throwable error) {
    Throwable cause =
        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    if (cause instanceof HttpTimeoutException) {
      return "timed out after " + attemptTimeout.toMillis() + " ms";
    }
    if (cause instanceof ConnectException) {
      return "connection refused";
    }
    return cause.getClass().getSimpleName();
  }

  private void begin() {
    synchronized (idle) {
      inFlight++;
    }
  }

  private void end() {
    synchronized (idle) {
      inFlight--;
      idle.notifyAll();
    }
  }
}
