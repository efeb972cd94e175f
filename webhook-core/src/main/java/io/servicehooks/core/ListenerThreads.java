package io.servicehooks.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * The consumer's one answer to "which thread does this delivery's work": where its store is asked,
 * where its listeners run and where it goes on when the dedup store answers later than the call
 * that asked. Built once by {@link ConsumerWiring} from the settings; the acknowledgement modes and
 * the {@link DeliveryPath} ask it and never decide for themselves, and adapters only hand it the
 * executor they have for blocking work.
 *
 * <h2>The threads a delivery meets</h2>
 *
 * <ul>
 *   <li><b>The caller.</b> An adapter calls from a thread that must not block (a server's IO
 *       thread) and gives its worker executor; {@link WebhookConsumer#handle(WebhookRequest)}, a
 *       servlet's container thread and the activity stream call from a thread that may block and
 *       give none. That is a {@link Caller}: {@link #caller(Executor)} for the first hop, {@link
 *       #onWorker(Executor)} once the delivery is on one of the executor's threads.
 *   <li><b>The store.</b> A store that {@linkplain Deduplicator#mayBlock() may block} (or an inbox
 *       that {@linkplain EventInbox#mayBlock() may}) is asked from the worker when there is one,
 *       never from an IO thread ({@link #acknowledge}); the listeners then run on that worker too.
 *   <li><b>The listeners.</b> Run on the caller's thread when it may block or the listeners were
 *       declared non-blocking, else on the worker through the {@link HandOff} and its queueing
 *       deadline ({@link #listeners}).
 *   <li><b>A late store answer.</b> Arrives on the store client's thread (Lettuce's event loop, a
 *       time-out on the dedup scheduler). What follows it goes on there when it cannot block
 *       (queueing, storing in a non-blocking inbox, answering a delivery with nothing to run,
 *       listeners declared non-blocking); otherwise it moves to the worker, or, when the caller
 *       gave none, the caller's thread waits for the answer, since it may block ({@link #resume}).
 * </ul>
 *
 * Every answer depends only on the settings and the executor given, so it is decided here once per
 * executor: the callers are built when an adapter first brings its executor, not per delivery.
 */
final class ListenerThreads {

  /**
   * Where a delivery arrived from: the executor for blocking work (null when the calling thread may
   * block), and where listeners run from here (null: this thread).
   */
  static final class Caller {
    final Executor workers;
    final Executor listeners;

    private Caller(Executor workers, Executor listeners) {
      this.workers = workers;
      this.listeners = listeners;
    }

    @Override
    public String toString() {
      return workers == null ? "Caller[may block]" : "Caller[" + workers + "]";
    }
  }

  /** The two callers of one adapter executor, built once when it is first seen. */
  private record Callers(Executor workers, Caller ioThread, Caller onWorker) {}

  private static final Caller MAY_BLOCK = new Caller(null, null);

  private final boolean listenersNonBlocking;
  private final boolean storeMayBlock;
  private final boolean inboxMayBlock;
  private final HandOff handOff;
  private final Answers answers;
  private volatile Callers last;

  /**
   * @param storeMayBlock the first store a delivery meets (the dedup store, or the inbox in durable
   *     mode) may block its caller
   * @param inboxMayBlock the durable inbox's store may block (false without an inbox)
   */
  ListenerThreads(
      boolean listenersNonBlocking,
      boolean storeMayBlock,
      boolean inboxMayBlock,
      HandOff handOff,
      Answers answers) {
    this.listenersNonBlocking = listenersNonBlocking;
    this.storeMayBlock = storeMayBlock;
    this.inboxMayBlock = inboxMayBlock;
    this.handOff = handOff;
    this.answers = answers;
  }

  /**
   * Starts a delivery brought by a thread whose executor for blocking work is {@code workers}
   * (null: the thread may block): the whole acknowledgement moves to the worker when the store may
   * block, else it starts here.
   */
  CompletableFuture<WebhookResponse> acknowledge(
      AcknowledgementMode mode, List<WebhookEvent> events, long start, Executor workers) {
    if (workers != null && storeMayBlock) {
      Caller worker = callers(workers).onWorker;
      return handOff.run(workers, start, () -> mode.acknowledge(events, start, worker), List.of());
    }
    try {
      return mode.acknowledge(events, start, caller(workers));
    } catch (RuntimeException storeFailure) {
      return CompletableFuture.completedFuture(answers.internalError(storeFailure, start));
    }
  }

  /** The caller for a thread that brings {@code workers} (null: it may block). */
  Caller caller(Executor workers) {
    return workers == null ? MAY_BLOCK : callers(workers).ioThread;
  }

  /** The caller for one of {@code workers}' threads. */
  Caller onWorker(Executor workers) {
    return workers == null ? MAY_BLOCK : callers(workers).onWorker;
  }

  private Callers callers(Executor workers) {
    Callers c = last;
    if (c == null || c.workers != workers) {
      // An adapter brings one executor; a second one only replaces the cache.
      c =
          new Callers(
              workers,
              new Caller(workers, listenersNonBlocking ? null : workers),
              new Caller(workers, null));
      last = c;
    }
    return c;
  }

  /**
   * Where the listeners of a delivery from {@code caller} run: null for the calling thread, else
   * the executor to hand them to with {@link #handOff}.
   */
  Executor listeners(Caller caller) {
    return caller.listeners;
  }

  /**
   * Runs {@code work} on {@code executor} through the {@link HandOff}: 503 {@code busy} and the
   * claims released when no thread takes it within the queueing deadline.
   */
  CompletableFuture<WebhookResponse> handOff(
      Executor executor,
      long start,
      java.util.function.Supplier<CompletableFuture<WebhookResponse>> work,
      List<DedupGate.Claim> claims) {
    return handOff.run(executor, start, work, claims);
  }

  /** What follows a late claim runs listeners: it blocks unless they were declared non-blocking. */
  CompletableFuture<WebhookResponse> resumeListeners(
      Caller caller,
      CompletableFuture<List<DedupGate.Claim>> claimed,
      Function<List<DedupGate.Claim>, CompletableFuture<WebhookResponse>> rest,
      long start) {
    return resume(caller, claimed, !listenersNonBlocking, rest, start);
  }

  /** What follows a late claim stores in the inbox: it blocks when the inbox may. */
  CompletableFuture<WebhookResponse> resumeInbox(
      Caller caller,
      CompletableFuture<List<DedupGate.Claim>> claimed,
      Function<List<DedupGate.Claim>, CompletableFuture<WebhookResponse>> rest,
      long start) {
    return resume(caller, claimed, inboxMayBlock, rest, start);
  }

  /** What follows a late claim never blocks (queueing, answering): the store's thread does it. */
  CompletableFuture<WebhookResponse> resumeNonBlocking(
      CompletableFuture<List<DedupGate.Claim>> claimed,
      Function<List<DedupGate.Claim>, CompletableFuture<WebhookResponse>> rest,
      long start) {
    return resume(MAY_BLOCK, claimed, false, rest, start);
  }

  /**
   * Goes on with {@code rest} once the claims the store answered late are in: on the store's thread
   * when {@code rest} cannot block, else on the caller's worker (its owned claims released and 503
   * {@code busy} if none takes it in time), else on the caller's thread, which may block.
   */
  private CompletableFuture<WebhookResponse> resume(
      Caller caller,
      CompletableFuture<List<DedupGate.Claim>> claimed,
      boolean restMayBlock,
      Function<List<DedupGate.Claim>, CompletableFuture<WebhookResponse>> rest,
      long start) {
    if (!restMayBlock) {
      return claimed
          .thenCompose(rest)
          .exceptionally(failure -> answers.internalError(failure, start));
    }
    if (caller.workers != null) {
      // Never on the store client's thread: a listener or a blocking inbox would stall it.
      CompletableFuture<WebhookResponse> result = new CompletableFuture<>();
      claimed.thenAccept(
          claims ->
              handOff
                  .run(caller.workers, start, () -> rest.apply(claims), owners(claims))
                  .thenAccept(result::complete));
      return result;
    }
    // No executor: the caller's thread may block (handle's contract) and goes on itself.
    return rest.apply(claimed.join());
  }

  private static List<DedupGate.Claim> owners(List<DedupGate.Claim> claims) {
    List<DedupGate.Claim> owners = new ArrayList<>(claims.size());
    for (DedupGate.Claim claim : claims) {
      if (claim.kind() == DedupGate.Kind.OWNER) {
        owners.add(claim);
      }
    }
    return owners;
  }

  @Override
  public String toString() {
    return "ListenerThreads[listenersNonBlocking="
        + listenersNonBlocking
        + ", storeMayBlock="
        + storeMayBlock
        + "]";
  }
}
