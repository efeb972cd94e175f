package io.servicehooks.core;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Receives the platform's webhook requests: answers challenge-response checks, verifies and parses
 * deliveries, drops duplicates and routes each event to its listeners. It has no server of its own;
 * an adapter (Undertow, servlet, the testkit) turns each HTTP request into a {@link WebhookRequest}
 * and writes back the {@link WebhookResponse}.
 *
 * <pre>{@code
 * WebhookConsumer consumer = WebhookConsumer.builder()
 *     .consumerSecrets(System.getenv("SERVICE_CONSUMER_SECRET"))
 *     .on("post.create", event -> System.out.println(event.payload().path("text")))
 *     .on("dm.*", event -> inbox.add(event.id()))
 *     .build();
 * }</pre>
 *
 * <h2>Answers</h2>
 *
 * <ul>
 *   <li>{@code GET ?crc_token=T}: 200 {@code {"response_token":"sha256=..."}} signed with the
 *       current consumer secret; 400 when the token is missing or empty, or could be a forged body
 *       (longer than 128 characters, or any character outside {@code A-Z a-z 0-9 - _ = + / . ~}).
 *       Other query parameters are ignored; {@code +} in the token is taken literally.
 *   <li>{@code POST}: 413 over {@link Builder#maxBodyBytes}; 401 when the signature header is
 *       missing, malformed or matches none of the consumer secrets; 400 when the verified body is
 *       not JSON of either payload family, or carries an event id longer than {@link
 *       #MAX_EVENT_ID_LENGTH} or a type name longer than {@link #MAX_EVENT_TYPE_LENGTH}; 500 when a
 *       listener threw (the event's dedup claim is released, so the platform's retry runs it
 *       again); 503 when the asynchronous queue is full or the consumer is closing; 503 {@code
 *       in_flight} with {@code Retry-After} when a copy of an event still running (here or on
 *       another instance) outwaited {@link Builder#inFlightWait}; 503 {@code dedup_unavailable}
 *       with {@code Retry-After} when the dedup store failed or did not answer within {@link
 *       Builder#dedupTimeout} (nothing ran, the delivery's claims are released); in durable mode
 *       503 {@code inbox_unavailable} with {@code Retry-After} when the inbox did not commit the
 *       events within {@link Builder#inboxTimeout}; otherwise 200.
 *   <li>Any other method: 405 with {@code Allow: GET, POST}.
 * </ul>
 *
 * Every error body is {@code {"error":"<code>","message":"<why>"}}.
 *
 * <h2>Listeners</h2>
 *
 * For each event, every listener whose pattern matches its current type runs, in the order the
 * listeners were registered, on the thread that called {@link #handle} (synchronous mode), on the
 * consumer's own threads (asynchronous mode) or on the inbox's workers once the event is stored
 * (durable mode, where a failed event is retried by the inbox). The first listener that throws
 * stops the rest for that event; the event then counts as failed and the {@link ErrorHandler} hears
 * of it. In a batch, the other events still run, and those that succeeded stay done.
 *
 * <p>This class holds the public constants and the {@link Builder} (nested as API, each method a
 * documented setting that {@code ConsumerSettings} validates), the user's reference. The work is
 * elsewhere: {@code ConsumerWiring} assembles the steps, {@code DeliveryPath} takes a delivery from
 * its bytes to its answer, {@code Dispatcher} runs the listeners.
 */
public final class WebhookConsumer implements AutoCloseable {

  /**
   * Consumer secrets shorter than this many characters are accepted but logged: one WARN line at
   * {@link Builder#build()} naming their positions in the list, never their values. The platform
   * issues long random consumer secrets (50 characters); a short one is more likely a test value, a
   * key or a token pasted in the wrong place, and is easier to guess.
   */
  public static final int MIN_SECRET_LENGTH = 32;

  /** CRC tokens longer than this are refused: real ones are short and opaque. */
  public static final int MAX_CRC_TOKEN_LENGTH = 128;

  /**
   * Event ids longer than this are refused as {@code malformed_payload}: an envelope's {@code
   * event_uuid}, a batch item's {@code id_str}, {@code id} or {@code status.id}, and a batch's
   * {@code for_user_id}. Real ids are at most 20 digits or a 36-character UUID; the bound leaves
   * room for any format the platform might move to while keeping dedup keys and log lines short.
   */
  public static final int MAX_EVENT_ID_LENGTH = 128;

  /**
   * Event type names longer than this, as they arrive ({@code event_type}, a batch's array name or
   * {@code user_event} kind), are refused as {@code malformed_payload}. Real names are at most
   * about 40 characters ({@code direct_message_indicate_typing_events} is 37); a type name becomes
   * a log value and a metric tag, so it is kept short.
   */
  public static final int MAX_EVENT_TYPE_LENGTH = 128;

  /**
   * How many distinct {@code type} tag values {@code webhook.events} takes at most. Types arrive
   * from the platform and new ones keep appearing; past this many, a type not yet seen counts under
   * {@link #OTHER_TYPE_TAG}, so a stream of odd names cannot grow every metrics scrape without
   * bound. About 40 types exist today.
   */
  public static final int MAX_TYPE_TAGS = 200;

  /**
   * The {@code type} tag value of {@code webhook.events} for types first seen after {@link
   * #MAX_TYPE_TAGS} others.
   */
  public static final String OTHER_TYPE_TAG = "other";

  /**
   * Default {@link Builder#refusalLogInterval}: at most one WARN line per second for each kind of
   * unauthenticated refusal.
   */
  public static final Duration DEFAULT_REFUSAL_LOG_INTERVAL = Duration.ofSeconds(1);

  /** Default {@link Builder#maxBodyBytes}: 1 MiB. */
  public static final int DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

  /** Default {@link Builder#acknowledgement}: answer after the listeners ran. */
  public static final Acknowledgement DEFAULT_ACKNOWLEDGEMENT = Acknowledgement.SYNCHRONOUS;

  /** Default {@link Builder#asyncQueueCapacity}. */
  public static final int DEFAULT_ASYNC_QUEUE_CAPACITY = 10_000;

  /** Default {@link Builder#asyncThreads}. */
  public static final int DEFAULT_ASYNC_THREADS = 2;

  /** Default {@link Builder#drainTimeout}. */
  public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(30);

  /** Default {@link Builder#inFlightWait}: 5 s, well inside the platform's 10 s answer budget. */
  public static final Duration DEFAULT_IN_FLIGHT_WAIT = Duration.ofSeconds(5);

  /**
   * Default {@link Builder#dedupTimeout}: 2 s, so a store that does not answer is answered 503 well
   * inside the platform's 10 s budget.
   */
  public static final Duration DEFAULT_DEDUP_TIMEOUT = Duration.ofSeconds(2);

  /**
   * Default {@link Builder#queueingDeadline}: 5 s, so a delivery refused for it is still answered
   * inside the platform's 10 s budget.
   */
  public static final Duration DEFAULT_QUEUEING_DEADLINE = Duration.ofSeconds(5);

  /**
   * Default {@link Builder#inboxTimeout}: 5 s for the durable inbox to commit a delivery's events,
   * so a delivery it cannot store is answered 503 well inside the platform's 10 s budget.
   */
  public static final Duration DEFAULT_INBOX_TIMEOUT = Duration.ofSeconds(5);

  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);
  private static final WebhookResponse METHOD_NOT_ALLOWED =
      new WebhookResponse(
          405,
          Map.of("Content-Type", "application/json", "Allow", "GET, POST"),
          "{\"error\":\"method_not_allowed\",\"message\":\"use GET for CRC checks and POST for deliveries\"}"
              .getBytes(StandardCharsets.UTF_8));

  // The steps a request walks through, assembled by ConsumerWiring; see the package documentation.
  private final CrcResponder crc;
  private final DeliveryPath delivery;
  private final AcknowledgementMode acknowledgementMode;
  private final SignatureVerifier verifier;

  private final int maxBodyBytes;
  private final Acknowledgement acknowledgement;
  private final boolean listenersNonBlocking;
  private final int listenerCount;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AdapterSupport adapterSupport = new AdapterSupport(this);
  private final String dedupStore; // the Deduplicator, or in durable mode the inbox

  private WebhookConsumer(ConsumerSettings s) {
    ConsumerWiring wiring = new ConsumerWiring(s, closed);
    this.crc = wiring.crc;
    this.delivery = wiring.delivery;
    this.acknowledgementMode = wiring.acknowledgementMode;
    this.verifier = wiring.verifier;
    this.dedupStore = wiring.dedupStore;
    this.maxBodyBytes = s.maxBodyBytes;
    this.acknowledgement = s.acknowledgement;
    this.listenersNonBlocking = s.listenersNonBlocking;
    this.listenerCount = s.routes.size();
  }

  /** A builder; {@link Builder#consumerSecrets} is the one required setting. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Answers one request, running listeners on the calling thread. The returned future never
   * completes exceptionally. In synchronous mode the listeners run before this returns, so call it
   * from a thread that may block (unless {@link Builder#listenersNonBlocking}); the future is then
   * already complete, except for a duplicate of an event still running elsewhere, which completes
   * with the original's outcome.
   */
  public CompletableFuture<WebhookResponse> handle(WebhookRequest request) {
    return handle(request, null);
  }

  /** See {@link AdapterSupport#handle(WebhookRequest, Executor)}. */
  CompletableFuture<WebhookResponse> handle(WebhookRequest request, Executor workers) {
    Objects.requireNonNull(request, "request");
    switch (request.method()) {
      case "GET":
        return CompletableFuture.completedFuture(crc.answer(request.rawQuery()));
      case "POST":
        return delivery.post(
            request.body(), request.header(WebhookRequest.SIGNATURE_HEADER), workers);
      default:
        log.debug("Refused a {} request: only GET and POST are answered", request.method());
        return CompletableFuture.completedFuture(METHOD_NOT_ALLOWED);
    }
  }

  /**
   * Runs a delivery that arrived over a connection this application opened itself to the platform
   * and authenticated there with its bearer token over TLS, such as a line of the activity stream
   * ({@code GET /2/activity/stream}). Such deliveries carry no signature: the platform does not
   * sign them, because the connection itself proves where they come from. Everything else is as for
   * a POST: the size limit, parsing, type names, dedup (so a copy of the same event that also
   * arrives by webhook runs once), listeners, the error handler, metrics and the acknowledgement
   * mode; the answer is the one a signed POST of the same body would get (200 taken, 400 malformed,
   * 500 a listener failed, 503 not taken: the dedup store or the inbox could not be asked, the
   * queue is full or the consumer is closing).
   *
   * <p>This skips the signature check, the one thing that tells the platform's POSTs from anyone
   * else's, so it must never be given bytes that an HTTP server received: no adapter calls it, and
   * no {@link WebhookRequest} (whatever its method, path or headers) reaches it through {@link
   * #handle} or {@link #adapterSupport()}. Listeners run on the calling thread in synchronous mode,
   * so call it from a thread that may block.
   *
   * @param body the delivery's JSON, exactly as read from the connection
   */
  public CompletableFuture<WebhookResponse> handleFromOwnConnection(byte[] body) {
    Objects.requireNonNull(body, "body");
    return delivery.fromOwnConnection(body);
  }

  /**
   * The surface HTTP adapters use (Undertow, servlet, your own server); applications do not need
   * it.
   */
  public AdapterSupport adapterSupport() {
    return adapterSupport;
  }

  WebhookResponse payloadTooLarge() {
    return delivery.payloadTooLarge();
  }

  WebhookResponse unreadableBody() {
    return delivery.unreadableBody();
  }

  /** The body size limit in bytes. */
  public int maxBodyBytes() {
    return maxBodyBytes;
  }

  boolean listenersNonBlocking() {
    return listenersNonBlocking;
  }

  /**
   * When this consumer last answered the platform's challenge-response check (CRC), or empty when
   * it has answered none since it was built. The platform checks every webhook about hourly and
   * switches one off that fails, after which it sends nothing at all: a silence much longer than an
   * hour is the sign. Also published as the gauge {@code webhook.crc.last.answered} (seconds since
   * the epoch, 0 before the first answer) when a registry was given.
   */
  public java.util.Optional<java.time.Instant> lastCrcAnswered() {
    return crc.lastAnswered();
  }

  /** The acknowledgement mode. */
  public Acknowledgement acknowledgement() {
    return acknowledgement;
  }

  /**
   * Stops taking deliveries (they are answered 503) and, in asynchronous mode, lets the queue drain
   * for up to the configured drain time-out; events still queued after that are dropped and their
   * dedup claims released. Its listener threads are daemon threads: a listener still running after
   * that does not keep the JVM alive. Idempotent.
   */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      acknowledgementMode.close();
    }
  }

  /**
   * What this consumer serves, for logs and debuggers: how many consumer secrets (never their
   * values), the acknowledgement mode, how many listeners were registered and whether it is closed.
   * A consumer has no port of its own; {@code WebhookServer.toString()} names the one it is served
   * on.
   */
  @Override
  public String toString() {
    return "WebhookConsumer[secrets="
        + verifier.secretCount()
        + ", acknowledgement="
        + acknowledgement
        + ", dedup="
        + dedupStore
        + ", listeners="
        + listenerCount
        + ", closed="
        + closed.get()
        + "]";
  }

  /**
   * Configures a {@link WebhookConsumer}. Every method validates its argument at once; {@link
   * #build()} checks that a consumer secret was given.
   */
  public static final class Builder {
    private final ConsumerSettings settings = new ConsumerSettings();

    private Builder() {}

    /**
     * The app's consumer secrets, for secrets held in an environment variable: each argument is
     * split at commas, so {@code consumerSecrets(System.getenv("SERVICE_CONSUMER_SECRET"))} takes
     * {@code current,previous} as two secrets. The first is current and signs CRC answers; the
     * others are still accepted on deliveries, for rotation. Blank parts are skipped and
     * surrounding whitespace removed; at least one secret must remain.
     *
     * <p>A secret that contains a comma cannot pass through here: give it to {@link
     * #consumerSecrets(List)}, which takes each element whole.
     *
     * <p>A part that looks like an unresolved placeholder ({@code ${...}} anywhere in it, or the
     * whole part {@code $NAME}) is refused: the variable was not set, and the literal text would
     * become a secret anyone can read. Secrets shorter than {@link
     * WebhookConsumer#MIN_SECRET_LENGTH} are accepted with one WARN line at {@link #build()}.
     *
     * @throws IllegalArgumentException if an argument is null, no non-blank secret remains, or a
     *     part looks like an unresolved placeholder (the message names its index, never the value)
     */
    public Builder consumerSecrets(String... secrets) {
      settings.consumerSecretsSplittingCommas(secrets);
      return this;
    }

    /**
     * The app's consumer secrets, each element one whole secret (never split at commas, so a secret
     * may contain any character); the first is current and signs CRC answers, the others are still
     * accepted on deliveries, for rotation. Surrounding whitespace, such as a trailing newline read
     * from a file, is removed; everything between is part of the secret. Placeholders and short
     * secrets are treated as in {@link #consumerSecrets(String...)}.
     *
     * @throws IllegalArgumentException if the list is empty or an element is null, blank or looks
     *     like an unresolved placeholder (the message names the index, never the value)
     */
    public Builder consumerSecrets(List<String> secrets) {
      settings.consumerSecrets(secrets);
      return this;
    }

    /** Largest body accepted, in bytes (default 1 MiB); larger ones get 413. */
    public Builder maxBodyBytes(int maxBodyBytes) {
      settings.maxBodyBytes(maxBodyBytes);
      return this;
    }

    /** How long the default in-memory store remembers a handled event id (default 24 h). */
    public Builder dedupWindow(Duration window) {
      settings.dedupWindow(window);
      return this;
    }

    /** How many ids the default in-memory store remembers at most (default one million). */
    public Builder dedupMaxEntries(long maxEntries) {
      settings.dedupMaxEntries(maxEntries);
      return this;
    }

    /**
     * Replaces the in-memory dedup store, e.g. with a shared one or {@link Deduplicator#none()}.
     */
    public Builder deduplicator(Deduplicator deduplicator) {
      settings.deduplicator = Objects.requireNonNull(deduplicator, "deduplicator");
      return this;
    }

    /**
     * Adds a listener for an exact type ({@code post.create}; a legacy name is turned into the
     * current one), a prefix wildcard ({@code profile.update.*}, {@code dm.*}) or every event
     * ({@code *}).
     */
    public Builder on(String typePattern, WebhookListener listener) {
      settings.on(typePattern, listener);
      return this;
    }

    /** Adds a listener for several types or patterns at once. */
    public Builder on(List<String> typePatterns, WebhookListener listener) {
      Objects.requireNonNull(typePatterns, "typePatterns").forEach(p -> on(p, listener));
      return this;
    }

    /**
     * Routes the events of a payload record's family to {@code listener} with the payload mapped
     * onto it: {@code on(PostCreated.class, post -> save(post.id(), post.text()))}. The record
     * names its types ({@code PostCreated}: {@code post.create} and the mention, reply, quote and
     * repost creations; {@code ProfileUpdated}: {@code profile.update.*}; ...), from either payload
     * family; unknown fields are ignored. A payload that lacks one of the record's required fields
     * fails the listener with {@link io.servicehooks.core.payload.MissingPayloadFieldException}. To
     * see which type arrived, use {@link #onEvent(Class, TypedEventListener)}.
     *
     * @throws IllegalArgumentException for a class that is not one of those records
     */
    public <T> Builder on(Class<T> payloadType, PayloadListener<? super T> listener) {
      Objects.requireNonNull(payloadType, "payloadType");
      Objects.requireNonNull(listener, "listener");
      List<String> patterns = PayloadTypes.patterns(payloadType);
      return on(patterns, event -> listener.onPayload(event.payloadAs(payloadType)));
    }

    /**
     * Routes the events of a payload record's family, as {@link #on(Class, PayloadListener)} does,
     * to a listener that also takes the event: {@code onEvent(PostCreated.class, (event, post) ->
     * ...)} sees {@code event.type()} ({@code post.create}, {@code post.mention.create}, ...),
     * {@code event.id()} and {@code event.forUserId()} beside the record. A payload that lacks one
     * of the record's required fields fails the listener with {@link
     * io.servicehooks.core.payload.MissingPayloadFieldException}.
     *
     * @throws IllegalArgumentException for a class that is not one of those records
     */
    public <T> Builder onEvent(Class<T> payloadType, TypedEventListener<? super T> listener) {
      Objects.requireNonNull(payloadType, "payloadType");
      Objects.requireNonNull(listener, "listener");
      List<String> patterns = PayloadTypes.patterns(payloadType);
      return on(patterns, event -> listener.onEvent(event, event.payloadAs(payloadType)));
    }

    /** Adds a listener for every event. */
    public Builder onAny(WebhookListener listener) {
      return on("*", listener);
    }

    /**
     * Adds an observer told the status of every answer to a verified delivery (after the signature
     * and payload checks; bad requests are not reported). Observers run on the answering thread and
     * must not block; webhook-catchup installs one to notice periods of refused deliveries.
     */
    public Builder onAnswered(DeliveryObserver observer) {
      settings.observers.add(Objects.requireNonNull(observer, "observer"));
      return this;
    }

    /** Replaces the default error handler, which logs the failure at ERROR. */
    public Builder onError(ErrorHandler errorHandler) {
      settings.errorHandler = Objects.requireNonNull(errorHandler, "errorHandler");
      return this;
    }

    /**
     * Names {@code current} as the current name of an event type that arrives as {@code received};
     * consulted before the built-in legacy table.
     */
    public Builder alias(String received, String current) {
      settings.alias(received, current);
      return this;
    }

    /** The mapper used to parse bodies and for {@link WebhookEvent#payloadAs}. */
    public Builder objectMapper(ObjectMapper mapper) {
      settings.mapper = Objects.requireNonNull(mapper, "mapper");
      return this;
    }

    /**
     * Records the meters {@code webhook.deliveries}, {@code webhook.events}, {@code webhook.crc},
     * {@code webhook.delivery.latency}, {@code webhook.duplicates.waiting}, the dedup meters
     * ({@code webhook.dedup.store}, a timer tagged {@code operation} and {@code outcome} for stores
     * that {@linkplain Deduplicator#mayBlock() may block}; the counters {@code
     * webhook.dedup.running.elsewhere}, {@code webhook.dedup.lease.expired}, {@code
     * webhook.dedup.claim.lost} and {@code webhook.dedup.fail.open}) and the in-memory store's
     * cache meters ({@code cache.*} with {@code cache=webhook.dedup}) in this registry. Without it
     * nothing is recorded and Micrometer need not be present. The {@code type} tag of {@code
     * webhook.events} takes at most {@link WebhookConsumer#MAX_TYPE_TAGS} values, then {@link
     * WebhookConsumer#OTHER_TYPE_TAG}.
     */
    public Builder meterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
      settings.metricsBinder = new MicrometerBinder(Objects.requireNonNull(registry, "registry"));
      return this;
    }

    /**
     * Observes every delivery, listener run, durable inbox write and processing through
     * Micrometer's Observation API: spans where the registry has Micrometer Tracing's handlers (in
     * durable mode the trace continues, through the inbox row's {@code traceparent}, on the worker
     * that runs the event later), timers where it has a meter handler. {@link
     * io.micrometer.observation.ObservationRegistry#NOOP}, the default, makes none. The names and
     * keys: {@link io.servicehooks.core.observation.ServicehooksObservation}; the event type is
     * capped as the {@code webhook.events} tag is.
     */
    public Builder observationRegistry(io.micrometer.observation.ObservationRegistry registry) {
      Objects.requireNonNull(registry, "registry");
      settings.observationRegistry = registry.isNoop() ? null : registry;
      return this;
    }

    /**
     * Synchronous (default), asynchronous or durable acknowledgement; durable needs {@link #inbox},
     * which selects it by itself.
     */
    public Builder acknowledgement(Acknowledgement acknowledgement) {
      settings.acknowledgement = Objects.requireNonNull(acknowledgement, "acknowledgement");
      return this;
    }

    /**
     * Switches to {@link Acknowledgement#DURABLE}: each delivery is answered once its events are
     * committed to {@code inbox}, which then runs the listeners. The consumer starts the inbox when
     * built and closes it when closed. The {@link #deduplicator} is used only when the inbox does
     * not {@linkplain EventInbox#deduplicates() deduplicate} by storing: each event is then claimed
     * there before it is stored and marked done after.
     */
    public Builder inbox(EventInbox inbox) {
      settings.inbox = Objects.requireNonNull(inbox, "inbox");
      settings.acknowledgement = Acknowledgement.DURABLE;
      return this;
    }

    /**
     * Durable mode: how long a delivery waits for the inbox to commit its events (default {@link
     * WebhookConsumer#DEFAULT_INBOX_TIMEOUT}, 5 s) before it is answered 503 {@code
     * inbox_unavailable}. Keep it below the platform's 10 s answer budget. A delivery that already
     * waited (for a worker, or for another instance's claim on one of its events) gets what is left
     * of 9 s since it arrived when that is less, and none when under 250 ms are left: it is then
     * answered 503 without storing, so no answer leaves after the platform's 10 s.
     */
    public Builder inboxTimeout(Duration timeout) {
      settings.inboxTimeout(timeout);
      return this;
    }

    /** Asynchronous mode: how many deliveries may wait (default 10,000). */
    public Builder asyncQueueCapacity(int capacity) {
      settings.asyncQueueCapacity(capacity);
      return this;
    }

    /** Asynchronous mode: how many threads run listeners (default 2). */
    public Builder asyncThreads(int threads) {
      settings.asyncThreads(threads);
      return this;
    }

    /** Asynchronous mode: how long {@link WebhookConsumer#close()} waits for the queue (30 s). */
    public Builder drainTimeout(Duration drainTimeout) {
      settings.drainTimeout(drainTimeout);
      return this;
    }

    /**
     * How long a copy of an event that is still running waits for the original's outcome (default
     * {@link WebhookConsumer#DEFAULT_IN_FLIGHT_WAIT}, 5 s). A copy of an event running in this
     * process (synchronous mode) waits for the original itself; a copy whose original runs on
     * another instance sharing the {@link Deduplicator} asks the store again after 50 ms, then
     * after pauses doubling up to 500 ms, holding no thread. If the original is done, the copy is
     * answered 200 {@code duplicate}; if its claim was released, the copy claims and runs it; if it
     * is still running when the wait ends, the copy is answered 503 {@code
     * {"error":"in_flight",...}} with {@code Retry-After}, so the platform retries it instead of
     * timing out. A copy is never answered 200 while its original's outcome is unknown.
     *
     * @throws IllegalArgumentException unless positive and below the platform's 10 s answer budget
     */
    public Builder inFlightWait(Duration wait) {
      settings.inFlightWait(wait);
      return this;
    }

    /**
     * How long a claim holds an event if its owner never ends it, e.g. because the process died
     * (default {@link Deduplicator#DEFAULT_LEASE}, 30 s). After it, a copy (the platform's retry)
     * claims and runs the event. While listeners run past half the lease, the owner renews it. If
     * it still runs out before the event is marked done (the store was unreachable for the
     * renewals), {@code webhook.dedup.lease.expired} counts it and a WARN says another copy may
     * have run it too.
     */
    public Builder dedupLease(Duration lease) {
      settings.dedupLease(lease);
      return this;
    }

    /**
     * Bound on each call to the dedup store (default {@link WebhookConsumer#DEFAULT_DEDUP_TIMEOUT},
     * 2 s). A claim that fails or is not answered in time is answered 503 {@code
     * {"error":"dedup_unavailable",...}} with {@code Retry-After}: no listener of that delivery
     * runs and its claims are released (unless {@link #failOpen}). A {@code markDone} or {@code
     * release} that fails or times out is logged; the answer already decided stands.
     *
     * @throws IllegalArgumentException unless positive and below the platform's 10 s answer budget
     */
    public Builder dedupTimeout(Duration timeout) {
      settings.dedupTimeout(timeout);
      return this;
    }

    /**
     * When the dedup store cannot be asked about an event (it failed or timed out), run the event's
     * listeners anyway, without dedup, instead of answering 503 {@code dedup_unavailable}. Each
     * such event counts in {@code webhook.dedup.fail.open} and logs a WARN; a copy of it may run
     * too. Off by default: failing closed lets the platform's retry come back once the store does.
     */
    public Builder failOpen(boolean failOpen) {
      settings.failOpen = failOpen;
      return this;
    }

    /**
     * Whether listeners skip the events the subscribed user caused itself (default {@code true}): a
     * {@code post.*} event whose author is the event's {@link WebhookEvent#forUserId() for_user_id}
     * (its own posts, and its own replies that mention it), and a {@code dm.*} event whose sender
     * it is (its own sent messages). A bot that answers mentions would otherwise answer its own
     * answers, again and again. Such an event is acknowledged and marked done as a handled one,
     * never retried; it counts in {@code webhook.events} with the outcome {@code own} and logs one
     * DEBUG line. Events without {@code for_user_id} always run. Turn it off for an application
     * that wants its user's own activity (an archive, an audit log).
     */
    public Builder ignoreOwnEvents(boolean ignoreOwnEvents) {
      settings.ignoreOwnEvents = ignoreOwnEvents;
      return this;
    }

    /**
     * How long a delivery handed to the listener executor may wait there for a thread (default
     * {@link WebhookConsumer#DEFAULT_QUEUEING_DEADLINE}, 5 s). One that starts later is not run: it
     * is answered 503 {@code {"error":"busy",...}} with {@code Retry-After} and its claims are
     * released, because the platform has given up on it or soon will, and its retry is answered by
     * a less busy moment. Applies wherever an adapter hands work to an executor ({@link
     * AdapterSupport#handle(WebhookRequest, Executor)}).
     */
    public Builder queueingDeadline(Duration deadline) {
      settings.queueingDeadline(deadline);
      return this;
    }

    /** Tests only: the clock the queueing deadline is read on, in nanoseconds. */
    Builder nanoTime(java.util.function.LongSupplier nanoTime) {
      settings.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
      return this;
    }

    /**
     * Declares that every listener returns quickly and never blocks (no I/O, no locks held for
     * long). Adapters may then run them on their network IO threads, saving a thread hand-off per
     * delivery. A listener that blocks under this setting stalls every connection on that thread.
     * Off by default.
     */
    public Builder listenersNonBlocking(boolean nonBlocking) {
      settings.listenersNonBlocking = nonBlocking;
      return this;
    }

    /**
     * How often each kind of unauthenticated refusal (missing, malformed or non-matching signature,
     * a body over the limit or unreadable, a missing or refused CRC token) may log a WARN line
     * (default one second). Anyone who can reach the webhook can cause these, so the lines are
     * rate-limited: within the interval further refusals of that kind are only counted, and the
     * next line logged says how many were suppressed. The meters count every refusal. Zero logs
     * each one.
     */
    public Builder refusalLogInterval(Duration interval) {
      settings.refusalLogInterval(interval);
      return this;
    }

    /** Tests only: the wall clock {@link WebhookConsumer#lastCrcAnswered} is read on. */
    Builder wallClock(java.time.Clock clock) {
      settings.wallClock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Tests only: the dedup gate's clock, in nanoseconds: when a lease is renewed, whether it is
     * known to still run, and when a copy's in-flight wait runs out.
     */
    Builder leaseTicker(java.util.function.LongSupplier nanoTicker) {
      settings.leaseTicker = Objects.requireNonNull(nanoTicker, "nanoTicker");
      return this;
    }

    /**
     * Tests only: the scheduler that runs the lease sweeps and times the pauses of copies asking
     * again; a test runs its tasks when it moves the lease ticker.
     */
    Builder dedupScheduler(ScheduledExecutorService scheduler) {
      settings.dedupScheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /** The clock of {@link #refusalLogInterval}, in nanoseconds; tests move a fake one. */
    Builder refusalLogTicker(java.util.function.LongSupplier nanoTicker) {
      settings.refusalLogTicker = Objects.requireNonNull(nanoTicker, "nanoTicker");
      return this;
    }

    /**
     * Builds the consumer. Logs one WARN line when any consumer secret is shorter than {@link
     * WebhookConsumer#MIN_SECRET_LENGTH}, naming its position in the list.
     *
     * @throws IllegalStateException if no consumer secret was given, or {@link
     *     Acknowledgement#DURABLE} was chosen without an {@link #inbox}, or an inbox with another
     *     mode
     */
    public WebhookConsumer build() {
      settings.checkComplete();
      return new WebhookConsumer(settings);
    }

    @Override
    public String toString() {
      return "WebhookConsumer.Builder[secrets=" + settings.secrets.size() + "]";
    }
  }
}
