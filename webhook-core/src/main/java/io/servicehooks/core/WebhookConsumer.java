package io.servicehooks.core;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
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
 *       not JSON of either payload family; 500 when a listener threw (the event's dedup claim is
 *       released, so the platform's retry runs it again); 503 when the asynchronous queue is full
 *       or the consumer is closing; otherwise 200.
 *   <li>Any other method: 405 with {@code Allow: GET, POST}.
 * </ul>
 *
 * Every error body is {@code {"error":"<code>","message":"<why>"}}.
 *
 * <h2>Listeners</h2>
 *
 * For each event, every listener whose pattern matches its current type runs, in the order the
 * listeners were registered, on the thread that called {@link #handle} (synchronous mode) or on the
 * consumer's own threads (asynchronous mode). The first listener that throws stops the rest for
 * that event; the event then counts as failed and the {@link ErrorHandler} hears of it. In a batch,
 * the other events still run, and those that succeeded stay done.
 */
public final class WebhookConsumer implements AutoCloseable {

  /** CRC tokens longer than this are refused: real ones are short and opaque. */
  public static final int MAX_CRC_TOKEN_LENGTH = 128;

  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);
  private static final WebhookResponse METHOD_NOT_ALLOWED =
      new WebhookResponse(
          405,
          Map.of("Content-Type", "application/json", "Allow", "GET, POST"),
          "{\"error\":\"method_not_allowed\",\"message\":\"use GET for CRC checks and POST for deliveries\"}"
              .getBytes(StandardCharsets.UTF_8));

  private final Hmac[] secrets;
  private final int maxBodyBytes;
  private final PayloadParser parser;
  private final Router router;
  private final DedupGate gate;
  private final ErrorHandler errorHandler;
  private final Metrics metrics;
  private final Acknowledgement acknowledgement;
  private final ThreadPoolExecutor queue;
  private final Duration drainTimeout;
  private final boolean listenersNonBlocking;
  private final boolean storeNonBlocking;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AdapterSupport adapterSupport = new AdapterSupport(this);

  private WebhookConsumer(Builder b) {
    this.secrets = b.secrets.stream().map(Hmac::new).toArray(Hmac[]::new);
    this.maxBodyBytes = b.maxBodyBytes;
    EventTypeNames names = new EventTypeNames(b.aliases);
    ObjectMapper mapper = b.mapper != null ? b.mapper : defaultMapper();
    this.parser = new PayloadParser(mapper, names);
    List<Router.Route> routes = new ArrayList<>();
    for (Router.Route r : b.routes) {
      String p = r.pattern();
      routes.add(p.contains("*") ? r : new Router.Route(names.normalize(p), r.listener()));
    }
    this.router = new Router(routes);
    Deduplicator dedup =
        b.deduplicator != null
            ? b.deduplicator
            : Deduplicator.inMemory(b.dedupWindow, b.dedupMaxEntries);
    this.gate = new DedupGate(dedup);
    this.storeNonBlocking = !dedup.mayBlock();
    this.errorHandler = b.errorHandler;
    this.metrics = b.metricsBinder.metrics();
    if (dedup instanceof MeteredStore metered) {
      metered.bindTo(b.metricsBinder);
    }
    this.acknowledgement = b.acknowledgement;
    this.drainTimeout = b.drainTimeout;
    this.listenersNonBlocking = b.listenersNonBlocking;
    this.queue =
        b.acknowledgement == Acknowledgement.ASYNCHRONOUS
            ? new ThreadPoolExecutor(
                b.asyncThreads,
                b.asyncThreads,
                0L,
                TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(b.asyncQueueCapacity),
                threadFactory())
            : null;
  }

  /** A builder; {@link Builder#consumerSecrets} is the one required setting. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Answers one request, running listeners on the calling thread. The returned future never
   * completes exceptionally. In synchronous mode the listeners run before this returns, so call it
   * from a thread that may block (unless {@link #listenersNonBlocking()}); the future is then
   * already complete, except for a duplicate of an event still running elsewhere, which completes
   * with the original's outcome.
   */
  public CompletableFuture<WebhookResponse> handle(WebhookRequest request) {
    return handle(request, null);
  }

  /** See {@link AdapterSupport#handle(WebhookRequest, Executor)}. */
  CompletableFuture<WebhookResponse> handle(WebhookRequest request, Executor listenerExecutor) {
    Objects.requireNonNull(request, "request");
    switch (request.method()) {
      case "GET":
        return CompletableFuture.completedFuture(crc(request.rawQuery()));
      case "POST":
        return delivery(
            request.body(), request.header(WebhookRequest.SIGNATURE_HEADER), listenerExecutor);
      default:
        log.debug("Refused a {} request: only GET and POST are answered", request.method());
        return CompletableFuture.completedFuture(METHOD_NOT_ALLOWED);
    }
  }

  /**
   * The surface HTTP adapters use (Undertow, servlet, your own server); applications do not need
   * it.
   */
  public AdapterSupport adapterSupport() {
    return adapterSupport;
  }

  WebhookResponse payloadTooLarge() {
    log.warn("Refused a delivery: body larger than {} bytes", maxBodyBytes);
    metrics.delivery("too_large", 0);
    return WebhookResponse.error(
        413, "payload_too_large", "body exceeds " + maxBodyBytes + " bytes");
  }

  WebhookResponse unreadableBody() {
    log.warn("Refused a delivery: its body could not be read to the end");
    metrics.delivery("unreadable", 0);
    return WebhookResponse.error(400, "unreadable_body", "the body could not be read to its end");
  }

  /** The body size limit in bytes. */
  public int maxBodyBytes() {
    return maxBodyBytes;
  }

  boolean listenersNonBlocking() {
    return listenersNonBlocking;
  }

  /** The acknowledgement mode. */
  public Acknowledgement acknowledgement() {
    return acknowledgement;
  }

  /**
   * Stops taking deliveries (they are answered 503) and, in asynchronous mode, lets the queue drain
   * for up to the configured drain time-out; events still queued after that are dropped and their
   * dedup claims released. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true) || queue == null) {
      return;
    }
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

  // ---- CRC --------------------------------------------------------------------------------------

  private WebhookResponse crc(String rawQuery) {
    String token;
    try {
      token = queryParameter(rawQuery, "crc_token");
    } catch (IllegalArgumentException badEscape) {
      return refuseCrc("invalid_crc_token", "crc_token is not a token the platform sends");
    }
    if (token == null || token.isEmpty()) {
      return refuseCrc("missing_crc_token", "crc_token query parameter is required");
    }
    if (!plausibleCrcToken(token)) {
      return refuseCrc("invalid_crc_token", "crc_token is not a token the platform sends");
    }
    metrics.crc("answered");
    String answer = secrets[0].sign(token.getBytes(StandardCharsets.UTF_8));
    return WebhookResponse.json(200, "{\"response_token\":\"" + answer + "\"}");
  }

  private WebhookResponse refuseCrc(String code, String message) {
    log.warn("Refused a CRC check: {}", message);
    metrics.crc("rejected");
    return WebhookResponse.error(400, code, message);
  }

  /**
   * Whether a CRC token looks like one the platform sends. Signing anything else would make the
   * endpoint a signing oracle: a body sent as a token, signed, replays as a delivery signature.
   */
  static boolean plausibleCrcToken(String token) {
    if (token.length() > MAX_CRC_TOKEN_LENGTH) {
      return false;
    }
    for (int i = 0; i < token.length(); i++) {
      char c = token.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '-'
              || c == '_'
              || c == '='
              || c == '+'
              || c == '/'
              || c == '.'
              || c == '~';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** The first value of {@code name}, percent-decoded as UTF-8 with {@code +} kept literally. */
  static String queryParameter(String rawQuery, String name) {
    if (rawQuery == null || rawQuery.isEmpty()) {
      return null;
    }
    for (String pair : rawQuery.split("&")) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? pair : pair.substring(0, eq);
      if (key.equals(name)) {
        String raw = eq < 0 ? "" : pair.substring(eq + 1);
        return raw.indexOf('%') < 0
            ? raw
            : URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  // ---- deliveries -------------------------------------------------------------------------------

  private CompletableFuture<WebhookResponse> delivery(
      byte[] body, String signature, Executor executor) {
    long start = System.nanoTime();
    if (closed.get()) {
      return done(reject(503, "rejected", "shutting_down", "consumer is shutting down"), start);
    }
    if (body.length > maxBodyBytes) {
      return CompletableFuture.completedFuture(payloadTooLarge());
    }
    WebhookResponse refused = verify(body, signature);
    if (refused != null) {
      metrics.delivery("invalid_signature", System.nanoTime() - start);
      return CompletableFuture.completedFuture(refused);
    }
    List<WebhookEvent> events;
    try {
      events = parser.parse(body);
    } catch (PayloadParser.Malformed e) {
      log.warn("Refused a verified delivery: {}", e.getMessage());
      metrics.delivery("malformed", System.nanoTime() - start);
      return CompletableFuture.completedFuture(
          WebhookResponse.error(400, "malformed_payload", e.getMessage()));
    }
    if (executor != null && !storeNonBlocking) {
      // The store may do I/O: ask it from the executor, not from this thread, in either mode.
      return handOff(executor, start, () -> claimAndRun(events, start, null));
    }
    try {
      return claimAndRun(events, start, executor);
    } catch (RuntimeException storeFailure) {
      return CompletableFuture.completedFuture(internalError(storeFailure, start));
    }
  }

  private CompletableFuture<WebhookResponse> claimAndRun(
      List<WebhookEvent> events, long start, Executor executor) {
    return queue != null ? enqueue(events, start) : runNow(events, start, executor);
  }

  /** A failure outside the listeners (the dedup store, a bug): answered 500, never thrown. */
  private WebhookResponse internalError(Throwable failure, long start) {
    log.error("Delivery failed outside its listeners", failure);
    return answer(
        new Answer(
            "failed",
            WebhookResponse.error(500, "internal_error", "the delivery could not be processed")),
        start);
  }

  private WebhookResponse verify(byte[] body, String signature) {
    if (signature == null) {
      log.warn("Refused a delivery: no {} header", WebhookRequest.SIGNATURE_HEADER);
      return WebhookResponse.error(401, "invalid_signature", "missing signature header");
    }
    byte[] expected = Hmac.decodeSignature(signature);
    if (expected == null) {
      log.warn("Refused a delivery: signature header is not sha256=<base64 of 32 bytes>");
      return WebhookResponse.error(401, "invalid_signature", "malformed signature header");
    }
    for (Hmac secret : secrets) {
      if (secret.matches(body, expected)) {
        return null;
      }
    }
    log.warn("Refused a delivery: signature matches no configured consumer secret");
    return WebhookResponse.error(401, "invalid_signature", "signature does not match");
  }

  /**
   * Synchronous acknowledgement: claim every event, run the owned ones (here, or on {@code
   * executor} when one is given and some owned event has listeners), wait for in-flight originals.
   */
  private CompletableFuture<WebhookResponse> runNow(
      List<WebhookEvent> events, long start, Executor executor) {
    Tally tally = new Tally();
    List<WebhookEvent> owned = new ArrayList<>(events.size());
    List<DedupGate.Claim> claims = new ArrayList<>(events.size());
    List<CompletableFuture<Boolean>> waiting = null;
    boolean listenersToRun = false;
    for (WebhookEvent event : events) {
      DedupGate.Claim claim = claim(event, tally);
      if (claim == null) {
        continue;
      }
      switch (claim.kind()) {
        case OWNER:
          owned.add(event);
          claims.add(claim);
          listenersToRun |= router.listenersFor(event.type()).length > 0;
          break;
        case DONE:
          metrics.event(event.type(), "duplicate");
          tally.duplicates.incrementAndGet();
          break;
        case IN_FLIGHT:
          if (waiting == null) {
            waiting = new ArrayList<>();
          }
          waiting.add(
              claim
                  .original()
                  .thenApply(
                      succeeded -> {
                        metrics.event(event.type(), succeeded ? "duplicate" : "failed");
                        (succeeded ? tally.duplicates : tally.failed).incrementAndGet();
                        return succeeded;
                      }));
          break;
      }
    }
    List<CompletableFuture<Boolean>> originals = waiting;
    if (executor == null || !listenersToRun) {
      runOwned(owned, claims, tally);
      return finish(tally, originals, start);
    }
    return handOff(
        executor,
        start,
        () -> {
          runOwned(owned, claims, tally);
          return finish(tally, originals, start);
        },
        claims);
  }

  private void runOwned(List<WebhookEvent> owned, List<DedupGate.Claim> claims, Tally tally) {
    for (int i = 0; i < owned.size(); i++) {
      if (dispatch(owned.get(i))) {
        gate.succeeded(claims.get(i));
        tally.handled.incrementAndGet();
      } else {
        gate.failed(claims.get(i));
        tally.failed.incrementAndGet();
      }
    }
  }

  private CompletableFuture<WebhookResponse> finish(
      Tally tally, List<CompletableFuture<Boolean>> waiting, long start) {
    if (waiting == null) {
      return done(tally.response(), start);
    }
    return CompletableFuture.allOf(waiting.toArray(CompletableFuture[]::new))
        .thenApply(ignored -> answer(tally.response(), start));
  }

  private CompletableFuture<WebhookResponse> handOff(
      Executor executor, long start, Supplier<CompletableFuture<WebhookResponse>> work) {
    return handOff(executor, start, work, List.of());
  }

  /**
   * Runs {@code work} on {@code executor}; if it refuses, releases {@code claims} and answers 503.
   */
  private CompletableFuture<WebhookResponse> handOff(
      Executor executor,
      long start,
      Supplier<CompletableFuture<WebhookResponse>> work,
      List<DedupGate.Claim> claims) {
    CompletableFuture<WebhookResponse> result = new CompletableFuture<>();
    try {
      executor.execute(
          () -> {
            try {
              work.get().whenComplete((response, error) -> result.complete(response));
            } catch (RuntimeException | Error unexpected) {
              // Listeners' own failures are caught in dispatch(); this is the store or a bug. The
              // request must still be answered, never left hanging.
              result.complete(internalError(unexpected, start));
              if (unexpected instanceof VirtualMachineError vmError) {
                throw vmError;
              }
            }
          });
    } catch (RejectedExecutionException busy) {
      claims.forEach(gate::failed);
      return done(
          reject(503, "rejected", "busy", "no thread free to run listeners, retry later"), start);
    }
    return result;
  }

  /** Asynchronous acknowledgement: claim, queue what this delivery owns, answer at once. */
  private CompletableFuture<WebhookResponse> enqueue(List<WebhookEvent> events, long start) {
    Tally tally = new Tally();
    List<WebhookEvent> owned = new ArrayList<>();
    List<DedupGate.Claim> claims = new ArrayList<>();
    for (WebhookEvent event : events) {
      DedupGate.Claim claim = claim(event, tally);
      if (claim == null) {
        continue;
      }
      if (claim.kind() == DedupGate.Kind.OWNER) {
        owned.add(event);
        claims.add(claim);
      } else {
        // The original was (or is being) acknowledged already: so is its duplicate.
        metrics.event(event.type(), "duplicate");
        tally.duplicates.incrementAndGet();
      }
    }
    if (!owned.isEmpty()) {
      try {
        queue.execute(new QueuedDelivery(owned, claims));
        tally.handled.addAndGet(owned.size());
      } catch (RejectedExecutionException full) {
        claims.forEach(gate::failed);
        String reason = closed.get() ? "shutting_down" : "queue_full";
        return done(reject(503, "rejected", reason, "delivery queue is full, retry later"), start);
      }
    }
    return done(tally.response(), start);
  }

  private DedupGate.Claim claim(WebhookEvent event, Tally tally) {
    try {
      return gate.claim(event.dedupKey());
    } catch (RuntimeException storeFailure) {
      log.error("Dedup store failed for {} event {}", event.type(), event.id(), storeFailure);
      metrics.event(event.type(), "failed");
      tally.failed.incrementAndGet();
      return null;
    }
  }

  /** Runs every listener for the event; {@code false} when one threw. */
  private boolean dispatch(WebhookEvent event) {
    WebhookListener[] listeners = router.listenersFor(event.type());
    if (listeners.length == 0) {
      metrics.event(event.type(), "unhandled");
      return true;
    }
    for (WebhookListener listener : listeners) {
      try {
        listener.onEvent(event);
      } catch (Throwable t) {
        metrics.event(event.type(), "failed");
        try {
          errorHandler.onError(event, t);
        } catch (RuntimeException handlerFailure) {
          log.error(
              "Error handler failed for {} event {}", event.type(), event.id(), handlerFailure);
        }
        if (t instanceof VirtualMachineError vmError) {
          throw vmError;
        }
        return false;
      }
    }
    metrics.event(event.type(), "dispatched");
    return true;
  }

  private Answer reject(int status, String outcome, String code, String message) {
    log.warn("Refused a delivery: {}", message);
    return new Answer(outcome, WebhookResponse.error(status, code, message));
  }

  private CompletableFuture<WebhookResponse> done(Answer answer, long start) {
    return CompletableFuture.completedFuture(answer(answer, start));
  }

  private WebhookResponse answer(Answer answer, long start) {
    metrics.delivery(answer.outcome(), System.nanoTime() - start);
    return answer.response();
  }

  /** A response and the {@code webhook.deliveries} outcome it counts as. */
  private record Answer(String outcome, WebhookResponse response) {}

  private static ObjectMapper defaultMapper() {
    return new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  }

  private static ThreadFactory threadFactory() {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "servicehooks-listener-" + n.incrementAndGet());
      t.setDaemon(false);
      return t;
    };
  }

  @Override
  public String toString() {
    return "WebhookConsumer[secrets="
        + secrets.length
        + ", acknowledgement="
        + acknowledgement
        + "]";
  }

  /** Counts one delivery's events by outcome; the counters are touched from several threads. */
  private static final class Tally {
    final AtomicInteger handled = new AtomicInteger();
    final AtomicInteger duplicates = new AtomicInteger();
    final AtomicInteger failed = new AtomicInteger();

    Answer response() {
      if (failed.get() > 0) {
        return new Answer(
            "failed",
            WebhookResponse.error(
                500,
                "listener_failed",
                "an event was not handled; a redelivery will run it again"));
      }
      int events = handled.get();
      int copies = duplicates.get();
      if (events == 1 && copies == 0) {
        return ONE_ACCEPTED;
      }
      if (events == 0 && copies == 1) {
        return ONE_DUPLICATE;
      }
      return accepted(events, copies);
    }

    // The two answers nearly every delivery gets, built once.
    private static final Answer ONE_ACCEPTED = accepted(1, 0);
    private static final Answer ONE_DUPLICATE = accepted(0, 1);

    private static Answer accepted(int events, int copies) {
      String status = events == 0 && copies > 0 ? "duplicate" : "accepted";
      return new Answer(
          status,
          WebhookResponse.json(
              200,
              "{\"status\":\""
                  + status
                  + "\",\"events\":"
                  + events
                  + ",\"duplicates\":"
                  + copies
                  + "}"));
    }
  }

  /** A delivery's owned events waiting on the asynchronous queue. */
  private final class QueuedDelivery implements Runnable {
    private final List<WebhookEvent> events;
    private final List<DedupGate.Claim> claims;

    QueuedDelivery(List<WebhookEvent> events, List<DedupGate.Claim> claims) {
      this.events = events;
      this.claims = claims;
    }

    @Override
    public void run() {
      for (int i = 0; i < events.size(); i++) {
        if (dispatch(events.get(i))) {
          gate.succeeded(claims.get(i));
        } else {
          gate.failed(claims.get(i));
        }
      }
    }

    void abandon() {
      claims.forEach(gate::failed);
    }
  }

  /**
   * Configures a {@link WebhookConsumer}. Every method validates its argument at once; {@link
   * #build()} checks that a consumer secret was given.
   */
  public static final class Builder {
    private List<String> secrets = List.of();
    private int maxBodyBytes = 1024 * 1024;
    private Deduplicator deduplicator;
    private Duration dedupWindow = Deduplicator.DEFAULT_WINDOW;
    private long dedupMaxEntries = Deduplicator.DEFAULT_MAX_ENTRIES;
    private final List<Router.Route> routes = new ArrayList<>();
    private final Map<String, String> aliases = new LinkedHashMap<>();
    private ErrorHandler errorHandler =
        (event, error) ->
            log.error("Listener failed for {} event {}", event.type(), event.id(), error);
    private ObjectMapper mapper;
    private MetricsBinder metricsBinder = MetricsBinder.NONE;
    private Acknowledgement acknowledgement = Acknowledgement.SYNCHRONOUS;
    private int asyncQueueCapacity = 10_000;
    private int asyncThreads = 2;
    private Duration drainTimeout = Duration.ofSeconds(30);
    private boolean listenersNonBlocking;

    private Builder() {}

    /**
     * The app's consumer secrets: the first is current and signs CRC answers; the others are still
     * accepted on deliveries, for rotation. A single argument may be a comma-separated list.
     */
    public Builder consumerSecrets(String... secrets) {
      Objects.requireNonNull(secrets, "secrets");
      List<String> all = new ArrayList<>();
      for (String s : secrets) {
        if (s == null) {
          throw new IllegalArgumentException("consumer secret must not be null");
        }
        for (String part : s.split(",")) {
          if (!part.isBlank()) {
            all.add(part.strip());
          }
        }
      }
      if (all.isEmpty()) {
        throw new IllegalArgumentException("at least one non-blank consumer secret is required");
      }
      this.secrets = List.copyOf(all);
      return this;
    }

    /** Same as {@link #consumerSecrets(String...)} with a list, the first current. */
    public Builder consumerSecrets(List<String> secrets) {
      return consumerSecrets(Objects.requireNonNull(secrets, "secrets").toArray(String[]::new));
    }

    /** Largest body accepted, in bytes (default 1 MiB); larger ones get 413. */
    public Builder maxBodyBytes(int maxBodyBytes) {
      if (maxBodyBytes < 1) {
        throw new IllegalArgumentException("maxBodyBytes must be positive, was " + maxBodyBytes);
      }
      this.maxBodyBytes = maxBodyBytes;
      return this;
    }

    /** How long the default in-memory store remembers a handled event id (default 24 h). */
    public Builder dedupWindow(Duration window) {
      Objects.requireNonNull(window, "window");
      if (window.isNegative() || window.isZero()) {
        throw new IllegalArgumentException("dedupWindow must be positive, was " + window);
      }
      this.dedupWindow = window;
      return this;
    }

    /** How many ids the default in-memory store remembers at most (default one million). */
    public Builder dedupMaxEntries(long maxEntries) {
      if (maxEntries < 1) {
        throw new IllegalArgumentException("dedupMaxEntries must be at least 1, was " + maxEntries);
      }
      this.dedupMaxEntries = maxEntries;
      return this;
    }

    /**
     * Replaces the in-memory dedup store, e.g. with a shared one or {@link Deduplicator#none()}.
     */
    public Builder deduplicator(Deduplicator deduplicator) {
      this.deduplicator = Objects.requireNonNull(deduplicator, "deduplicator");
      return this;
    }

    /**
     * Adds a listener for an exact type ({@code post.create}; a legacy name is turned into the
     * current one), a prefix wildcard ({@code profile.update.*}, {@code dm.*}) or every event
     * ({@code *}).
     */
    public Builder on(String typePattern, WebhookListener listener) {
      Router.checkPattern(typePattern);
      routes.add(
          new Router.Route(typePattern.strip(), Objects.requireNonNull(listener, "listener")));
      return this;
    }

    /** Adds a listener for several types or patterns at once. */
    public Builder on(List<String> typePatterns, WebhookListener listener) {
      Objects.requireNonNull(typePatterns, "typePatterns").forEach(p -> on(p, listener));
      return this;
    }

    /** Adds a listener for every event. */
    public Builder onAny(WebhookListener listener) {
      return on("*", listener);
    }

    /** Replaces the default error handler, which logs the failure at ERROR. */
    public Builder onError(ErrorHandler errorHandler) {
      this.errorHandler = Objects.requireNonNull(errorHandler, "errorHandler");
      return this;
    }

    /**
     * Names {@code current} as the current name of an event type that arrives as {@code received};
     * consulted before the built-in legacy table.
     */
    public Builder alias(String received, String current) {
      if (received == null || received.isBlank() || current == null || current.isBlank()) {
        throw new IllegalArgumentException("alias names must not be blank");
      }
      aliases.put(received, current);
      return this;
    }

    /** The mapper used to parse bodies and for {@link WebhookEvent#payloadAs}. */
    public Builder objectMapper(ObjectMapper mapper) {
      this.mapper = Objects.requireNonNull(mapper, "mapper");
      return this;
    }

    /**
     * Records the meters {@code webhook.deliveries}, {@code webhook.events}, {@code webhook.crc},
     * {@code webhook.delivery.latency} and the dedup cache's statistics ({@code webhook.dedup}) in
     * this registry. Without it nothing is recorded and Micrometer need not be present.
     */
    public Builder meterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
      this.metricsBinder = new MicrometerBinder(Objects.requireNonNull(registry, "registry"));
      return this;
    }

    /** Synchronous (default) or asynchronous acknowledgement. */
    public Builder acknowledgement(Acknowledgement acknowledgement) {
      this.acknowledgement = Objects.requireNonNull(acknowledgement, "acknowledgement");
      return this;
    }

    /** Asynchronous mode: how many deliveries may wait (default 10,000). */
    public Builder asyncQueueCapacity(int capacity) {
      if (capacity < 1) {
        throw new IllegalArgumentException("asyncQueueCapacity must be positive, was " + capacity);
      }
      this.asyncQueueCapacity = capacity;
      return this;
    }

    /** Asynchronous mode: how many threads run listeners (default 2). */
    public Builder asyncThreads(int threads) {
      if (threads < 1) {
        throw new IllegalArgumentException("asyncThreads must be positive, was " + threads);
      }
      this.asyncThreads = threads;
      return this;
    }

    /** Asynchronous mode: how long {@link WebhookConsumer#close()} waits for the queue (30 s). */
    public Builder drainTimeout(Duration drainTimeout) {
      Objects.requireNonNull(drainTimeout, "drainTimeout");
      if (drainTimeout.isNegative()) {
        throw new IllegalArgumentException(
            "drainTimeout must not be negative, was " + drainTimeout);
      }
      this.drainTimeout = drainTimeout;
      return this;
    }

    /**
     * Declares that every listener returns quickly and never blocks (no I/O, no locks held for
     * long). Adapters may then run them on their network IO threads, saving a thread hand-off per
     * delivery. A listener that blocks under this setting stalls every connection on that thread.
     * Off by default.
     */
    public Builder listenersNonBlocking(boolean nonBlocking) {
      this.listenersNonBlocking = nonBlocking;
      return this;
    }

    /**
     * Builds the consumer.
     *
     * @throws IllegalStateException if no consumer secret was given
     */
    public WebhookConsumer build() {
      if (secrets.isEmpty()) {
        throw new IllegalStateException("consumerSecrets(...) is required");
      }
      return new WebhookConsumer(this);
    }

    @Override
    public String toString() {
      return "WebhookConsumer.Builder[secrets=" + secrets.size() + "]";
    }
  }
}
