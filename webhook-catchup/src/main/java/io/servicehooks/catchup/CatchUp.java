package io.servicehooks.catchup;

import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookEvent;
import io.servicehooks.registration.WebhookClient;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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
// The facade and its public Builder; the work is done by LeaderLoop (each check, under the store's
// leadership), ReplayJobs (the job bookkeeping), DowntimeWindow (the window arithmetic) and
// RefusedDeliveries (answers 5xx as downtime), all called under this object's lock but the last.
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

  private static final Logger log = LoggerFactory.getLogger(CatchUp.class);

  private final HeartbeatStore store;
  private final Duration interval;
  private final Clock clock;
  private final boolean schedule;
  private final RefusedDeliveries refusals;
  private final ReplayJobs jobs;
  private final LeaderLoop loop;

  private ScheduledExecutorService scheduler; // guarded by this
  private boolean started; // guarded by this
  private boolean closed; // guarded by this

  private CatchUp(Builder b) {
    this.store = b.store;
    this.interval = b.interval;
    this.clock = b.clock;
    this.schedule = b.schedule;
    DowntimeWindow window = new DowntimeWindow(b.threshold, b.margin, b.reach);
    this.refusals = new RefusedDeliveries(window, this::now);
    this.jobs =
        new ReplayJobs(
            b.client,
            b.webhookId,
            b.webhookUrl,
            b.store,
            b.backoff,
            b.maxAttempts,
            b.jobTimeout,
            b.metrics);
    this.loop = new LeaderLoop(b.store, window, refusals, jobs, b.metrics, b.interval);
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
        .onAnswered(refusals::answered);
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
      loop.serving(now());
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
    loop.check(now());
  }

  /** A {@code replay_job_status} delivery; runs on the consumer's listener thread. */
  private synchronized void onJobStatus(WebhookEvent event) throws IOException {
    jobs.onJobStatus(event, this::now);
  }

  /** The window as the replay request carries it (see {@link DowntimeWindow#describe}). */
  static String window(CatchUpJob job) {
    return DowntimeWindow.describe(job);
  }

  private Instant now() {
    return clock.instant().truncatedTo(ChronoUnit.MILLIS);
  }

  static String describe(Exception e) {
    return e.getMessage() == null
        ? e.getClass().getSimpleName()
        : e.getClass().getSimpleName() + ": " + e.getMessage();
  }

  @Override
  public String toString() {
    return "CatchUp[webhook="
        + jobs.webhookLabel()
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
