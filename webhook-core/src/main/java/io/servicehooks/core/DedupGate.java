package io.servicehooks.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts the events this process is running in front of the {@link Deduplicator}: a duplicate that
 * arrives while its original is still running waits for the original's outcome instead of being
 * answered 200 early, and the store sees each event at most once per attempt.
 */
final class DedupGate {

  // Logs under the consumer's name, as before the split: users' log configuration names it.
  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);

  /** What a claim found. */
  enum Kind {
    /** The caller owns the event and must call {@link #succeeded} or {@link #failed}. */
    OWNER,
    /** The event was handled before (or is being handled by another process). */
    DONE,
    /** The event is running in this process now; {@link Claim#original()} completes with it. */
    IN_FLIGHT,
    /** The store could not be asked (logged): the event counts as failed and nobody owns it. */
    STORE_FAILED
  }

  /**
   * One claim's result. For {@link Kind#OWNER} {@code original} is the caller's own future; for
   * {@link Kind#IN_FLIGHT} it is the running original's, completing with {@code true} when its
   * listeners succeeded.
   */
  record Claim(Kind kind, String key, CompletableFuture<Boolean> original) {}

  private final Deduplicator store;
  private final ConcurrentMap<String, CompletableFuture<Boolean>> running =
      new ConcurrentHashMap<>();
  private final AtomicInteger waiting = new AtomicInteger();

  DedupGate(Deduplicator store) {
    this.store = store;
  }

  /** Claims the event; a store failure is logged and answered {@link Kind#STORE_FAILED}. */
  Claim claim(WebhookEvent event) {
    try {
      return claim(event.dedupKey());
    } catch (RuntimeException storeFailure) {
      log.error(
          "Dedup store failed for {} event {}",
          LogSafe.escape(event.type()),
          LogSafe.escape(event.id()),
          storeFailure);
      return new Claim(Kind.STORE_FAILED, event.dedupKey(), null);
    }
  }

  private Claim claim(String key) {
    CompletableFuture<Boolean> mine = new CompletableFuture<>();
    CompletableFuture<Boolean> existing = running.putIfAbsent(key, mine);
    if (existing != null) {
      return new Claim(Kind.IN_FLIGHT, key, existing);
    }
    boolean owned;
    try {
      owned = store.tryClaim(key);
    } catch (RuntimeException storeFailure) {
      running.remove(key, mine);
      mine.complete(false);
      throw storeFailure;
    }
    if (!owned) {
      running.remove(key, mine);
      mine.complete(true); // anyone who saw our placeholder learns it was already done
      return new Claim(Kind.DONE, key, mine);
    }
    return new Claim(Kind.OWNER, key, mine);
  }

  /** The owner's listeners succeeded: remember the event, then let waiting duplicates go. */
  void succeeded(Claim claim) {
    try {
      store.markDone(claim.key());
    } finally {
      running.remove(claim.key(), claim.original());
      claim.original().complete(true);
    }
  }

  /** The owner's listeners failed (or it was never run): forget the claim for a redelivery. */
  void failed(Claim claim) {
    try {
      store.release(claim.key());
    } finally {
      running.remove(claim.key(), claim.original());
      claim.original().complete(false);
    }
  }

  /**
   * For a duplicate that waits on its {@link Kind#IN_FLIGHT} original: {@code then} applied to the
   * original's outcome. The duplicate counts in {@link #waiting()} until the original ends.
   */
  <T> CompletableFuture<T> afterOriginal(Claim inFlight, Function<Boolean, T> then) {
    waiting.incrementAndGet();
    return inFlight
        .original()
        .thenApply(
            succeeded -> {
              waiting.decrementAndGet();
              return then.apply(succeeded);
            });
  }

  int running() {
    return running.size();
  }

  /** How many duplicates wait on an original running in this process now. */
  int waiting() {
    return waiting.get();
  }
}
