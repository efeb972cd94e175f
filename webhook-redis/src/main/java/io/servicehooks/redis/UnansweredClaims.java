package io.servicehooks.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releases claims whose call failed here (time-out, connection cut) but which Redis may still run,
 * or have run, once it catches up: its {@code SET NX} would then hold the key for a lease with no
 * owner, and the platform's retries would be answered 503 {@code in_flight} until it ends. The
 * token is this store's, so a release for it is sent at once: on the same connection it runs after
 * the claim, whatever the claim did. A release that fails too is retried every {@link
 * #UNANSWERED_RETRY} until it is answered or the lease would have ended the claim anyway.
 */
final class UnansweredClaims {

  private static final Logger LOG = LoggerFactory.getLogger(RedisDeduplicator.class);

  /** Pause between attempts to release claims whose answer never came. */
  static final Duration UNANSWERED_RETRY = Duration.ofMillis(500);

  /**
   * At most this many unanswered claims wait for their release; past it the lease ends the rest (a
   * long outage fails claims by the thousand, most never sent at all).
   */
  static final int MAX_UNANSWERED = 10_000;

  private final DedupScripts scripts;
  private final BooleanSupplier connectionOpen;
  private final AtomicBoolean closed;

  /** Claims that failed here but may have run on Redis, waiting for their release. */
  private final ConcurrentLinkedQueue<Unanswered> unanswered = new ConcurrentLinkedQueue<>();

  private final AtomicInteger unansweredCount = new AtomicInteger();
  private final AtomicBoolean releaseScheduled = new AtomicBoolean();

  UnansweredClaims(DedupScripts scripts, BooleanSupplier connectionOpen, AtomicBoolean closed) {
    this.scripts = scripts;
    this.connectionOpen = connectionOpen;
    this.closed = closed;
  }

  /** Sends a release for a claim whose call failed; retries it while its lease could still hold. */
  void release(String redisKey, String token, long leaseMillis) {
    releaseUnanswered(Unanswered.of(redisKey, token, leaseMillis));
  }

  private record Unanswered(String redisKey, String token, long deadlineNanos) {
    static Unanswered of(String redisKey, String token, long leaseMillis) {
      return new Unanswered(
          redisKey, token, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis));
    }
  }

  private void releaseUnanswered(Unanswered claim) {
    if (closed.get()) {
      return;
    }
    CompletableFuture<Long> release;
    try {
      release = scripts.release(claim.redisKey(), claim.token());
    } catch (RuntimeException e) {
      release = CompletableFuture.failedFuture(e);
    }
    release.whenComplete(
        (n, failure) -> {
          if (failure == null) {
            if (n != null && n == 1L) {
              LOG.debug(
                  "Released the claim on {} that Redis took after its caller gave up",
                  RedisDeduplicator.printable(claim.redisKey()));
            }
            return;
          }
          retryLater(claim);
        });
  }

  private void retryLater(Unanswered claim) {
    if (closed.get() || System.nanoTime() - claim.deadlineNanos() >= 0) {
      return; // the lease has ended the claim, if it ever ran
    }
    if (unansweredCount.incrementAndGet() > MAX_UNANSWERED) {
      unansweredCount.decrementAndGet();
      return;
    }
    unanswered.add(claim);
    if (releaseScheduled.compareAndSet(false, true)) {
      CompletableFuture.delayedExecutor(UNANSWERED_RETRY.toMillis(), TimeUnit.MILLISECONDS)
          .execute(this::releaseWaiting);
    }
  }

  private void releaseWaiting() {
    releaseScheduled.set(false);
    if (closed.get()) {
      return;
    }
    if (!connectionOpen.getAsBoolean()) {
      // Every release would be rejected at once: wait for the reconnect instead.
      if (releaseScheduled.compareAndSet(false, true)) {
        CompletableFuture.delayedExecutor(UNANSWERED_RETRY.toMillis(), TimeUnit.MILLISECONDS)
            .execute(this::releaseWaiting);
      }
      return;
    }
    for (int n = unansweredCount.get(); n > 0; n--) {
      Unanswered claim = unanswered.poll();
      if (claim == null) {
        break;
      }
      unansweredCount.decrementAndGet();
      releaseUnanswered(claim);
    }
  }
}
