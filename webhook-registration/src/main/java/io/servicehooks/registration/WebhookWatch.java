package io.servicehooks.registration;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a registered webhook switched on. The platform checks every webhook about hourly with a
 * challenge-response check (CRC) and marks one that fails invalid; from then on it delivers nothing
 * and says nothing, until the webhook is revalidated ({@code PUT /2/webhooks/{id}}). A consumer
 * that was down or unreachable at one check therefore goes quiet for good, the most common "my
 * events stopped".
 *
 * <p>The watch asks the platform for the webhook's {@code valid} flag every {@link
 * Builder#checkInterval} (default 15 minutes), and at once when no CRC check has been answered for
 * {@link Builder#silence} (default 75 minutes: the hourly check plus room), as {@link
 * Builder#lastCrcAnswered} tells. A webhook found invalid is revalidated; one found missing is
 * registered again. Each such episode logs one WARN when found and one INFO when healed, and each
 * revalidation is counted as {@code webhook.registration.revalidations} with {@code
 * outcome=revalidated|invalid|error} when a {@link Builder#meterRegistry} was given. A check that
 * fails (the platform cannot be reached) is retried at the next one; it never stops the watch.
 *
 * <pre>{@code
 * WebhookWatch watch =
 *     WebhookWatch.builder()
 *         .client(client)
 *         .webhookUrl("https://bot.example.com/webhooks")
 *         .lastCrcAnswered(consumer::lastCrcAnswered)
 *         .build()
 *         .start();
 * }</pre>
 */
public final class WebhookWatch implements AutoCloseable {

  /** How often the webhook's {@code valid} flag is read by default. */
  public static final Duration DEFAULT_CHECK_INTERVAL = Duration.ofMinutes(15);

  /** How long without a CRC check makes the watch look at once, by default. */
  public static final Duration DEFAULT_SILENCE = Duration.ofMinutes(75);

  /** The shortest interval and silence accepted (for rehearsals against the simulator). */
  public static final Duration MIN_PERIOD = Duration.ofSeconds(1);

  private static final Logger log = LoggerFactory.getLogger(WebhookWatch.class);

  /** How one revalidation ended: the tag value of the counter. */
  enum Outcome {
    REVALIDATED("revalidated"),
    INVALID("invalid"),
    ERROR("error");

    final String tag;

    Outcome(String tag) {
      this.tag = tag;
    }
  }

  /** Where outcomes are counted; Micrometer's only when a registry was given. */
  interface Revalidations {
    Revalidations NONE = outcome -> {};

    void count(Outcome outcome);
  }

  private final WebhookClient client;
  private final String url;
  private final Duration interval;
  private final Duration silence;
  private final Supplier<Optional<Instant>> lastCrcAnswered;
  private final Revalidations revalidations;
  private final Clock clock;
  private final Object lock = new Object();
  private ScheduledExecutorService scheduler; // guarded by lock; null until started

  // Written by the watch's one thread only (check runs there, or in a test's own call).
  private Instant startedAt;
  private Instant lastCheck;
  private Instant silenceSeenFor; // the CRC time whose silence was already checked
  private boolean switchedOff; // an episode is running: the WARN was logged
  private boolean checkFailing; // the last check could not ask the platform
  private boolean seen; // the webhook was registered once: missing later is an episode

  private WebhookWatch(Builder b) {
    this.client = b.client;
    this.url = b.url;
    this.interval = b.interval;
    this.silence = b.silence;
    this.lastCrcAnswered = b.lastCrcAnswered;
    this.revalidations = b.revalidations;
    this.clock = b.clock;
  }

  /** A builder; {@link Builder#client}, {@link Builder#webhookUrl} are required. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts watching on a daemon thread of its own: the first check runs at once (registering the
   * webhook, or revalidating it, if needed), then as described above.
   *
   * @return this watch
   * @throws IllegalStateException when already started or closed
   */
  public WebhookWatch start() {
    synchronized (lock) {
      if (scheduler != null) {
        throw new IllegalStateException("the watch was already started");
      }
      scheduler =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "servicehooks-webhook-watch");
                t.setDaemon(true);
                return t;
              });
      long tick = tickPeriod(interval, silence).toMillis();
      scheduler.scheduleWithFixedDelay(this::tickSafely, 0, tick, TimeUnit.MILLISECONDS);
    }
    return this;
  }

  /** How often the watch looks at its clock: a quarter of the shorter period, 250 ms to 60 s. */
  static Duration tickPeriod(Duration interval, Duration silence) {
    long quarter = Math.min(interval.toMillis(), silence.toMillis()) / 4;
    return Duration.ofMillis(Math.max(250, Math.min(60_000, quarter)));
  }

  private void tickSafely() {
    try {
      tick();
    } catch (RuntimeException e) {
      log.warn("The webhook watch failed on {}; it goes on at the next tick", url, e);
    }
  }

  /** Runs a check when one is due; the watch's thread calls it, tests call it directly. */
  void tick() {
    Instant now = clock.instant();
    if (startedAt == null) {
      startedAt = now;
    }
    if (lastCheck == null || !now.isBefore(lastCheck.plus(interval))) {
      check(now, null);
      return;
    }
    Instant crc = lastCrcAnswered.get().filter(t -> t.isAfter(startedAt)).orElse(startedAt);
    if (!now.isBefore(crc.plus(silence)) && !crc.equals(silenceSeenFor)) {
      silenceSeenFor = crc;
      check(now, crc);
    }
  }

  /**
   * Reads the webhook's flag and heals it when needed.
   *
   * @param silentSince the last CRC answer (or the start) when a silence set this check off
   */
  private void check(Instant now, Instant silentSince) {
    lastCheck = now;
    Optional<Webhook> found;
    try {
      found = client.list().stream().filter(w -> w.url().equals(url)).findFirst();
    } catch (IOException e) {
      if (!checkFailing) {
        log.warn("Could not check webhook {} ({}); trying again in {}", url, describe(e), interval);
        checkFailing = true;
      }
      return;
    }
    if (checkFailing) {
      log.info("Checking webhook {} works again", url);
      checkFailing = false;
    }
    if (found.isPresent() && found.get().valid()) {
      if (switchedOff) {
        log.info("Webhook {} is valid again", found.get().id());
        switchedOff = false;
      } else if (silentSince != null) {
        log.info(
            "No CRC check answered since {}, but the platform has webhook {} valid",
            silentSince,
            found.get().id());
      }
      return;
    }
    if (found.isEmpty() && !seen) {
      // Not registered yet: a start-up's registration, not a webhook the platform switched off.
      register();
      return;
    }
    seen = true;
    if (!switchedOff) {
      switchedOff = true;
      String crc = lastCrcAnswered.get().map(Instant::toString).orElse("none since start");
      if (found.isPresent()) {
        log.warn(
            "Webhook {} ({}) is switched off by the platform (valid=false, after a failed CRC"
                + " check): nothing is delivered to it until it is revalidated; last CRC check"
                + " answered here: {}. Revalidating",
            found.get().id(),
            url,
            crc);
      } else {
        log.warn(
            "Webhook {} is no longer registered: nothing is delivered to it; last CRC check"
                + " answered here: {}. Registering it again",
            url,
            crc);
      }
    }
    revalidate(found);
  }

  private void register() {
    try {
      Webhook webhook = client.ensureRegistered(url);
      seen = true;
      log.info("Webhook {} registered for {}, valid={}", webhook.id(), url, webhook.valid());
    } catch (IOException e) {
      log.warn(
          "Registering webhook {} failed ({}); trying again in {}", url, describe(e), interval);
    }
  }

  private void revalidate(Optional<Webhook> found) {
    Outcome outcome;
    try {
      boolean valid =
          found.isPresent()
              ? client.revalidate(found.get().id())
              : client.ensureRegistered(url).valid();
      outcome = valid ? Outcome.REVALIDATED : Outcome.INVALID;
    } catch (WebhookApiException e) {
      outcome =
          e.reason() == WebhookApiException.Reason.CRC_VALIDATION_FAILED
              ? Outcome.INVALID
              : Outcome.ERROR;
      log.info("Revalidating webhook {} was refused: {}", url, describe(e));
    } catch (IOException e) {
      outcome = Outcome.ERROR;
      log.info("Revalidating webhook {} failed: {}", url, describe(e));
    }
    revalidations.count(outcome);
    if (outcome == Outcome.REVALIDATED) {
      log.info("Webhook {} revalidated: deliveries resume", url);
      switchedOff = false;
    }
  }

  private static String describe(IOException e) {
    String message = e.getMessage();
    return e.getClass().getSimpleName() + (message == null ? "" : ": " + message);
  }

  /** Stops the watch; a check under way finishes (its calls are bounded by the client). */
  @Override
  public void close() {
    synchronized (lock) {
      if (scheduler != null) {
        scheduler.shutdownNow();
      }
    }
  }

  @Override
  public String toString() {
    return "WebhookWatch[" + url + ", every " + interval + ", silence " + silence + "]";
  }

  /** Collects and checks the watch's settings. */
  public static final class Builder {
    private WebhookClient client;
    private String url;
    private Duration interval = DEFAULT_CHECK_INTERVAL;
    private Duration silence = DEFAULT_SILENCE;
    private Supplier<Optional<Instant>> lastCrcAnswered = Optional::empty;
    private Revalidations revalidations = Revalidations.NONE;
    private Clock clock = Clock.systemUTC();

    private Builder() {}

    /** The client that reads and revalidates the webhook; its time-outs bound every check. */
    public Builder client(WebhookClient client) {
      this.client = Objects.requireNonNull(client, "client");
      return this;
    }

    /** The consumer's public URL, as registered. */
    public Builder webhookUrl(String url) {
      Objects.requireNonNull(url, "url");
      if (url.isBlank()) {
        throw new IllegalArgumentException("webhookUrl must not be blank");
      }
      this.url = url;
      return this;
    }

    /** How often the {@code valid} flag is read; default 15 minutes, at least 1 second. */
    public Builder checkInterval(Duration interval) {
      this.interval = atLeastOneSecond(interval, "checkInterval");
      return this;
    }

    /**
     * How long without an answered CRC check makes the watch look at once; default 75 minutes (the
     * platform checks hourly), at least 1 second.
     */
    public Builder silence(Duration silence) {
      this.silence = atLeastOneSecond(silence, "silence");
      return this;
    }

    /**
     * When the consumer last answered a CRC check, e.g. {@code consumer::lastCrcAnswered}; without
     * it only the interval sets checks off.
     */
    public Builder lastCrcAnswered(Supplier<Optional<Instant>> lastCrcAnswered) {
      this.lastCrcAnswered = Objects.requireNonNull(lastCrcAnswered, "lastCrcAnswered");
      return this;
    }

    /** Counts revalidations as {@code webhook.registration.revalidations{outcome}}. */
    public Builder meterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
      this.revalidations = MicrometerRevalidations.of(Objects.requireNonNull(registry, "registry"));
      return this;
    }

    /** The clock intervals and silences are read on; tests move a fake one. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Builds the watch (not started).
     *
     * @throws IllegalStateException when the client or the URL is missing
     */
    public WebhookWatch build() {
      if (client == null) {
        throw new IllegalStateException("a WebhookWatch needs client(WebhookClient)");
      }
      if (url == null) {
        throw new IllegalStateException("a WebhookWatch needs webhookUrl(String)");
      }
      return new WebhookWatch(this);
    }

    private static Duration atLeastOneSecond(Duration value, String name) {
      Objects.requireNonNull(value, name);
      if (value.compareTo(MIN_PERIOD) < 0) {
        throw new IllegalArgumentException(name + " must be at least 1 s but was " + value);
      }
      return value;
    }
  }
}
