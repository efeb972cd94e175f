package io.servicehooks.stream;

import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookResponse;
import io.servicehooks.registration.WebhookApiException;
import io.servicehooks.registration.WebhookClient;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Receives the platform's activity stream ({@code GET /2/activity/stream}) into a {@link
 * WebhookConsumer}: the way in that needs no public URL, because the application opens the
 * connection itself (like Slack's Socket Mode). Each line of the stream becomes a {@code
 * WebhookEvent} that goes through the consumer exactly as a webhook POST does, through {@link
 * WebhookConsumer#handleFromOwnConnection}: type names, dedup (a webhook copy and a stream copy of
 * one event run once), listeners, the error handler, metrics and the acknowledgement mode.
 *
 * <pre>{@code
 * WebhookConsumer consumer = WebhookConsumer.builder()
 *     .consumerSecrets(System.getenv("SERVICE_CONSUMER_SECRET"))
 *     .on("post.create", event -> System.out.println(event.payload().path("text")))
 *     .build();
 * WebhookClient client = WebhookClient.builder()
 *     .baseUrl(URI.create("https://api.example.com"))
 *     .bearerToken(System.getenv("SERVICE_BEARER_TOKEN"))
 *     .build();
 * ActivityStream stream = ActivityStream.builder(consumer, client).build().start();
 * // ... on shutdown:
 * stream.close();
 * consumer.close();
 * }</pre>
 *
 * <h2>Taking events</h2>
 *
 * A reader thread reads the lines into a bounded hand-off ({@link Builder#handOffCapacity}); one
 * thread hands them to the consumer in order. When the hand-off is full the reader stops reading,
 * so the platform's TCP send buffer fills up (back-pressure); nothing is dropped. An event counts
 * as taken once the consumer answered it 2xx: in synchronous mode after its listeners ran, in
 * asynchronous mode once queued, in durable mode once the inbox stored it. A listener that threw
 * (answered 500) was heard by the error handler and is not retried by the stream (in durable mode
 * the inbox retries it). An event the consumer could not take (503: the dedup store or the inbox
 * did not answer, its queue is full) ends the connection; the stream reconnects asking the platform
 * for the minutes since that event again, so nothing is lost within the backfill reach.
 *
 * <h2>Reconnecting (the platform's rules)</h2>
 *
 * At once after a connection that delivered data drops, after an error object on the stream such as
 * {@code operational-disconnect}, and after 20 s ({@link Builder#stallTimeout}) without a complete
 * line (the keep-alive newline is one; bytes that never end a line are not), which counts as a dead
 * connection. After a failed connect: network errors wait 250 ms more per attempt, up to 16 s; HTTP
 * errors 5 s, doubling, up to 320 s; 429 one minute, doubling, and at least until {@code
 * x-rate-limit-reset} when the platform sends it; an event not taken 1 s, doubling, up to 16 s.
 * Every wait gets up to 10% of jitter on top. 401 and 403 do not heal by retrying: the stream stops
 * with one ERROR line naming which step was refused and why ({@link #refusal()}), {@link
 * #healthy()} turns false and {@link #awaitStopped} returns. One INFO line per connect, one WARN
 * line when an outage starts and one INFO line when it ends; not a line per attempt. The client's
 * request time-out bounds each connect's answer whole (the token fetch and a refused connect's
 * error body included): an answer it cuts short is a failed connect like any other. The platform's
 * text in a log line (error objects, refusal bodies) is escaped and cut at 300 characters.
 *
 * <h2>Backfill</h2>
 *
 * Each reconnect asks {@code backfill_minutes} = the minutes since the last byte received (or since
 * the first event not taken), rounded up, at most {@link Builder#backfillMinutes} (default and
 * platform maximum 5). The first connect after {@link #start()} asks the whole setting, since a
 * restarted process does not know its gap; events it handled before are absorbed by dedup when the
 * dedup store (Redis) or the inbox outlives the process. A longer gap is one WARN line with its
 * bounds and counts in {@code webhook.stream.minutes.unrecovered}; only a webhook replay (24 h)
 * brings such events back.
 *
 * <h2>Redundant connections</h2>
 *
 * The platform's advice for hot failover is two consumers each holding a stream: every event then
 * arrives twice, and a dedup store shared by both (Redis, or one durable inbox) makes it run once.
 *
 * <h2>Meters</h2>
 *
 * With {@link Builder#meterRegistry}: {@code webhook.stream.connected} (gauge, 1 or 0), {@code
 * webhook.stream.reconnects} tagged {@code cause} ({@code network}, {@code http}, {@code
 * rate_limited}, {@code stalled}, {@code disconnect_message}, and {@code not_taken} for a reconnect
 * the consumer asked for), {@code webhook.stream.events}, {@code webhook.stream.backfill.minutes}
 * (a summary of the minutes each connect asked) and {@code webhook.stream.minutes.unrecovered}.
 *
 * <h2>Observations</h2>
 *
 * With {@link Builder#observationRegistry}: a {@code servicehooks.stream.event} observation per
 * event line handed to the consumer, outcome {@code taken}, {@code refused}, {@code failed} or
 * {@code not_taken}; the consumer's {@code servicehooks.delivery} for the line is its child.
 *
 * <h2>Inside</h2>
 *
 * This class is the connection's state machine (connect, read, end, wait, reconnect; the stall
 * check; close), one piece because its transitions read and write the same guarded state (the
 * state, the open body, why it is ending, the pending wait). Its collaborators each do one job:
 * {@code Backoff} (the platform's waits), {@code Backfill} (the gap and what to ask again), {@code
 * StreamOutage} (healthy and the outage lines), {@code LineSplitter} and {@code StreamLine} (bytes
 * to lines to events or error objects), {@code ConsumerFeed} (the bounded queue and the listener
 * thread) and {@code StreamMessages} (the words of the log lines).
 */
public final class ActivityStream implements AutoCloseable {

  /** The platform's largest {@code backfill_minutes}, and the default of the setting. */
  public static final int MAX_BACKFILL_MINUTES = 5;

  /**
   * No complete line for this long, not even a keep-alive newline, means the connection is dead
   * (bytes that never end a line do not count).
   */
  public static final Duration STALL_TIMEOUT = Duration.ofSeconds(20);

  /** {@link #healthy()} stays true for this long after the stream went down. */
  public static final Duration HEALTH_GRACE = Duration.ofSeconds(60);

  /** What a backfill of 0 minutes would lose; the refusal of 0 says it. */
  static final String BACKFILL_ZERO_LOSES =
      "0 would lose every event the consumer could not take, with the lines read after it, and"
          + " every event sent while the stream reconnects: nothing would ask for them again";

  /** Default {@link Builder#handOffCapacity}. */
  public static final int DEFAULT_HAND_OFF_CAPACITY = 1_000;

  /** How long {@link #close()} lets the lines already read reach the consumer. */
  public static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(10);

  /** The {@code cause} tag values of {@code webhook.stream.reconnects}. */
  static final List<String> RECONNECT_CAUSES =
      List.of("network", "http", "rate_limited", "stalled", "disconnect_message", "not_taken");

  private static final Logger log = LoggerFactory.getLogger(ActivityStream.class);

  /** Where the stream is. */
  public enum State {
    /** Built, not started. */
    NEW,
    /** Opening a connection, or waiting to. */
    CONNECTING,
    /** A connection is open. */
    CONNECTED,
    /** The platform refused the token (401/403); the stream stopped. */
    REFUSED,
    /** {@link #close()} was called. */
    CLOSED
  }

  /** Why a connection ended, or a connect failed. */
  enum Cause {
    DROP("network"),
    NETWORK("network"),
    HTTP("http"),
    RATE_LIMITED("rate_limited"),
    STALLED("stalled"),
    DISCONNECT_MESSAGE("disconnect_message"),
    TOO_MANY_CONNECTIONS("disconnect_message"),
    NOT_TAKEN("not_taken"),
    CLOSED("closed"),
    /** Not an ending: an error object that was logged and needs nothing more. */
    IGNORED("ignored");

    final String tag;

    Cause(String tag) {
      this.tag = tag;
    }
  }

  /** The scheduled start of a reconnect, told apart from the stall check (for tests). */
  @FunctionalInterface
  interface Reconnect extends Runnable {}

  private final WebhookConsumer consumer;
  private final WebhookClient client;
  private final int backfillSetting;
  private final boolean webhookCatchUp;
  private final StreamClock clock;
  private final boolean ownClock;
  private final Backoff backoff;
  private final StreamMetrics metrics;
  private final ConsumerFeed feed;
  private final int maxLineBytes;
  private final Duration stallTimeout;
  private final ExecutorService reader;
  // Counted down once the stream stopped for good: refused, or closed.
  private final CountDownLatch stopped = new CountDownLatch(1);

  private final Object lock = new Object();
  // All guarded by lock.
  private State state = State.NEW;
  private long connection; // the number of the current (or last) connection
  private InputStream open; // the current connection's body, to end it from other threads
  private Cause ending; // why the current connection is being ended from outside the reader
  private final Backfill backfill;
  private final StreamOutage outage = new StreamOutage();
  private String refusal;
  private StreamClock.Cancellable pending; // the scheduled reconnect or stall check
  private boolean progressSeen; // the current connection delivered a byte
  private int barrenDrops; // connections in a row that dropped before their first byte

  // Read by the stall check; written by the reader.
  private volatile long progressNanos;
  private volatile boolean paused;

  private ActivityStream(Builder b) {
    this.consumer = b.consumer;
    this.client = b.client;
    this.backfillSetting = b.backfillMinutes;
    this.webhookCatchUp = b.webhookCatchUp;
    this.ownClock = b.clock == null;
    this.clock = b.clock != null ? b.clock : StreamClock.system();
    this.backoff = new Backoff(b.random);
    this.metrics = b.metrics;
    this.backfill = new Backfill(b.backfillMinutes, b.webhookCatchUp, b.metrics);
    this.feed =
        new ConsumerFeed(consumer, b.handOffCapacity, this::covered, this::taken, b.observations);
    this.maxLineBytes = consumer.maxBodyBytes();
    this.stallTimeout = b.stallTimeout;
    this.reader =
        Executors.newSingleThreadExecutor(
            r -> {
              // Not a daemon: a started stream keeps the JVM alive, as a server does, until
              // close() or a refusal shuts this executor down.
              return new Thread(r, "servicehooks-stream-reader");
            });
  }

  /**
   * A builder for a stream into {@code consumer}, opened with {@code client}'s platform address and
   * bearer token (given, or fetched with the API key and secret).
   */
  public static Builder builder(WebhookConsumer consumer, WebhookClient client) {
    return new Builder(consumer, client);
  }

  /**
   * Opens the stream on a thread of its own and returns at once; connection problems are handled by
   * reconnecting and show in the log, the meters and {@link #healthy()}. That thread is not a
   * daemon: like a server, a started stream keeps the JVM running until {@link #close()} (from a
   * shutdown hook, say) or until the platform refuses the credentials.
   *
   * @return this stream
   * @throws IllegalStateException when started before or closed
   */
  public ActivityStream start() {
    synchronized (lock) {
      if (state != State.NEW) {
        throw new IllegalStateException("the stream was started before (" + state + ")");
      }
      state = State.CONNECTING;
      outage.down(clock.nanoTime());
    }
    feed.start();
    submitAttempt();
    return this;
  }

  /** Where the stream is now. */
  public State state() {
    synchronized (lock) {
      return state;
    }
  }

  /**
   * Whether the stream works: false once the platform refused the token, after {@link #close()},
   * and while it has been down (not connected) for {@link #HEALTH_GRACE} or longer.
   */
  public boolean healthy() {
    synchronized (lock) {
      switch (state) {
        case CONNECTED:
          return true;
        case REFUSED:
        case CLOSED:
          return false;
        default:
          return clock.nanoTime() - outage.downSinceNanos() < HEALTH_GRACE.toNanos();
      }
    }
  }

  /**
   * Why the platform refused the stream (401/403), when it did: which call was refused (the token
   * request with the API key and secret, or the stream with the bearer token), its status and
   * problem, and what to check. The same text as the ERROR line; never a secret.
   */
  public Optional<String> refusal() {
    synchronized (lock) {
      return Optional.ofNullable(refusal);
    }
  }

  /**
   * Waits until the stream stopped for good, for at most {@code timeout}: the platform refused the
   * credentials ({@link State#REFUSED}; {@link #refusal()} says why) or {@link #close()} finished.
   * A started stream keeps the JVM alive by itself (its reader thread is not a daemon) until it is
   * closed or refused, so a {@code main} may simply return after {@link #start()}; one that wants
   * to act on a refusal (an exit code, say) waits here in a loop.
   *
   * @param timeout the longest wait; zero or negative only looks
   * @return true when the stream stopped for good, false when the time ran out first
   * @throws InterruptedException when the waiting thread is interrupted
   */
  public boolean awaitStopped(Duration timeout) throws InterruptedException {
    Objects.requireNonNull(timeout, "timeout");
    return stopped.await(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
  }

  /** Tests only: the clock reading of the last byte received. */
  long lastByteNanos() {
    synchronized (lock) {
      return backfill.lastByteNanos();
    }
  }

  /**
   * Stops: ends the connection and any wait to reconnect, lets the lines already read reach the
   * consumer for up to {@link #DRAIN_TIMEOUT}, and stops the stream's threads. The consumer is not
   * closed: it belongs to the caller (close it after the stream). Lines not handed over in time are
   * asked again by the next start's backfill. Idempotent.
   */
  @Override
  public void close() {
    InputStream body;
    boolean started;
    synchronized (lock) {
      if (state == State.CLOSED) {
        return;
      }
      started = state != State.NEW;
      state = State.CLOSED;
      ending = Cause.CLOSED;
      body = open;
      if (pending != null) {
        pending.cancel();
      }
    }
    metrics.connected(false);
    closeQuietly(body);
    reader.shutdownNow();
    if (started) {
      try {
        int left = feed.stop(DRAIN_TIMEOUT);
        if (left >= 0) {
          log.warn(
              "Activity stream closed with {} lines not yet handed to the consumer; the next"
                  + " start's backfill asks for them again",
              left);
        }
        reader.awaitTermination(DRAIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (ownClock) {
      clock.shutdown();
    }
    log.info("Activity stream closed");
    stopped.countDown();
  }

  // ---- connecting ----

  private void submitAttempt() {
    try {
      reader.execute(this::attempt);
    } catch (RejectedExecutionException closing) {
      // close() ran meanwhile
    }
  }

  private void reconnectAfter(Duration wait) {
    if (wait.isZero()) {
      submitAttempt();
      return;
    }
    synchronized (lock) {
      if (state == State.CLOSED) {
        return;
      }
      pending = clock.schedule(wait, (Reconnect) this::submitAttempt);
    }
  }

  /** One connect, and the reading of what it opened, on the reader thread. */
  private void attempt() {
    int minutes;
    long number;
    long askedFrom;
    synchronized (lock) {
      if (state != State.CONNECTING) {
        return;
      }
      minutes = backfill.minutesToAsk(clock.nanoTime());
      askedFrom = backfill.askFrom();
      number = ++connection;
      ending = null;
      outage.attempt();
    }
    HttpResponse<InputStream> response;
    try {
      response = client.openActivityStream(minutes);
    } catch (WebhookApiException e) {
      // The token itself could not be had (POST /oauth2/token).
      String problem = StreamMessages.problem(e.body());
      if (e.status() == 401 || e.status() == 403) {
        refuse(StreamMessages.refusedToken(e.status(), problem));
      } else if (e.status() == 429) {
        failed(
            Cause.RATE_LIMITED,
            "token request answered HTTP 429" + problem,
            e.rateLimitReset()
                .map(reset -> Duration.between(clock.now(), reset))
                .filter(until -> !until.isNegative())
                .orElse(null));
      } else {
        failed(Cause.HTTP, "token request answered HTTP " + e.status() + problem, null);
      }
      return;
    } catch (IOException e) {
      failed(Cause.NETWORK, StreamMessages.describe(e), null);
      return;
    } catch (RuntimeException e) {
      failed(Cause.NETWORK, StreamMessages.describe(e), null);
      return;
    }
    int status = response.statusCode();
    if (status == 200) {
      read(response.body(), number, minutes, askedFrom);
      return;
    }
    String problem = StreamMessages.problem(StreamMessages.readBounded(response.body()));
    if (status == 401 || status == 403) {
      refuse(StreamMessages.refusedStream(status, problem));
    } else if (status == 429) {
      failed(
          Cause.RATE_LIMITED,
          "HTTP 429" + problem,
          StreamMessages.untilReset(response, clock.now()));
    } else {
      failed(Cause.HTTP, "HTTP " + status + problem, null);
    }
  }

  private void refuse(String line) {
    synchronized (lock) {
      if (state == State.CLOSED) {
        return;
      }
      state = State.REFUSED;
      refusal = line;
    }
    metrics.connected(false);
    log.error("Activity stream refused, not retrying: {}", line);
    // Runs on the reader, whose task ends right after: nothing is left to read, so the JVM may
    // exit.
    reader.shutdown();
    stopped.countDown();
  }

  /** A connect that failed: one WARN when this starts an outage, then the platform's wait. */
  private void failed(Cause cause, String what, Duration untilReset) {
    Duration wait =
        switch (cause) {
          case RATE_LIMITED -> backoff.rateLimited(untilReset);
          case HTTP -> backoff.http();
          default -> backoff.network();
        };
    synchronized (lock) {
      if (state != State.CONNECTING) {
        return;
      }
      outage.failed(what, wait);
    }
    metrics.reconnect(cause.tag);
    reconnectAfter(wait);
  }

  // ---- reading ----

  private void read(InputStream body, long number, int minutes, long askedFrom) {
    long resumeFrom;
    boolean missed;
    synchronized (lock) {
      if (state != State.CONNECTING) {
        closeQuietly(body);
        return;
      }
      state = State.CONNECTED;
      open = body;
      resumeFrom = askedFrom;
      long now = clock.nanoTime();
      // An event the consumer refused while this connect was under way, older than what it asked
      // again: end this connection at once and ask from that event.
      missed = backfill.connected(askedFrom, now);
      if (missed) {
        ending = Cause.NOT_TAKEN;
      }
      outage.connected();
      progressNanos = now;
      paused = false;
      pending = clock.schedule(stallTimeout, () -> checkStall(number));
    }
    metrics.connected(true);
    metrics.backfill(minutes);
    log.info("Activity stream connected to {} (backfill_minutes={})", client.baseUrl(), minutes);
    backfill.reportGap(resumeFrom, minutes, clock.nanoTime(), clock::now);
    StreamOutage.Ended ended;
    synchronized (lock) {
      ended = outage.end(clock.nanoTime());
    }
    if (ended != null) {
      ended.log();
    }
    if (missed) {
      closeQuietly(body);
    }
    Cause cause = readLines(body, number);
    boolean dataSeen;
    synchronized (lock) {
      open = null;
      if (pending != null) {
        pending.cancel();
      }
      if (ending != null) {
        cause = ending;
      }
      if (state == State.CLOSED || cause == Cause.CLOSED) {
        closeQuietly(body);
        return;
      }
      dataSeen = progressSeen;
      barrenDrops = dataSeen || cause != Cause.DROP ? 0 : barrenDrops + 1;
      state = State.CONNECTING;
      outage.down(clock.nanoTime());
    }
    closeQuietly(body);
    metrics.connected(false);
    Duration wait =
        switch (cause) {
          case NOT_TAKEN -> backoff.notTaken();
          case TOO_MANY_CONNECTIONS -> backoff.http();
          // At once after a drop; but a second connection in a row that closes before its first
          // byte is a failing connect, not a drop, so a server that accepts and closes is not
          // hammered.
          case DROP -> dataSeen || barrenDrops == 1 ? Duration.ZERO : backoff.network();
          default -> Duration.ZERO;
        };
    synchronized (lock) {
      outage.failed(StreamMessages.describeEnd(cause, stallTimeout), wait);
    }
    metrics.reconnect(cause.tag);
    reconnectAfter(wait);
  }

  /** Reads until the connection ends; returns why it ended (unless ended from outside). */
  private Cause readLines(InputStream body, long number) {
    synchronized (lock) {
      progressSeen = false;
    }
    byte[] buffer = new byte[8192];
    LineSplitter lines =
        new LineSplitter(maxLineBytes, () -> consumer.adapterSupport().payloadTooLarge());
    try {
      while (true) {
        int n = body.read(buffer);
        if (n < 0) {
          return Cause.DROP;
        }
        long now = clock.nanoTime();
        synchronized (lock) {
          backfill.byteReceived(now);
          if (!progressSeen && n > 0) {
            progressSeen = true;
            backoff.reset();
          }
          if (ending != null) {
            return ending;
          }
        }
        // Progress is a complete line (the keep-alive newline is one), not a byte: a connection
        // that trickles bytes without ever ending a line is as dead as a silent one.
        long ended = lines.completed();
        Cause stop = lines.feed(buffer, n, line -> line(line, now, number));
        if (lines.completed() != ended) {
          progressNanos = Math.max(progressNanos, now);
        }
        if (stop != null) {
          return stop;
        }
      }
    } catch (IOException e) {
      synchronized (lock) {
        if (ending != null) {
          return ending;
        }
      }
      return Cause.DROP;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Cause.CLOSED;
    }
  }

  /** One line: a keep-alive, an error object, or an event for the hand-off (may block). */
  private Cause line(byte[] bytes, long arrived, long number) throws InterruptedException {
    StreamLine line = StreamLine.of(bytes);
    if (line.event() == null) {
      return line.end();
    }
    metrics.event();
    ConsumerFeed.Line item = new ConsumerFeed.Line(line.event(), arrived, number);
    if (!feed.offer(item)) {
      // Full: stop reading until the listeners catch up; the platform's buffer fills meanwhile.
      paused = true;
      try {
        feed.put(item);
      } finally {
        progressNanos = clock.nanoTime();
        paused = false;
      }
    }
    return null;
  }

  private void checkStall(long number) {
    InputStream body;
    synchronized (lock) {
      if (connection != number || state != State.CONNECTED) {
        return;
      }
      long idle = clock.nanoTime() - progressNanos;
      if (paused || idle < stallTimeout.toNanos()) {
        Duration next = paused ? stallTimeout : stallTimeout.minusNanos(idle);
        pending = clock.schedule(next, () -> checkStall(number));
        return;
      }
      ending = Cause.STALLED;
      body = open;
    }
    closeQuietly(body);
  }

  // ---- handing events to the consumer ----

  /** Whether a connection's lines will come again with a backfill (the hand-off skips them). */
  private boolean covered(long connectionNumber) {
    synchronized (lock) {
      return backfill.covered(connectionNumber);
    }
  }

  private void taken(ConsumerFeed.Line line, WebhookResponse response, Throwable failure) {
    if (failure == null && response.status() != 503) {
      // 2xx taken; 400/413 refused and logged by the consumer; 500 heard by the error handler.
      if (response.status() < 300) {
        backoff.resetNotTaken();
      }
      return;
    }
    InputStream body = null;
    synchronized (lock) {
      if (state == State.CLOSED) {
        return;
      }
      backfill.notTaken(line.arrivedNanos(), line.connection(), connection);
      if (state == State.CONNECTED && ending == null) {
        ending = Cause.NOT_TAKEN;
        body = open;
      }
      // Otherwise between connections: the next connect's backfill reaches back to this event.
    }
    if (body != null) {
      log.warn(
          "Activity stream: the consumer could not take an event ({}); reconnecting to ask for it"
              + " again",
          failure != null
              ? StreamMessages.describe(failure)
              : StreamMessages.safe(response.bodyAsString()));
      closeQuietly(body);
    }
  }

  // ---- helpers ----

  private static void closeQuietly(InputStream body) {
    if (body == null) {
      return;
    }
    try {
      body.close();
    } catch (IOException | RuntimeException ignored) {
      // ending it is all that matters
    }
  }

  @Override
  public String toString() {
    synchronized (lock) {
      return "ActivityStream["
          + client.baseUrl()
          + ", state="
          + state
          + ", backfillMinutes="
          + backfillSetting
          + "]";
    }
  }

  /**
   * Configures an {@link ActivityStream}. Every method validates its argument at once; the consumer
   * and the client are given to {@link ActivityStream#builder}.
   */
  public static final class Builder {
    private final WebhookConsumer consumer;
    private final WebhookClient client;
    private int backfillMinutes = MAX_BACKFILL_MINUTES;
    private int handOffCapacity = DEFAULT_HAND_OFF_CAPACITY;
    private Duration stallTimeout = STALL_TIMEOUT;
    private boolean webhookCatchUp;
    private StreamMetrics metrics = StreamMetrics.NONE;
    private StreamObservations observations = StreamObservations.NONE;
    private StreamClock clock;
    private DoubleSupplier random = () -> ThreadLocalRandom.current().nextDouble();

    private Builder(WebhookConsumer consumer, WebhookClient client) {
      this.consumer = Objects.requireNonNull(consumer, "consumer");
      this.client = Objects.requireNonNull(client, "client");
    }

    /**
     * The most minutes a reconnect asks again ({@code backfill_minutes}), 1 to 5 (default 5, the
     * platform's maximum). 0 is refused: the stream recovers an event the consumer could not take,
     * and the lines read after it, only by asking for them again on the next connect.
     */
    public Builder backfillMinutes(int minutes) {
      if (minutes < 1 || minutes > MAX_BACKFILL_MINUTES) {
        throw new IllegalArgumentException(
            "backfillMinutes must be between 1 and "
                + MAX_BACKFILL_MINUTES
                + ", was "
                + minutes
                + (minutes == 0 ? " (" + BACKFILL_ZERO_LOSES + ")" : ""));
      }
      this.backfillMinutes = minutes;
      return this;
    }

    /**
     * How many lines may wait between the reader and the consumer, and how many may be in the
     * consumer at once (default {@link ActivityStream#DEFAULT_HAND_OFF_CAPACITY}). When full, the
     * reader stops reading.
     */
    public Builder handOffCapacity(int capacity) {
      if (capacity < 1 || capacity > 1_000_000) {
        throw new IllegalArgumentException(
            "handOffCapacity must be between 1 and 1000000, was " + capacity);
      }
      this.handOffCapacity = capacity;
      return this;
    }

    /**
     * How long without a complete line counts as a dead connection, 1 s to 5 minutes (default
     * {@link ActivityStream#STALL_TIMEOUT}, the platform's rule: its keep-alive newline comes more
     * often). Shorter than the platform's keep-alive interval replaces every quiet connection; it
     * is for a simulator that sends keep-alives faster.
     */
    public Builder stallTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.compareTo(Duration.ofSeconds(1)) < 0
          || timeout.compareTo(Duration.ofMinutes(5)) > 0) {
        throw new IllegalArgumentException(
            "stallTimeout must be between 1 s and 5 minutes, was " + timeout);
      }
      this.stallTimeout = timeout;
      return this;
    }

    /**
     * Declares that the application also receives these events by webhook with catch-up
     * (webhook-catchup): a stream gap beyond the backfill reach is then reported as covered by the
     * replay. Default false.
     */
    public Builder webhookCatchUp(boolean configured) {
      this.webhookCatchUp = configured;
      return this;
    }

    /** Records the stream's meters (see {@link ActivityStream}) in this registry. */
    public Builder meterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
      this.metrics = new MicrometerStreamMetrics(Objects.requireNonNull(registry, "registry"));
      return this;
    }

    /**
     * Observes each event line as {@code servicehooks.stream.event}, the parent of the delivery the
     * consumer makes of it (give the consumer the same registry): with Micrometer Tracing, one
     * trace per event from the line to its listeners. {@link
     * io.micrometer.observation.ObservationRegistry#NOOP}, the default, makes none.
     */
    public Builder observationRegistry(io.micrometer.observation.ObservationRegistry registry) {
      Objects.requireNonNull(registry, "registry");
      this.observations =
          registry.isNoop() ? StreamObservations.NONE : new MicrometerStreamObservations(registry);
      return this;
    }

    /** Tests only: the clock every wait runs on. */
    Builder clock(StreamClock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Tests only: the jitter's random source, values in [0, 1). */
    Builder random(DoubleSupplier random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /** Builds the stream; {@link ActivityStream#start()} opens it. */
    public ActivityStream build() {
      return new ActivityStream(this);
    }

    @Override
    public String toString() {
      return "ActivityStream.Builder[backfillMinutes=" + backfillMinutes + "]";
    }
  }
}
