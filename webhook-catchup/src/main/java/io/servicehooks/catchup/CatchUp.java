package io.servicehooks.catchup;

import com.fasterxml.jackson.databind.JsonNode;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookEvent;
import io.servicehooks.registration.ReplayJob;
import io.servicehooks.registration.WebhookApiException;
import io.servicehooks.registration.WebhookClient;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Heals a consumer's own downtime: it records a heartbeat ("this consumer was answering at T") in a
 * shared {@link HeartbeatStore} while the consumer serves, and when it starts, or sees a gap, one
 * instance among all that share the store asks the platform to replay the gap (from the last
 * heartbeat minus a safety margin to now, in whole minutes, at most the platform's 24-hour reach).
 * Events the consumer handled before the gap come again in the replay and are dropped by its
 * deduplicator, so give every instance the same shared deduplicator.
 *
 * <pre>{@code
 * CatchUp catchUp = CatchUp.builder()
 *     .client(client)
 *     .webhookUrl("https://hooks.example.org/service")
 *     .store(HeartbeatStore.file(Path.of("servicehooks-heartbeat")))
 *     .build();
 * WebhookConsumer consumer = catchUp.install(WebhookConsumer.builder()
 *         .consumerSecrets(System.getenv("SERVICE_CONSUMER_SECRET"))
 *         .on("post.create", event -> handle(event)))
 *     .build();
 * WebhookServer server = WebhookServer.builder(consumer).port(8080).build().start();
 * catchUp.start(); // once the consumer answers
 * }</pre>
 *
 * <h2>What it guarantees</h2>
 *
 * <ul>
 *   <li>The heartbeat means "answered 2xx": {@link #install} also observes the consumer's answers
 *       ({@link WebhookConsumer.Builder#onAnswered}), so while every delivery is refused (5xx: the
 *       dedup store or the inbox down) the heartbeat stops, and a refused period longer than the
 *       gap threshold is replayed once deliveries are answered again.
 *   <li>The job is recorded in the store before the platform is called, and its id as soon as the
 *       platform answers, so a restart finds a job in progress and waits for its {@code
 *       replay_job_status} instead of asking again for the same window.
 *   <li>Exactly one instance asks: the one holding the store's leadership, which first reads the
 *       store again.
 *   <li>The heartbeat does not move while a job is in progress; it moves to the end of the window
 *       when the job completes, so a crash before completion asks for the rest, not a new window.
 *   <li>{@code Incomplete}, {@code ReplayConflictError}, a 429 or 5xx, an unreachable platform, or
 *       no status within {@link Builder#jobTimeout} is retried for the same window with doubling
 *       back-off, at most {@link Builder#maxAttempts} times; another refusal ends the job at once.
 *       A job given up, or the part of a gap older than the replay reach, is logged at WARN with
 *       its bounds and counted.
 * </ul>
 *
 * <p>One INFO line per replay outcome names the job, the webhook and the window. Counters, with
 * {@link Builder#meterRegistry}: {@code webhook.catchup.replays.asked}, {@code
 * webhook.catchup.replays.completed}, {@code webhook.catchup.replays.failed} (attempts) and {@code
 * webhook.catchup.minutes.unhealable}.
 */
public final class CatchUp implements AutoCloseable {

  /** The event type of a {@code replay_job_status} delivery. */
  public static final String JOB_STATUS_TYPE = "replay.job_status";

  /** Default {@link Builder#heartbeatInterval}. */
  public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(30);

  /** Default {@link Builder#safetyMargin}. */
  public static final Duration DEFAULT_SAFETY_MARGIN = Duration.ofMinutes(2);

  /** Default {@link Builder#gapThreshold}. */
  public static final Duration DEFAULT_GAP_THRESHOLD = Duration.ofMinutes(2);

  /** Default {@link Builder#replayReach}: the platform replays the last 24 hours. */
  public static final Duration DEFAULT_REPLAY_REACH = Duration.ofHours(24);

  /** Default {@link Builder#retryBackoff}. */
  public static final Duration DEFAULT_RETRY_BACKOFF = Duration.ofMinutes(1);

  /** Default {@link Builder#maxAttempts}. */
  public static final int DEFAULT_MAX_ATTEMPTS = 5;

  /** Default {@link Builder#jobTimeout}. */
  public static final Duration DEFAULT_JOB_TIMEOUT = Duration.ofMinutes(30);

  // How long leadership outlives a leader that died holding it (Redis); the critical section is a
  // few store calls and one bounded API call.
  static final Duration LEADER_LEASE = Duration.ofSeconds(60);
  private static final Duration MAX_BACKOFF = Duration.ofHours(1);

  private static final Logger log = LoggerFactory.getLogger(CatchUp.class);

  private final WebhookClient client;
  private final String webhookUrl;
  private final HeartbeatStore store;
  private final Duration interval;
  private final Duration margin;
  private final Duration threshold;
  private final Duration reach;
  private final Duration backoff;
  private final int maxAttempts;
  private final Duration jobTimeout;
  private final Clock clock;
  private final CatchUpMetrics metrics;
  private final boolean schedule;

  // Statuses that arrived while the store's job had no id yet (the platform can be faster than the
  // write of the id): job id to state, looked at once the id is recorded.
  private final Map<String, String> earlyStatuses = new ConcurrentHashMap<>();

  private volatile String webhookId;

  // Epoch milliseconds of the first refused delivery (5xx) since the last one answered 2xx; 0 while
  // deliveries are answered. Written by delivery threads, read mostly.
  private final AtomicLong refusingSince = new AtomicLong();

  // The start of a period when every delivery was refused, longer than the gap threshold, that has
  // not been replayed yet; null when there is none.
  private final AtomicReference<Instant> refusalGap = new AtomicReference<>();

  private Instant servingSince; // guarded by this
  private Instant lastCheck; // guarded by this
  private ScheduledExecutorService scheduler; // guarded by this
  private boolean started; // guarded by this
  private boolean closed; // guarded by this

  private CatchUp(Builder b) {
    this.client = b.client;
    this.webhookId = b.webhookId;
    this.webhookUrl = b.webhookUrl;
    this.store = b.store;
    this.interval = b.interval;
    this.margin = b.margin;
    this.threshold = b.threshold;
    this.reach = b.reach;
    this.backoff = b.backoff;
    this.maxAttempts = b.maxAttempts;
    this.jobTimeout = b.jobTimeout;
    this.clock = b.clock;
    this.metrics = b.metrics;
    this.schedule = b.schedule;
  }

  /**
   * Starts configuring; {@link Builder#client}, the webhook and {@link Builder#store} are required.
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Adds the listener that closes replay jobs ({@value #JOB_STATUS_TYPE} events) to a consumer's
   * builder; every instance that may receive deliveries needs it.
   *
   * @return {@code consumer}, for chaining
   */
  public WebhookConsumer.Builder install(WebhookConsumer.Builder consumer) {
    return Objects.requireNonNull(consumer, "consumer")
        .on(JOB_STATUS_TYPE, this::onJobStatus)
        .onAnswered(this::answered);
  }

  /**
   * Every answer of the consumer's: the heartbeat means "answered 2xx", not "the process runs". A
   * delivery answered 5xx (the dedup store or the inbox down) was not taken, and when nothing but
   * refusals comes for longer than the gap threshold, that period is downtime: the heartbeat stops
   * moving and, once a delivery is answered 2xx again, the period is replayed.
   */
  private void answered(int status) {
    if (status >= 200 && status < 300) {
      if (refusingSince.get() != 0) {
        long since = refusingSince.getAndSet(0);
        if (since != 0) {
          Instant from = Instant.ofEpochMilli(since);
          Instant now = now();
          if (gap(from, now)) {
            refusalGap.accumulateAndGet(from, (a, b) -> a == null || b.isBefore(a) ? b : a);
            log.warn(
                "Catch-up: every delivery was refused from {} to {}; that period is replayed",
                from,
                now);
          }
        }
      }
    } else if (status >= 500 && refusingSince.get() == 0) {
      refusingSince.compareAndSet(0, now().toEpochMilli());
    }
  }

  /**
   * Starts the heartbeat; call it once the consumer answers deliveries, since a replay may follow
   * at once. The first check runs on the calling thread (bounded by the client's and the store's
   * time-outs), then one runs every {@link Builder#heartbeatInterval} on a daemon thread. Failures
   * are logged and retried at the next check, never thrown.
   *
   * @throws IllegalStateException when already started or closed
   */
  public void start() {
    synchronized (this) {
      if (closed || started) {
        throw new IllegalStateException(closed ? "catch-up is closed" : "catch-up already started");
      }
      started = true;
      servingSince = now();
    }
    check();
    if (schedule) {
      ScheduledExecutorService timer =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "servicehooks-catchup");
                t.setDaemon(true);
                return t;
              });
      synchronized (this) {
        if (closed) {
          timer.shutdownNow();
          return;
        }
        scheduler = timer;
      }
      timer.scheduleWithFixedDelay(
          this::check, interval.toNanos(), interval.toNanos(), TimeUnit.NANOSECONDS);
    }
  }

  /**
   * Stops the heartbeat and closes the store. A job in progress stays recorded: the next start, of
   * this or another instance, waits for it or retries it.
   */
  @Override
  public void close() {
    ScheduledExecutorService timer;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      timer = scheduler;
    }
    if (timer != null) {
      timer.shutdownNow();
    }
    try {
      store.close();
    } catch (IOException | RuntimeException e) {
      log.warn("Catch-up: closing the heartbeat store failed: {}", describe(e));
    }
  }

  /** One check: heartbeat, or catch up, or look after the job in progress. Never throws. */
  synchronized void check() {
    if (closed) {
      return;
    }
    Instant now = now();
    try {
      check(now);
    } catch (IOException | RuntimeException e) {
      log.warn("Catch-up check failed, trying again in {}: {}", interval, describe(e));
    } finally {
      lastCheck = now;
    }
  }

  private void check(Instant now) throws IOException {
    String id = webhookId();
    HeartbeatStore.Snapshot state = store.read();
    if (state.job() != null) {
      pending(id, state.job(), now);
      return;
    }
    long refusing = refusingSince.get();
    if (refusing != 0) {
      // Every delivery since then was refused: no heartbeat, and no replay yet (it would be
      // refused too); once deliveries are answered again the period is replayed.
      log.debug(
          "Catch-up: deliveries refused since {}; no heartbeat", Instant.ofEpochMilli(refusing));
      return;
    }
    Instant heartbeat = state.heartbeat();
    if (refusalGap.get() == null
        && (heartbeat == null || !gap(heartbeat, now) || answeredThrough(heartbeat, now))) {
      store.beat(now);
      return;
    }
    catchUp(id, now);
  }

  private boolean gap(Instant heartbeat, Instant now) {
    return now.isAfter(heartbeat.plus(threshold));
  }

  /**
   * Whether this instance itself answered from {@code heartbeat} to now without a pause (the
   * heartbeat lagged only because a job held it): no downtime to heal.
   */
  private boolean answeredThrough(Instant heartbeat, Instant now) {
    return servingSince != null
        && !servingSince.isAfter(heartbeat)
        && lastCheck != null
        && !gap(lastCheck, now);
  }

  private void catchUp(String id, Instant now) throws IOException {
    Optional<HeartbeatStore.Leadership> lead = store.tryLead(LEADER_LEASE);
    if (lead.isEmpty()) {
      log.debug("Catch-up: another instance leads; waiting for its job");
      return;
    }
    try (HeartbeatStore.Leadership held = lead.get()) {
      HeartbeatStore.Snapshot state = store.read(); // again, as leader: another may have done it
      if (state.job() != null) {
        return;
      }
      Instant heartbeat = state.heartbeat();
      Instant since = heartbeat != null && gap(heartbeat, now) ? heartbeat : null;
      Instant refused = refusalGap.get();
      if (refused != null && (since == null || refused.isBefore(since))) {
        since = refused;
      }
      if (since == null) {
        return;
      }
      Instant from = CatchUpJob.floorMinute(since.minus(margin));
      Instant reachable = CatchUpJob.ceilMinute(now.minus(reach));
      if (from.isBefore(reachable)) {
        long minutes = Duration.between(from, reachable).toMinutes();
        log.warn(
            "Catch-up cannot heal {} minutes of downtime for webhook {}, from {} to {}: the platform"
                + " replays only the last {}",
            minutes,
            id,
            from,
            reachable,
            reach);
        metrics.unhealable(minutes);
        from = reachable;
      }
      CatchUpJob job = new CatchUpJob(UUID.randomUUID().toString(), null, from, now, 1, now, null);
      store.putJob(job); // before anything else: a restart finds it and does not ask again
      Instant covered = since;
      refusalGap.getAndUpdate(g -> g != null && !g.isBefore(covered) ? null : g);
      ask(id, job, now);
    }
  }

  /** Asks the platform for {@code job}'s window; the caller leads. */
  private void ask(String id, CatchUpJob job, Instant now) throws IOException {
    ReplayJob answer;
    try {
      // to_date is the minute of `until`, which the platform replays whole: up to to().
      answer = client.replay(id, job.from(), job.until());
    } catch (WebhookApiException e) {
      metrics.failed();
      String reason =
          e.reasonName().orElse("HTTP " + e.status())
              + (e.status() == 429 ? " (rate limited)" : "");
      if (e.reason() == WebhookApiException.Reason.REPLAY_CONFLICT
          || e.status() == 429
          || e.status() >= 500) {
        retryLater(id, job, reason, now);
      } else {
        giveUp(id, job, "refused: " + reason);
      }
      return;
    } catch (IOException e) {
      metrics.failed();
      retryLater(id, job, "platform not reached (" + e.getClass().getSimpleName() + ")", now);
      return;
    }
    metrics.asked();
    CatchUpJob asked = job.withJobId(answer.jobId());
    store.putJob(asked);
    log.debug(
        "Catch-up asked replay job {} for webhook {} from {} to {} (attempt {})",
        asked.jobId(),
        id,
        asked.from(),
        asked.to(),
        asked.attempt());
    String early = earlyStatuses.remove(asked.jobId());
    if (early != null) {
      outcome(id, asked, early, now);
    }
  }

  /** A job is recorded: wait for it, or retry it when due or overdue. */
  private void pending(String id, CatchUpJob job, Instant now) throws IOException {
    if (job.underWay()) {
      if (job.jobId() != null) {
        String early = earlyStatuses.remove(job.jobId());
        if (early != null) {
          outcome(id, job, early, now);
          return;
        }
      }
      if (now.isBefore(job.askedAt().plus(jobTimeout))) {
        return; // its replay_job_status is still to come
      }
    } else if (now.isBefore(job.retryAt())) {
      return;
    }
    Optional<HeartbeatStore.Leadership> lead = store.tryLead(LEADER_LEASE);
    if (lead.isEmpty()) {
      return;
    }
    try (HeartbeatStore.Leadership held = lead.get()) {
      CatchUpJob current = store.read().job();
      if (current == null || !current.equals(job)) {
        return; // changed meanwhile: look again at the next check
      }
      if (job.underWay()) {
        metrics.failed();
        retryLater(
            id,
            job,
            job.jobId() == null
                ? "the instance asking stopped before the platform answered"
                : "no replay_job_status within " + jobTimeout,
            now);
        return;
      }
      CatchUpJob next = job.nextAttempt(now);
      store.putJob(next); // before the call, as the first time
      ask(id, next, now);
    }
  }

  /** A {@code replay_job_status} delivery; runs on the consumer's listener thread. */
  private synchronized void onJobStatus(WebhookEvent event) throws IOException {
    JsonNode status = event.payload();
    String jobId = status.path("job_id").asText("");
    String state = status.path("job_state").asText("");
    String forWebhook = status.path("webhook_id").asText("");
    String id = webhookId;
    if (jobId.isEmpty() || id != null && !forWebhook.isEmpty() && !forWebhook.equals(id)) {
      return;
    }
    CatchUpJob job = store.read().job(); // a failure answers 500: the platform sends it again
    if (job == null || !jobId.equals(job.jobId())) {
      if (job != null && job.jobId() == null && job.underWay()) {
        earlyStatuses.put(jobId, state);
      }
      log.debug("Catch-up: replay_job_status of job {} is not the catch-up job in progress", jobId);
      return;
    }
    outcome(id != null ? id : forWebhook, job, state, now());
  }

  private void outcome(String id, CatchUpJob job, String state, Instant now) throws IOException {
    if (state.equalsIgnoreCase("Complete")) {
      if (store.finishJob(job.key(), null, job.until())) {
        metrics.completed();
        log.info(
            "Catch-up replay job {} for webhook {} from {} to {}: Complete (attempt {})",
            job.jobId(),
            id,
            job.from(),
            job.to(),
            job.attempt());
      }
      return;
    }
    metrics.failed();
    retryLater(id, job, "job " + job.jobId() + " " + (state.isEmpty() ? "ended" : state), now);
  }

  /** Records the next attempt of the window after a failed one, or gives up after the last. */
  private void retryLater(String id, CatchUpJob job, String reason, Instant now)
      throws IOException {
    if (job.attempt() >= maxAttempts) {
      giveUp(id, job, reason);
      return;
    }
    Duration wait = backoff.multipliedBy(1L << Math.min(job.attempt() - 1, 20));
    if (wait.compareTo(MAX_BACKOFF) > 0) {
      wait = MAX_BACKOFF;
    }
    Instant at = now.plus(wait);
    if (store.finishJob(job.key(), job.retryingAt(at), null)) {
      log.info(
          "Catch-up replay for webhook {} from {} to {}: {}; attempt {} of {}, asking again at {}",
          id,
          job.from(),
          job.to(),
          reason,
          job.attempt(),
          maxAttempts,
          at);
    }
  }

  private void giveUp(String id, CatchUpJob job, String reason) throws IOException {
    if (store.finishJob(job.key(), null, job.until())) {
      log.warn(
          "Catch-up replay for webhook {} from {} to {}: {}; gave up after attempt {}: events of"
              + " this window that were not delivered are lost",
          id,
          job.from(),
          job.to(),
          reason,
          job.attempt());
    }
  }

  private String webhookId() throws IOException {
    String id = webhookId;
    if (id == null) {
      id = client.ensureRegistered(webhookUrl).id();
      webhookId = id;
    }
    return id;
  }

  private Instant now() {
    return clock.instant().truncatedTo(ChronoUnit.MILLIS);
  }

  private static String describe(Exception e) {
    return e.getMessage() == null
        ? e.getClass().getSimpleName()
        : e.getClass().getSimpleName() + ": " + e.getMessage();
  }

  @Override
  public String toString() {
    return "CatchUp[webhook="
        + (webhookId != null ? webhookId : webhookUrl)
        + ", store="
        + store
        + ", heartbeatInterval="
        + interval
        + "]";
  }

  /**
   * Configures a {@link CatchUp}. Every method validates its argument at once; {@link #build()}
   * checks that the client, the webhook and the store were given.
   */
  public static final class Builder {
    private WebhookClient client;
    private String webhookId;
    private String webhookUrl;
    private HeartbeatStore store;
    private Duration interval = DEFAULT_HEARTBEAT_INTERVAL;
    private Duration margin = DEFAULT_SAFETY_MARGIN;
    private Duration threshold = DEFAULT_GAP_THRESHOLD;
    private Duration reach = DEFAULT_REPLAY_REACH;
    private Duration backoff = DEFAULT_RETRY_BACKOFF;
    private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
    private Duration jobTimeout = DEFAULT_JOB_TIMEOUT;
    private Clock clock = Clock.systemUTC();
    private CatchUpMetrics metrics = CatchUpMetrics.NONE;
    private boolean schedule = true;

    private Builder() {}

    /**
     * The registration client that asks for replays; give it request time-outs below 10 seconds.
     */
    public Builder client(WebhookClient client) {
      this.client = Objects.requireNonNull(client, "client");
      return this;
    }

    /** The registered webhook to replay, by id (digits); or see {@link #webhookUrl}. */
    public Builder webhookId(String webhookId) {
      Objects.requireNonNull(webhookId, "webhookId");
      if (!webhookId.matches("[0-9]{1,40}")) {
        throw new IllegalArgumentException("webhookId must be digits, was '" + webhookId + "'");
      }
      this.webhookId = webhookId;
      return this;
    }

    /**
     * The consumer's public URL: at the first check the client makes sure it is registered ({@link
     * WebhookClient#ensureRegistered}) and its id is replayed.
     */
    public Builder webhookUrl(String webhookUrl) {
      Objects.requireNonNull(webhookUrl, "webhookUrl");
      if (webhookUrl.isBlank()) {
        throw new IllegalArgumentException("webhookUrl must not be blank");
      }
      this.webhookUrl = webhookUrl;
      return this;
    }

    /** Where the heartbeat and the job in progress live; {@link CatchUp#close()} closes it. */
    public Builder store(HeartbeatStore store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    /** How often the heartbeat is recorded and the job looked after; default 30 s. */
    public Builder heartbeatInterval(Duration interval) {
      this.interval = positive(interval, "heartbeatInterval");
      return this;
    }

    /**
     * How far before the last heartbeat the replay starts, for events in flight when the consumer
     * stopped and clocks that differ; default 2 minutes. Events seen twice are duplicates.
     */
    public Builder safetyMargin(Duration margin) {
      this.margin = positive(margin, "safetyMargin");
      return this;
    }

    /**
     * How old the last heartbeat must be for a gap; default 2 minutes. Shorter outages are covered
     * by the platform's own retries (about 4.5 minutes); keep it above the heartbeat interval.
     */
    public Builder gapThreshold(Duration threshold) {
      this.threshold = positive(threshold, "gapThreshold");
      return this;
    }

    /** How far back the platform replays; default 24 hours. Older downtime is reported. */
    public Builder replayReach(Duration reach) {
      this.reach = positive(reach, "replayReach");
      return this;
    }

    /** The wait before the first retry of a failed attempt, doubling after each; default 1 min. */
    public Builder retryBackoff(Duration backoff) {
      this.backoff = positive(backoff, "retryBackoff");
      return this;
    }

    /** How many times one window is asked for at most; default 5. */
    public Builder maxAttempts(int maxAttempts) {
      if (maxAttempts < 1 || maxAttempts > 20) {
        throw new IllegalArgumentException("maxAttempts must be 1..20 but was " + maxAttempts);
      }
      this.maxAttempts = maxAttempts;
      return this;
    }

    /**
     * How long a job may go without its {@code replay_job_status} (lost while the consumer was
     * down, or its asker stopped before the answer) before the window is asked for again; default
     * 30 minutes.
     */
    public Builder jobTimeout(Duration jobTimeout) {
      this.jobTimeout = positive(jobTimeout, "jobTimeout");
      return this;
    }

    /** The clock of heartbeats and windows; default UTC system clock. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Records the counters {@code webhook.catchup.replays.asked}, {@code ...completed}, {@code
     * ...failed} and {@code webhook.catchup.minutes.unhealable} in this registry. Without it
     * nothing is recorded and Micrometer need not be present.
     */
    public Builder meterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
      this.metrics = new MicrometerCatchUpMetrics(Objects.requireNonNull(registry, "registry"));
      return this;
    }

    /** Tests only: no background checks; the test calls {@link CatchUp#check()}. */
    Builder scheduled(boolean schedule) {
      this.schedule = schedule;
      return this;
    }

    /**
     * Builds the catch-up.
     *
     * @throws IllegalStateException when the client, the webhook (id or URL, not both) or the store
     *     is missing, or the gap threshold is not above the heartbeat interval
     */
    public CatchUp build() {
      if (client == null) {
        throw new IllegalStateException("client(...) is required");
      }
      if ((webhookId == null) == (webhookUrl == null)) {
        throw new IllegalStateException("give exactly one of webhookId(...) and webhookUrl(...)");
      }
      if (store == null) {
        throw new IllegalStateException("store(...) is required");
      }
      if (threshold.compareTo(interval) <= 0) {
        throw new IllegalStateException(
            "gapThreshold ("
                + threshold
                + ") must be longer than heartbeatInterval ("
                + interval
                + ")");
      }
      return new CatchUp(this);
    }

    private static Duration positive(Duration value, String name) {
      Objects.requireNonNull(value, name);
      if (value.isZero() || value.isNegative()) {
        throw new IllegalArgumentException(name + " must be positive but was " + value);
      }
      return value;
    }

    @Override
    public String toString() {
      return "CatchUp.Builder[webhook="
          + (webhookId != null ? webhookId : webhookUrl)
          + ", store="
          + store
          + "]";
    }
  }
}
