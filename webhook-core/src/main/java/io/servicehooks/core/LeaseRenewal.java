package io.servicehooks.core;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the leases of the claims this process holds: a sweep every quarter lease renews each lease
 * held past half of it, and a store that no longer holds a claim is told apart as a lease run out
 * or a key the store lost.
 *
 * <p>It knows leases only: it sweeps the collection it was given, writes nothing but the {@link
 * Lease} fields it declares, and never calls the one who holds the claims.
 */
final class LeaseRenewal {

  // Logs under the consumer's name: users' log configuration names it.
  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);

  /**
   * One claim's lease at the store: its key, the owner token while the lease is held, and the clock
   * readings that decide when it is renewed and whether a lost claim was the store's doing. Every
   * field is written by {@link LeaseRenewal} alone. Not final: the record a claimer keeps for an
   * event extends it, so an event and its lease are one object.
   */
  static class Lease {
    final String key;

    /** The store's owner token from {@link #held} to {@link #stop}; null otherwise. */
    private volatile String token;

    /** The lease clock's reading from which the lease is renewed. */
    private volatile long renewAt;

    /**
     * The lease clock's reading before which the store certainly still holds the claim: the lease
     * from the moment the last successful claim or renewal was sent.
     */
    private volatile long leaseSure;

    /** The lease clock's reading when the claim was sent. */
    private volatile long claimedAt;

    Lease(String key) {
      this.key = key;
    }
  }

  private final DedupStoreCalls calls;
  private final Collection<? extends Lease> leases;
  private final Duration lease;
  private final long halfLeaseNanos;
  private final long sweepNanos;
  private final ScheduledExecutorService scheduler;
  private final LongSupplier leaseTicker;
  private final AtomicBoolean sweepScheduled = new AtomicBoolean();

  /**
   * @param leases what the sweep walks: a live view of the claimer's records; a record without a
   *     token is skipped, and the sweep stops once the view is empty
   */
  LeaseRenewal(
      DedupStoreCalls calls,
      Collection<? extends Lease> leases,
      Duration lease,
      ScheduledExecutorService scheduler,
      LongSupplier leaseTicker) {
    this.calls = calls;
    this.leases = leases;
    this.lease = lease;
    this.halfLeaseNanos = lease.toNanos() / 2;
    this.sweepNanos = Math.max(1, lease.toNanos() / 4);
    this.scheduler = scheduler;
    this.leaseTicker = leaseTicker;
  }

  Duration lease() {
    return lease;
  }

  /** The lease clock's reading now: when a store call is sent, when a copy's wait runs out. */
  long tick() {
    return leaseTicker.getAsLong();
  }

  /**
   * {@code l} was claimed with {@code token} by a call sent at {@code sent}: renewed once half the
   * lease has passed since then (the store's lease began no earlier).
   */
  void held(Lease l, String token, long sent) {
    l.claimedAt = sent;
    l.leaseSure = sent + lease.toNanos();
    l.renewAt = sent + halfLeaseNanos;
    // Last: the sweep renews a lease once it sees its token, and then reads the fields above.
    l.token = token;
    scheduleSweep();
  }

  /**
   * Stops renewing {@code l} and hands its token over (to mark the key done or release it): a
   * second call, or one for a lease never held, answers null. Not atomic: a lease is stopped from
   * one thread at a time (the sweep only reads the token).
   */
  String stop(Lease l) {
    String token = l.token;
    if (token != null) {
      l.token = null;
    }
    return token;
  }

  /**
   * The store answered that {@code l}'s token no longer holds its key. When the question was sent
   * while the lease certainly still ran, the store lost the key (evicted, or its data lost in a
   * restart or fail-over): a slow listener is not to blame. Otherwise the lease ran out. Counted
   * once per event, at its mark (a lost renewal is followed by a mark that finds the key lost too).
   */
  void claimNotHeld(Lease l, long sent, String when, boolean count) {
    long held = Math.max(0, sent - l.claimedAt);
    if (sent - l.leaseSure < 0) {
      if (count) {
        calls.metrics().claimLost();
      }
      log.warn(
          "Dedup store no longer held the claim on {} when it was {}, although its lease still ran"
              + " (held {} ms of {}): the store lost the key (Redis: an eviction policy other than"
              + " noeviction, a restart without persistence, a fail-over); a copy may run the"
              + " event again",
          LogSafe.escape(l.key),
          when,
          TimeUnit.NANOSECONDS.toMillis(held),
          lease);
    } else {
      if (count) {
        calls.metrics().leaseExpired();
      }
      log.warn(
          "Dedup lease on {} ran out before its listeners finished (held {} ms, lease {}): another"
              + " copy may have run it too",
          LogSafe.escape(l.key),
          TimeUnit.NANOSECONDS.toMillis(held),
          lease);
    }
  }

  /** Makes sure a sweep that renews long-held leases is due while any record is in the view. */
  private void scheduleSweep() {
    if (!sweepScheduled.get() && sweepScheduled.compareAndSet(false, true)) {
      try {
        scheduler.schedule(this::sweep, sweepNanos, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException stopped) {
        sweepScheduled.set(false);
      }
    }
  }

  /**
   * Renews every lease held past half of it; runs every quarter lease while the view holds records,
   * and stops when it holds none.
   */
  private void sweep() {
    long now = leaseTicker.getAsLong();
    for (Lease l : leases) {
      String token = l.token;
      if (token != null && now - l.renewAt >= 0) {
        l.renewAt = now + halfLeaseNanos;
        renew(l, token);
      }
    }
    sweepScheduled.set(false);
    if (!leases.isEmpty()) {
      scheduleSweep();
    }
  }

  private void renew(Lease l, String token) {
    try {
      long sent = leaseTicker.getAsLong();
      long begin = calls.begin();
      CompletionStage<Boolean> stage;
      try {
        stage = calls.store.renew(l.key, token, lease);
      } catch (RuntimeException thrown) {
        stage = CompletableFuture.failedFuture(thrown);
      }
      calls
          .bounded("renew", begin, stage)
          .whenComplete(
              (ok, failure) -> {
                if (failure != null) {
                  log.warn(
                      "Dedup store failed to renew the lease on {}",
                      LogSafe.escape(l.key),
                      DedupStoreCalls.unwrap(failure));
                } else if (Boolean.TRUE.equals(ok)) {
                  l.leaseSure = sent + lease.toNanos();
                } else if (l.token != null) {
                  // Not when the lease was stopped meanwhile: the key was marked done or released.
                  claimNotHeld(l, sent, "renewed", false);
                }
              });
    } catch (RuntimeException | Error unexpected) {
      log.warn("Dedup store failed to renew the lease on {}", LogSafe.escape(l.key), unexpected);
      if (unexpected instanceof VirtualMachineError vmError) {
        throw vmError;
      }
    }
  }
}
