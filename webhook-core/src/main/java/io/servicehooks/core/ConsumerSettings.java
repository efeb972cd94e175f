package io.servicehooks.core;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link WebhookConsumer.Builder} collects, validated as each value arrives; the builder keeps
 * only the public names and their documentation. Consumer secrets are read by {@link
 * SecretListInput}. Read once, by {@link ConsumerWiring}.
 */
final class ConsumerSettings {

  // Logs under WebhookConsumer's name, the one logger users' log configuration names for the
  // whole consumer; the class that does the work is an implementation detail.
  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);

  List<String> secrets = List.of();
  int maxBodyBytes = WebhookConsumer.DEFAULT_MAX_BODY_BYTES;
  Deduplicator deduplicator;
  Duration dedupWindow = Deduplicator.DEFAULT_WINDOW;
  long dedupMaxEntries = Deduplicator.DEFAULT_MAX_ENTRIES;
  final List<Router.Route> routes = new ArrayList<>();
  final Map<String, String> aliases = new LinkedHashMap<>();
  ErrorHandler errorHandler =
      (event, error) ->
          log.error(
              "Listener failed for {} event {}",
              LogSafe.escape(event.type()),
              LogSafe.escape(event.id()),
              error);
  ObjectMapper mapper;
  MetricsBinder metricsBinder = MetricsBinder.NONE;
  // An io.micrometer.observation.ObservationRegistry, held untyped: the core runs without
  // micrometer-observation on the class path, and MicrometerObservations alone names its types.
  Object observationRegistry;
  Acknowledgement acknowledgement = WebhookConsumer.DEFAULT_ACKNOWLEDGEMENT;
  int asyncQueueCapacity = WebhookConsumer.DEFAULT_ASYNC_QUEUE_CAPACITY;
  int asyncThreads = WebhookConsumer.DEFAULT_ASYNC_THREADS;
  Duration drainTimeout = WebhookConsumer.DEFAULT_DRAIN_TIMEOUT;
  boolean listenersNonBlocking;
  Duration inFlightWait = WebhookConsumer.DEFAULT_IN_FLIGHT_WAIT;
  Duration queueingDeadline = WebhookConsumer.DEFAULT_QUEUEING_DEADLINE;
  LongSupplier nanoTime = System::nanoTime;
  Duration refusalLogInterval = WebhookConsumer.DEFAULT_REFUSAL_LOG_INTERVAL;
  LongSupplier refusalLogTicker = System::nanoTime;

  /** The wall clock a CRC answer's time is read on; tests set a fake one. */
  java.time.Clock wallClock = java.time.Clock.systemUTC();

  /**
   * The dedup gate's clock: when a lease is renewed, whether it certainly still ran, and when a
   * copy's in-flight wait runs out; tests move a fake one.
   */
  LongSupplier leaseTicker = System::nanoTime;

  final List<DeliveryObserver> observers = new ArrayList<>();
  EventInbox inbox;
  Duration inboxTimeout = WebhookConsumer.DEFAULT_INBOX_TIMEOUT;
  Duration dedupLease = Deduplicator.DEFAULT_LEASE;
  Duration dedupTimeout = WebhookConsumer.DEFAULT_DEDUP_TIMEOUT;
  boolean failOpen;
  boolean ignoreOwnEvents = true;
  ScheduledExecutorService dedupScheduler = DedupGate.sharedScheduler();

  /** The platform gives up on an answer after this: every wait must end well before it. */
  private static final Duration ANSWER_BUDGET = Duration.ofSeconds(10);

  /** The comma convenience: every argument split at commas, blank parts dropped. */
  void consumerSecretsSplittingCommas(String... secrets) {
    this.secrets = SecretListInput.splittingCommas(secrets);
  }

  /** Each element one whole secret: never split, so a secret may hold any character. */
  void consumerSecrets(List<String> secrets) {
    this.secrets = SecretListInput.whole(secrets);
  }

  void maxBodyBytes(int maxBodyBytes) {
    if (maxBodyBytes < 1) {
      throw new IllegalArgumentException("maxBodyBytes must be positive, was " + maxBodyBytes);
    }
    this.maxBodyBytes = maxBodyBytes;
  }

  void dedupWindow(Duration window) {
    Objects.requireNonNull(window, "window");
    if (window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("dedupWindow must be positive, was " + window);
    }
    this.dedupWindow = window;
  }

  void dedupMaxEntries(long maxEntries) {
    if (maxEntries < 1) {
      throw new IllegalArgumentException("dedupMaxEntries must be at least 1, was " + maxEntries);
    }
    this.dedupMaxEntries = maxEntries;
  }

  void on(String typePattern, WebhookListener listener) {
    Router.checkPattern(typePattern);
    routes.add(new Router.Route(typePattern.strip(), Objects.requireNonNull(listener, "listener")));
  }

  void alias(String received, String current) {
    if (received == null || received.isBlank() || current == null || current.isBlank()) {
      throw new IllegalArgumentException("alias names must not be blank");
    }
    aliases.put(received, current);
  }

  void asyncQueueCapacity(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("asyncQueueCapacity must be positive, was " + capacity);
    }
    this.asyncQueueCapacity = capacity;
  }

  void asyncThreads(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("asyncThreads must be positive, was " + threads);
    }
    this.asyncThreads = threads;
  }

  void drainTimeout(Duration drainTimeout) {
    Objects.requireNonNull(drainTimeout, "drainTimeout");
    if (drainTimeout.isNegative()) {
      throw new IllegalArgumentException("drainTimeout must not be negative, was " + drainTimeout);
    }
    this.drainTimeout = drainTimeout;
  }

  void inFlightWait(Duration wait) {
    Objects.requireNonNull(wait, "inFlightWait");
    if (wait.isNegative() || wait.isZero()) {
      throw new IllegalArgumentException("inFlightWait must be positive, was " + wait);
    }
    if (wait.compareTo(ANSWER_BUDGET) >= 0) {
      throw new IllegalArgumentException(
          "inFlightWait must be below the platform's 10 s answer budget, was " + wait);
    }
    this.inFlightWait = wait;
  }

  void dedupLease(Duration lease) {
    Objects.requireNonNull(lease, "dedupLease");
    if (lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("dedupLease must be positive, was " + lease);
    }
    this.dedupLease = lease;
  }

  void dedupTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "dedupTimeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("dedupTimeout must be positive, was " + timeout);
    }
    if (timeout.compareTo(ANSWER_BUDGET) >= 0) {
      throw new IllegalArgumentException(
          "dedupTimeout must be below the platform's 10 s answer budget, was " + timeout);
    }
    this.dedupTimeout = timeout;
  }

  void queueingDeadline(Duration deadline) {
    Objects.requireNonNull(deadline, "queueingDeadline");
    if (deadline.isNegative() || deadline.isZero()) {
      throw new IllegalArgumentException("queueingDeadline must be positive, was " + deadline);
    }
    this.queueingDeadline = deadline;
  }

  void refusalLogInterval(Duration interval) {
    Objects.requireNonNull(interval, "refusalLogInterval");
    if (interval.isNegative()) {
      throw new IllegalArgumentException(
          "refusalLogInterval must not be negative, was " + interval);
    }
    this.refusalLogInterval = interval;
  }

  void inboxTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "inboxTimeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("inboxTimeout must be positive, was " + timeout);
    }
    this.inboxTimeout = timeout;
  }

  /**
   * What {@code build()} checks: a consumer secret was given (short ones logged once), and durable
   * mode and an inbox go together: one without the other is a misconfiguration.
   */
  void checkComplete() {
    if (secrets.isEmpty()) {
      throw new IllegalStateException("consumerSecrets(...) is required");
    }
    SecretListInput.warnShort(secrets);
    checkInbox();
  }

  private void checkInbox() {
    if (acknowledgement == Acknowledgement.DURABLE && inbox == null) {
      throw new IllegalStateException("Acknowledgement.DURABLE requires inbox(...)");
    }
    if (inbox != null && acknowledgement != Acknowledgement.DURABLE) {
      throw new IllegalStateException(
          "inbox(...) requires Acknowledgement.DURABLE, but acknowledgement is " + acknowledgement);
    }
  }

  /** The store to use: the one given, or the in-memory default with the window and bound. */
  Deduplicator store() {
    return deduplicator != null
        ? deduplicator
        : Deduplicator.inMemory(dedupWindow, dedupMaxEntries);
  }

  ObjectMapper mapperOrDefault() {
    return mapper != null
        ? mapper
        : new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  }

  /** The routes, exact legacy names turned into current ones so they meet the events' types. */
  Router router(EventTypeNames names) {
    List<Router.Route> normalized = new ArrayList<>();
    for (Router.Route r : routes) {
      String p = r.pattern();
      normalized.add(p.contains("*") ? r : new Router.Route(names.normalize(p), r.listener()));
    }
    return new Router(normalized);
  }

  @Override
  public String toString() {
    return "ConsumerSettings[secrets=" + secrets.size() + "]";
  }
}
