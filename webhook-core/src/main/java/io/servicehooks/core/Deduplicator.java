package io.servicehooks.core;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Remembers which events were handled, so that a redelivered event is acknowledged without running
 * its listeners again, and tells a copy whose original is still running (here or on another
 * instance) to wait. This is the SPI behind dedup: implement it to share the memory between
 * instances (webhook-redis, a database unique key), or use {@link #inMemory()}.
 *
 * <p>Protocol: the consumer calls {@link #claim} before running an event's listeners. When the
 * answer is {@link Claim.Status#CLAIMED}, it holds the key under the returned owner token for the
 * lease, calls {@link #renew} while listeners run past half of it, then exactly one of {@link
 * #markDone} (listeners succeeded) or {@link #release} (they failed, or the event could not be
 * queued). {@code markDone}, {@code release} and {@code renew} act only while the token still owns
 * the key, and answer {@code false} when it does not (the lease expired and the key was lost).
 *
 * <p>Every method is asynchronous: a network store completes the stage when its answer arrives, so
 * no worker thread waits on it; a store in memory returns a completed stage. A failed stage (or a
 * thrown exception) means the store could not be asked: the consumer answers 503 {@code
 * dedup_unavailable} and runs no listener (unless the consumer was built to fail open). Keys are
 * short opaque strings built by the consumer. Implementations must be thread-safe and {@code claim}
 * atomic.
 */
public interface Deduplicator {

  /** Default window: the platform replays at most 24 hours back. */
  Duration DEFAULT_WINDOW = Duration.ofHours(24);

  /** Default lease of a claim: how long a key stays claimed if its owner never ends it. */
  Duration DEFAULT_LEASE = Duration.ofSeconds(30);

  /** Default bound on remembered ids of the in-memory store. */
  long DEFAULT_MAX_ENTRIES = 1_000_000;

  /**
   * Atomically claims {@code key} for {@code lease}: {@link Claim.Status#CLAIMED} with a new owner
   * token, {@link Claim.Status#DONE} when the event was handled within the window, or {@link
   * Claim.Status#RUNNING_ELSEWHERE} when another owner holds a live claim.
   */
  CompletionStage<Claim> claim(String key, Duration lease);

  /**
   * Claims {@code key} for an event that has nothing to run (no listener) and, when the claim is
   * taken, remembers the event as handled in the same step: the answers are those of {@link
   * #claim}, but a {@link Claim.Status#CLAIMED} key is already done for the window and its token
   * needs no {@link #markDone}. The default claims, then marks done (two calls); a network store
   * overrides it with one round trip (webhook-redis's store does).
   *
   * @param lease the claim's lease, for a store that takes the key in two steps
   */
  default CompletionStage<Claim> claimDone(String key, Duration lease) {
    return claim(key, lease)
        .thenCompose(
            claim ->
                claim.status() != Claim.Status.CLAIMED
                    ? CompletableFuture.completedFuture(claim)
                    : markDone(key, claim.token()).thenApply(marked -> claim));
  }

  /**
   * The claimed event was handled: remember it for the window. Completes with {@code false} (and
   * changes nothing) when {@code token} no longer owns the key.
   */
  CompletionStage<Boolean> markDone(String key, String token);

  /**
   * The claimed event was not handled: forget the claim so a redelivery runs it again. Completes
   * with {@code false} (and changes nothing) when {@code token} no longer owns the key.
   */
  CompletionStage<Boolean> release(String key, String token);

  /**
   * Extends a live claim to {@code lease} from now. Completes with {@code false} when {@code token}
   * no longer owns the key.
   */
  CompletionStage<Boolean> renew(String key, String token, Duration lease);

  /**
   * Whether a call may block the calling thread (a synchronous driver, a lock, disk I/O). Adapters
   * then ask the store from a worker thread, never from a server's IO thread. Stores that only
   * touch memory return {@code false}, and so may asynchronous network clients whose calls return
   * at once and complete the stage when the answer arrives (webhook-redis's store does): they are
   * asked from the IO thread and no worker waits for them. Calls that do not answer at once are
   * timed in {@code webhook.dedup.store} either way.
   */
  default boolean mayBlock() {
    return true;
  }

  /**
   * In memory, remembering ids for 24 hours after they were last seen, at most one million of them.
   */
  static Deduplicator inMemory() {
    return inMemory(DEFAULT_WINDOW, DEFAULT_MAX_ENTRIES);
  }

  /**
   * In memory, in a table bounded by time and size.
   *
   * @param window how long a handled id is remembered
   * @param maxEntries how many ids at most; past it the least recently used are forgotten
   */
  static Deduplicator inMemory(Duration window, long maxEntries) {
    return new InMemoryDeduplicator(window, maxEntries, System::nanoTime);
  }

  /** No dedup at all: every event is handled every time it arrives. */
  static Deduplicator none() {
    return NoDeduplicator.INSTANCE;
  }

  /**
   * The answer to {@link #claim}: an immutable value.
   *
   * @param status what the claim found
   * @param token the owner token when {@link Status#CLAIMED}, else {@code null}
   * @param remainingLease for {@link Status#RUNNING_ELSEWHERE}, how long the other owner's lease
   *     still runs when known, else {@link Duration#ZERO}
   */
  record Claim(Status status, String token, Duration remainingLease) {

    /** What a claim found. */
    public enum Status {
      /** The caller owns the key under {@link Claim#token()}. */
      CLAIMED,
      /** The event was handled within the window. */
      DONE,
      /** Another owner holds a live claim; its outcome is not known yet. */
      RUNNING_ELSEWHERE
    }

    private static final Claim DONE_CLAIM = new Claim(Status.DONE, null, Duration.ZERO);

    /** Validates that a token is present exactly when the key was claimed. */
    public Claim {
      Objects.requireNonNull(status, "status");
      Objects.requireNonNull(remainingLease, "remainingLease");
      if ((status == Status.CLAIMED) != (token != null)) {
        throw new IllegalArgumentException("a token is given exactly when the key was claimed");
      }
    }

    /** The caller now owns the key under {@code token}. */
    public static Claim claimed(String token) {
      return new Claim(Status.CLAIMED, Objects.requireNonNull(token, "token"), Duration.ZERO);
    }

    /** The event was handled within the window. */
    public static Claim done() {
      return DONE_CLAIM;
    }

    /** Another owner holds the key for about {@code remainingLease} more. */
    public static Claim runningElsewhere(Duration remainingLease) {
      return new Claim(Status.RUNNING_ELSEWHERE, null, remainingLease);
    }
  }
}
