package io.servicehooks.postgres;

import io.servicehooks.core.EventInbox;
import io.servicehooks.core.InboxOutcome;
import io.servicehooks.core.InboxProcessor;
import io.servicehooks.core.StoredEvent;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A durable inbox on PostgreSQL, shared by every instance of a consumer: the {@link EventInbox} of
 * {@link io.servicehooks.core.Acknowledgement#DURABLE}.
 *
 * <pre>{@code
 * PostgresInbox inbox = PostgresInbox.builder().dataSource(dataSource).createSchema(true).build();
 * WebhookConsumer consumer = WebhookConsumer.builder()
 *     .consumerSecrets(System.getenv("SERVICE_CONSUMER_SECRET"))
 *     .inbox(inbox)
 *     .on("post.create", event -> save(event))
 *     .build();
 * }</pre>
 *
 * <ul>
 *   <li><b>Storing</b>: concurrent deliveries are written together (group commit): a writer takes
 *       what is queued (at most {@link Builder#maxBatchRows} events; with a {@link
 *       Builder#commitWindow}, what arrives within it too) and stores them with one {@code INSERT
 *       ... ON CONFLICT (dedup_key) DO NOTHING} in one transaction. Each delivery's stage completes
 *       after that commit; if it fails, every delivery in it fails (answered 503).
 *   <li><b>Workers</b>: while this instance's workers have room, the rows it stores are inserted
 *       already leased to it and handed to its {@link Builder#workers} threads from memory after
 *       the commit (the hot path: no statement to take them). The rest are inserted pending; a
 *       poller takes due rows (up to twice the workers' count) with {@code FOR UPDATE SKIP LOCKED}
 *       and leases them ({@link Builder#lease}). The workers run the listeners outside any
 *       transaction; one marker thread marks the successful rows done, a batch per statement, and a
 *       failed row is due again after an exponential back-off with jitter, or dead after {@link
 *       Builder#maxAttempts}. Each instance holds an advisory lock for as long as its database
 *       session lives; the rows of an instance that is gone (its lock free) are due again within
 *       about 2 s, found by any other instance or by the restarted one. A row whose worker is stuck
 *       in a live instance is due again when its lease ends. Idle, or with the database
 *       unreachable, the poller backs off to {@link Builder#maxPollInterval}; it logs an outage
 *       once and resumes by itself. No order is promised between events.
 *   <li><b>Retention</b>: done rows are purged after {@link Builder#retention} (the dedup window)
 *       in batches; dead letters stay. See {@link InboxAdmin} for operating it.
 * </ul>
 *
 * Every statement has a time-out ({@link Builder#statementTimeout}); getting a connection is
 * bounded by the DataSource's own settings (set the pool's connection time-out below 5 s).
 */
// The facade and its public Builder, whose documented settings and defaults are the API; the
// work is done by GroupCommitWriter and GroupInsert (the store step), Workers, DueRows and
// RowProcessing (the process step), DoneMarker, OwnerLock and Orphans (crash recovery), and
// Maintenance.
public final class PostgresInbox implements EventInbox {

  private static final Logger log = LoggerFactory.getLogger(PostgresInbox.class);

  /** Default {@link Builder#schema}. */
  public static final String DEFAULT_SCHEMA = "servicehooks";

  /** Default {@link Builder#table}. */
  public static final String DEFAULT_TABLE = "webhook_inbox";

  /**
   * Default {@link Builder#commitWindow}: none. A writer stores what is queued at once; the groups
   * are what queued while the writers were committing, so they grow with the commit's latency.
   */
  public static final Duration DEFAULT_COMMIT_WINDOW = Duration.ZERO;

  /** Default {@link Builder#maxBatchRows}. */
  public static final int DEFAULT_MAX_BATCH_ROWS = 500;

  /** Default {@link Builder#writers}. */
  public static final int DEFAULT_WRITERS = 2;

  /** Default {@link Builder#maxQueuedDeliveries}. */
  public static final int DEFAULT_MAX_QUEUED_DELIVERIES = 10_000;

  /** Default {@link Builder#workers}. */
  public static final int DEFAULT_WORKERS = 4;

  /** Default {@link Builder#lease}: 60 s. */
  public static final Duration DEFAULT_LEASE = Duration.ofSeconds(60);

  /** Default {@link Builder#maxAttempts}. */
  public static final int DEFAULT_MAX_ATTEMPTS = 10;

  /** Default {@link Builder#backoff} base: 2 s. */
  public static final Duration DEFAULT_BACKOFF_BASE = Duration.ofSeconds(2);

  /** Default {@link Builder#backoff} maximum: 5 min. */
  public static final Duration DEFAULT_BACKOFF_MAX = Duration.ofMinutes(5);

  /** Default {@link Builder#retention}: 24 h, the platform's replay (and dedup) window. */
  public static final Duration DEFAULT_RETENTION = Duration.ofHours(24);

  /** Default {@link Builder#purgeBatchSize}. */
  public static final int DEFAULT_PURGE_BATCH_SIZE = 1000;

  /** Default {@link Builder#purgeInterval}: 5 min. */
  public static final Duration DEFAULT_PURGE_INTERVAL = Duration.ofMinutes(5);

  /** Default {@link Builder#pollInterval}: 200 ms. */
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(200);

  /** Default {@link Builder#maxPollInterval}: 1 s. */
  public static final Duration DEFAULT_MAX_POLL_INTERVAL = Duration.ofSeconds(1);

  /** Default {@link Builder#statementTimeout}: 5 s. */
  public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(5);

  /**
   * Default {@link Builder#gaugeInterval}: 5 s, a third of the 15 s scrape interval the docs
   * recommend, so every scrape reads values at most 5 s old.
   */
  public static final Duration DEFAULT_GAUGE_INTERVAL = Duration.ofSeconds(5);

  /** Default {@link Builder#drainTimeout}: 10 s. */
  public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(10);

  private final Settings settings;
  private final GroupCommitWriter writer;
  private final Workers workers;
  private final Maintenance maintenance;
  private final OwnerLock owner;
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();

  private final InboxHealth health = new InboxHealth();

  private PostgresInbox(Settings s) {
    this.settings = s;
    this.owner = new OwnerLock(s, health);
    this.workers = new Workers(s, health, owner);
    this.writer = new GroupCommitWriter(s, workers, health);
    this.maintenance = new Maintenance(s, health);
  }

  /** The settings this inbox was built with. */
  Settings settings() {
    return settings;
  }

  /** A builder; {@link Builder#dataSource} is the one required setting. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Queues the delivery's events for the next group commit; the stage completes after it. Fails at
   * once (without I/O) when the inbox is closed or {@link Builder#maxQueuedDeliveries} deliveries
   * already wait.
   */
  @Override
  public CompletionStage<List<InboxOutcome>> store(List<StoredEvent> events) {
    Objects.requireNonNull(events, "events");
    return writer.submit(events);
  }

  /**
   * Starts the poller, the workers, the owner lock (which, at once and every 2 s, makes due the
   * rows of instances that are gone) and the periodic purge.
   */
  @Override
  public void start(InboxProcessor processor) {
    Objects.requireNonNull(processor, "processor");
    if (closed.get()) {
      throw new IllegalStateException("inbox is closed");
    }
    if (!started.compareAndSet(false, true)) {
      throw new IllegalStateException("inbox already started");
    }
    workers.start(processor);
    owner.start(workers::wake);
    maintenance.start();
  }

  /** {@code false}: {@link #store} only queues; the writer threads do the I/O. */
  @Override
  public boolean mayBlock() {
    return false;
  }

  /**
   * Why this inbox cannot do its work now, or empty when it can: one of its threads (writer,
   * poller, marker, maintenance) is gone, one of their loops failed unexpectedly (an {@code
   * OutOfMemoryError}, say) within the last minute and started over, or it is closed. A database
   * outage is not a problem here: stores are answered 503 and the loops resume by themselves. Meant
   * for health checks: the standalone consumer's {@code /health} and the Spring {@code
   * webhookInbox} indicator report DOWN with it.
   */
  public Optional<String> problem() {
    return health.problem();
  }

  /** Operations on this inbox's tables, with its names, retention and time-outs. */
  public InboxAdmin admin() {
    return InboxAdmin.builder()
        .dataSource(settings.dataSource)
        .schema(settings.tables.schema)
        .table(settings.tables.table)
        .retention(settings.retention)
        .purgeBatchSize(settings.purgeBatchSize)
        .statementTimeout(settings.statementTimeout)
        .build();
  }

  /**
   * Stops taking events (later stores fail), writes what is queued, stops the poller, lets the
   * listeners run the rows already in memory and marks them done, all within {@link
   * Builder#drainTimeout}; rows not finished or not marked by then are due again when their lease
   * ends. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    health.closed();
    long deadline = System.nanoTime() + settings.drainTimeout.toNanos();
    writer.close(deadline);
    workers.close(deadline);
    owner.close();
    maintenance.close();
  }

  /** Tests: the marker thread, to stop it as a fault would. */
  Thread markerThread() {
    return workers.marker().thread();
  }

  /**
   * Tests: stops every thread at once and marks nothing, as a stopped process would; its owner
   * lock's session stays open until the test ends it ({@link #ownerLock()}), as a killed process's
   * would end.
   */
  void crash() {
    closed.set(true);
    owner.crash();
    workers.crash();
    writer.close(System.nanoTime());
    maintenance.close();
  }

  /** Tests: the owner lock. */
  OwnerLock ownerLock() {
    return owner;
  }

  @Override
  public String toString() {
    return "PostgresInbox[" + settings.tables + ", instance=" + settings.instance + "]";
  }

  static int seconds(Duration timeout) {
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (timeout.toMillis() + 999) / 1000));
  }

  static Duration positive(String what, Duration value) {
    Objects.requireNonNull(value, what);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(what + " must be positive, was " + value);
    }
    return value;
  }

  static int atLeastOne(String what, int value) {
    if (value < 1) {
      throw new IllegalArgumentException(what + " must be at least 1, was " + value);
    }
    return value;
  }

  /** What the builder collected; read by the inbox's parts. */
  /**
   * What a {@link Builder} was told, copied at {@link Builder#build()}: an inbox's settings never
   * change, however its builder is used afterwards (the builder writes a {@link Draft}).
   */
  static final class Settings {
    final DataSource dataSource;
    final Tables tables;
    final boolean createSchema;
    final Duration commitWindow;
    final int maxBatchRows;
    final int writers;
    final int maxQueuedDeliveries;
    final int workers;
    final Duration lease;
    final int maxAttempts;
    final Duration backoffBase;
    final Duration backoffMax;
    final Duration retention;
    final int purgeBatchSize;
    final Duration purgeInterval;
    final Duration pollInterval;
    final Duration maxPollInterval;
    final Duration statementTimeout;
    final Duration gaugeInterval;
    final Duration drainTimeout;
    final InboxMeters meters;
    final List<DeadLetterListener> deadLetterListeners;
    final String instance;

    Settings(Draft draft) {
      this.dataSource = draft.dataSource;
      this.tables = draft.tables;
      this.createSchema = draft.createSchema;
      this.commitWindow = draft.commitWindow;
      this.maxBatchRows = draft.maxBatchRows;
      this.writers = draft.writers;
      this.maxQueuedDeliveries = draft.maxQueuedDeliveries;
      this.workers = draft.workers;
      this.lease = draft.lease;
      this.maxAttempts = draft.maxAttempts;
      this.backoffBase = draft.backoffBase;
      this.backoffMax = draft.backoffMax;
      this.retention = draft.retention;
      this.purgeBatchSize = draft.purgeBatchSize;
      this.purgeInterval = draft.purgeInterval;
      this.pollInterval = draft.pollInterval;
      this.maxPollInterval = draft.maxPollInterval;
      this.statementTimeout = draft.statementTimeout;
      this.gaugeInterval = draft.gaugeInterval;
      this.drainTimeout = draft.drainTimeout;
      this.meters = draft.meters;
      this.deadLetterListeners = List.copyOf(draft.deadLetterListeners);
      this.instance = draft.instance;
    }

    /** The builder's mutable side, with the defaults; read once by the {@link Settings} copy. */
    static final class Draft {
      DataSource dataSource;
      Tables tables = new Tables(DEFAULT_SCHEMA, DEFAULT_TABLE);
      boolean createSchema;
      Duration commitWindow = DEFAULT_COMMIT_WINDOW;
      int maxBatchRows = DEFAULT_MAX_BATCH_ROWS;
      int writers = DEFAULT_WRITERS;
      int maxQueuedDeliveries = DEFAULT_MAX_QUEUED_DELIVERIES;
      int workers = DEFAULT_WORKERS;
      Duration lease = DEFAULT_LEASE;
      int maxAttempts = DEFAULT_MAX_ATTEMPTS;
      Duration backoffBase = DEFAULT_BACKOFF_BASE;
      Duration backoffMax = DEFAULT_BACKOFF_MAX;
      Duration retention = DEFAULT_RETENTION;
      int purgeBatchSize = DEFAULT_PURGE_BATCH_SIZE;
      Duration purgeInterval = DEFAULT_PURGE_INTERVAL;
      Duration pollInterval = DEFAULT_POLL_INTERVAL;
      Duration maxPollInterval = DEFAULT_MAX_POLL_INTERVAL;
      Duration statementTimeout = DEFAULT_STATEMENT_TIMEOUT;
      Duration gaugeInterval = DEFAULT_GAUGE_INTERVAL;
      Duration drainTimeout = DEFAULT_DRAIN_TIMEOUT;
      InboxMeters meters = InboxMeters.NONE;
      List<DeadLetterListener> deadLetterListeners = new java.util.ArrayList<>();
      // The owner token every lease carries: "<label>/<16 hex digits>", the label being the
      // instance name or pid@host; new per process, held by OwnerLock's session.
      String instance = owner(ManagementFactory.getRuntimeMXBean().getName()); // pid@host
    }

    int timeoutSeconds() {
      return seconds(statementTimeout);
    }

    /** Back-off before attempt {@code attempts + 1}: base doubled per attempt, capped, jittered. */
    long backoffMillis(int attempts, double random) {
      long base = backoffBase.toMillis();
      long max = backoffMax.toMillis();
      int shift = Math.min(Math.max(attempts - 1, 0), 30);
      long full = base > (max >> shift) ? max : Math.min(max, base << shift);
      // "Equal jitter": at least half the delay, so retries stay spread but never bunch at zero.
      return full / 2 + (long) (random * (full - full / 2));
    }

    static String owner(String label) {
      return label + "/" + String.format("%016x", ThreadLocalRandom.current().nextLong());
    }
  }

  /**
   * Configures a {@link PostgresInbox}. Every method validates its argument at once; {@link
   * #build()} checks that a DataSource was given and, with {@link #createSchema}, creates the
   * tables.
   */
  public static final class Builder {
    private final Settings.Draft s = new Settings.Draft();
    private String schema = DEFAULT_SCHEMA;
    private String table = DEFAULT_TABLE;

    private Builder() {}

    /**
     * Where the inbox lives: a pool (HikariCP, say) with at least {@link #writers} + 4 connections
     * (the writers, the poller, the marker, one for maintenance and failed attempts, and one the
     * inbox keeps for its life: the session that holds its owner lock). Its connection time-out
     * bounds how long a store waits for one; keep it below 5 s. Connections must be sessions of
     * their own (direct, or a pooler in session mode): the owner lock is a session's.
     */
    public Builder dataSource(DataSource dataSource) {
      s.dataSource = Objects.requireNonNull(dataSource, "dataSource");
      return this;
    }

    /** The schema (default {@value #DEFAULT_SCHEMA}); a plain lower-case identifier. */
    public Builder schema(String schema) {
      this.schema = Tables.checkName("schema", schema);
      return this;
    }

    /**
     * The inbox table (default {@value #DEFAULT_TABLE}); a plain lower-case identifier. Its indexes
     * and the version table are named after it.
     */
    public Builder table(String table) {
      this.table = Tables.checkName("table", table);
      return this;
    }

    /**
     * Whether {@link #build()} creates the schema and tables when missing (default {@code false}: a
     * DBA applies {@code db/migration/servicehooks/V1__inbox.sql}, see the module's README).
     */
    public Builder createSchema(boolean create) {
      s.createSchema = create;
      return this;
    }

    /**
     * How long a writer waits for more deliveries to share a commit (default zero: none). Without a
     * window the groups are what queues while the other writers commit, which is what a busy inbox
     * needs: a window adds its length to every answer, and with a bounded number of requests in
     * flight that caps the rate. A window of a millisecond or two makes groups larger when the rate
     * is moderate and commits are quick, for fewer commits per event where PostgreSQL's CPU, not
     * the commit's latency, is what runs out.
     */
    public Builder commitWindow(Duration window) {
      Objects.requireNonNull(window, "commitWindow");
      if (window.isNegative() || window.compareTo(Duration.ofSeconds(1)) > 0) {
        throw new IllegalArgumentException("commitWindow must be within 0..1 s, was " + window);
      }
      s.commitWindow = window;
      return this;
    }

    /** Most events in one commit (default {@value #DEFAULT_MAX_BATCH_ROWS}). */
    public Builder maxBatchRows(int rows) {
      s.maxBatchRows = atLeastOne("maxBatchRows", rows);
      return this;
    }

    /** Writer threads, each committing one group at a time (default {@value #DEFAULT_WRITERS}). */
    public Builder writers(int writers) {
      s.writers = atLeastOne("writers", writers);
      return this;
    }

    /**
     * How many deliveries may wait for a writer (default {@value #DEFAULT_MAX_QUEUED_DELIVERIES});
     * beyond that a store fails at once and the delivery is answered 503.
     */
    public Builder maxQueuedDeliveries(int deliveries) {
      s.maxQueuedDeliveries = atLeastOne("maxQueuedDeliveries", deliveries);
      return this;
    }

    /** Threads running listeners in this instance (default {@value #DEFAULT_WORKERS}). */
    public Builder workers(int workers) {
      s.workers = atLeastOne("workers", workers);
      return this;
    }

    /**
     * How long a taken row belongs to its instance (default 60 s). A look takes up to twice as many
     * rows as there are workers, so a row may wait for one listener before its own runs: keep the
     * lease above twice the slowest listener. Rows leased at insert wait in memory for at most
     * about a quarter of the lease at the listeners' average pace; a row that waited more than half
     * of it is not run but left to be taken again. When the lease ends, the row is due again and
     * may run twice.
     */
    public Builder lease(Duration lease) {
      s.lease = positive("lease", lease);
      return this;
    }

    /** Attempts before a row becomes a dead letter (default {@value #DEFAULT_MAX_ATTEMPTS}). */
    public Builder maxAttempts(int attempts) {
      s.maxAttempts = atLeastOne("maxAttempts", attempts);
      return this;
    }

    /**
     * Delay after a failed attempt: {@code base * 2^(attempt-1)}, at most {@code max}, then a
     * random point in its upper half (defaults 2 s and 5 min: about 18 minutes over ten attempts).
     */
    public Builder backoff(Duration base, Duration max) {
      positive("backoff base", base);
      positive("backoff max", max);
      if (max.compareTo(base) < 0) {
        throw new IllegalArgumentException(
            "backoff max must not be below base, was " + max + " < " + base);
      }
      s.backoffBase = base;
      s.backoffMax = max;
      return this;
    }

    /** How long done rows are kept, the dedup window (default 24 h). */
    public Builder retention(Duration retention) {
      s.retention = positive("retention", retention);
      return this;
    }

    /**
     * Rows deleted by the first purge statement of a run (default {@value
     * #DEFAULT_PURGE_BATCH_SIZE}), and the least: the batch grows while statements are quick (up to
     * 20,000 rows) and shrinks when they are slow, and a run goes on until it caught up.
     */
    public Builder purgeBatchSize(int rows) {
      s.purgeBatchSize = atLeastOne("purgeBatchSize", rows);
      return this;
    }

    /**
     * How often this instance purges once it caught up (default 5 min); a run that did not catch up
     * is followed by the next at once.
     */
    public Builder purgeInterval(Duration interval) {
      s.purgeInterval = positive("purgeInterval", interval);
      return this;
    }

    /**
     * How soon the poller looks again after finding nothing (default 200 ms); each empty look
     * doubles it up to {@link #maxPollInterval}. Rows stored by this instance wake it at once.
     */
    public Builder pollInterval(Duration interval) {
      s.pollInterval = positive("pollInterval", interval);
      return this;
    }

    /**
     * The longest idle wait between looks, and between tries while the database is unreachable
     * (default 1 s).
     */
    public Builder maxPollInterval(Duration interval) {
      s.maxPollInterval = positive("maxPollInterval", interval);
      return this;
    }

    /** Time-out of every statement (default 5 s; whole seconds, at least one). */
    public Builder statementTimeout(Duration timeout) {
      s.statementTimeout = positive("statementTimeout", timeout);
      return this;
    }

    /** How long {@link PostgresInbox#close()} waits for queued stores and running listeners. */
    public Builder drainTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "drainTimeout");
      if (timeout.isNegative()) {
        throw new IllegalArgumentException("drainTimeout must not be negative, was " + timeout);
      }
      s.drainTimeout = timeout;
      return this;
    }

    /**
     * Records {@code webhook.inbox.pending}, {@code webhook.inbox.orphaned} (rows taken back from
     * an instance that is gone, not run again yet), {@code webhook.inbox.dead}, {@code
     * webhook.inbox.lag} (seconds; gauges refreshed every {@link #gaugeInterval} by one query), the
     * timer {@code webhook.inbox.processing} (tag {@code outcome}: done, retry, dead) and the
     * counters {@code webhook.inbox.retries} and {@code webhook.inbox.dead.lettered}, all tagged
     * {@code table}. Without it nothing is recorded and Micrometer need not be present.
     */
    public Builder meterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
      Objects.requireNonNull(registry, "registry");
      s.meters = new MicrometerInboxMeters(registry);
      return this;
    }

    /**
     * Adds a listener called once each time an event becomes a dead letter (alerting, paging); see
     * {@link DeadLetterListener} for the thread it runs on.
     */
    public Builder onDeadLetter(DeadLetterListener listener) {
      s.deadLetterListeners.add(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    /**
     * A name for this instance (the pod's or host's name, e.g. {@code System.getenv("HOSTNAME")}),
     * shown where the inbox names its lease owner: the {@code leased_by} column, the owner table
     * and the log line that says an owner is gone. Each process adds a random part of its own, so
     * names need not be unique; unset, the label is {@code pid@host}. Crash recovery needs no name:
     * a process that is gone is known by its database session.
     */
    public Builder instanceName(String name) {
      Objects.requireNonNull(name, "instanceName");
      if (name.isBlank() || name.length() > 200) {
        throw new IllegalArgumentException(
            "instanceName must be 1 to 200 characters, was '" + name + "'");
      }
      s.instance = Settings.owner(name.strip());
      return this;
    }

    /**
     * How often the gauges' count query runs (default 5 s, a third of the 15 s scrape interval the
     * docs recommend), on a thread of its own.
     */
    public Builder gaugeInterval(Duration interval) {
      s.gaugeInterval = positive("gaugeInterval", interval);
      return this;
    }

    /**
     * Builds the inbox and starts its writers; with {@link #createSchema} it first creates what is
     * missing.
     *
     * @throws IllegalStateException if no DataSource was given, or the schema could not be created
     *     (the cause says why)
     */
    public PostgresInbox build() {
      if (s.dataSource == null) {
        throw new IllegalStateException("dataSource(...) is required");
      }
      s.tables = new Tables(schema, table);
      Settings settings = new Settings(s);
      if (settings.createSchema) {
        try (Connection c = settings.dataSource.getConnection()) {
          Migrations.apply(c, settings.tables, settings.timeoutSeconds());
        } catch (SQLException e) {
          // The driver's own exception is not the cause (its text may hold what a URL leaked);
          // a scrubbed copy keeps the SQL state, so callers can still tell a refused login from
          // a missing privilege.
          throw new IllegalStateException(
              "could not create the inbox schema "
                  + settings.tables
                  + ": "
                  + DatabaseMessages.describe(e, null),
              new SQLException(
                  DatabaseMessages.scrub(String.valueOf(e.getMessage()), null),
                  e.getSQLState(),
                  e.getErrorCode()));
        }
      }
      settings.meters.bind(settings);
      log.debug("Inbox {} built", settings.tables);
      return new PostgresInbox(settings);
    }
  }
}
