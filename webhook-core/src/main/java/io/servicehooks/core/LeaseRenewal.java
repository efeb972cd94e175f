package io.servicehooks.core;

import java.time.Duration;
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
 * Keeps the leases of the events this process owns: a sweep every quarter lease renews each owner
 * that has held its claim past half of it, and a store that no longer holds a claim is told apart
 * as a lease run out or a key the store lost.
 */
final class LeaseRenewal {

  // Logs under the consumer's name, as before the split: users' log configuration names it.
  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);

  private final DedupStoreCalls calls;
  private final RunningEvents running;
  private final Duration lease;
  private final long halfLeaseNanos;
  private final long sweepNanos;
  private final ScheduledExecutorService scheduler;
  private final LongSupplier leaseTicker;
  private final AtomicBoolean sweepScheduled = new AtomicBoolean();

  LeaseRenewal(
      DedupStoreCalls calls,
      RunningEvents running,
      Duration lease,
      ScheduledExecutorService scheduler,
      LongSupplier leaseTicker) {
    this.calls = calls;
    this.running = running;
    this.lease = lease;
    this.halfLeaseNanos = lease.toNanos() / 2;
    this.sweepNanos = Math.max(1, lease.toNanos() / 4);
    this.scheduler = scheduler;
    this.leaseTicker = leaseTicker;
  }

  Duration lease() {
    return lease;
  }

  /** The lease clock's reading when a store call is sent. */
  long tick() {
    return leaseTicker.getAsLong();
  }

  /** {@code r} was claimed with {@code token} by a call sent at {@code sent}: renew it from now. */
  void claimed(DedupGate.Running r, String token, long sent) {
    r.claimedAt = sent;
    r.leaseSure = sent + lease.toNanos();
    r.renewAt = System.nanoTime() + halfLeaseNanos;
    r.token = token;
    r.owned = true;
    scheduleSweep();
  }

  /**
   * The store answered that {@code r}'s token no longer holds its key. When the question was sent
   * while the lease certainly still ran, the store lost the key (evicted, or its data lost in a
   * restart or fail-over): a slow listener is not to blame. Otherwise the lease ran out. Counted
   * once per event, at its mark (a lost renewal is followed by a mark that finds the key lost too).
   */
  void claimNotHeld(DedupGate.Running r, long sent, String when, boolean count) {
    long held = Math.max(0, sent - r.claimedAt);
    if (sent - r.leaseSure < 0) {
      if (count) {
        calls.metrics().claimLost();
      }
      log.warn(
          "Dedup store no longer held the claim on {} when it was {}, although its lease still ran"
              + " (held {} ms of {}): the store lost the key (Redis: an eviction policy other than"
              + " noeviction, a restart without persistence, a fail-over); a copy may run the"
              + " event again",
          LogSafe.escape(r.key),
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
          LogSafe.escape(r.key),
          TimeUnit.NANOSECONDS.toMillis(held),
          lease);
    }
  }

  /** Makes sure a sweep that renews long-running owners' leases is due while any runs. */
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
   * Renews the lease of every owner that has held its claim past half of it; runs every quarter
   * lease while this process owns events, and stops when it owns none.
   */
  private void sweep() {
    long now = System.nanoTime();
    for (DedupGate.Running r : running.all()) {
      String token = r.token;
      if (token != null && now - r.renewAt >= 0) {
        r.renewAt = now + halfLeaseNanos;
        renew(r, token);
      }
    }
    sweepScheduled.set(false);
    if (!running.isEmpty()) {
      scheduleSweep();
    }
  }

  private void renew(DedupGate.Running r, String token) {
    try {
      long sent = leaseTicker.getAsLong();
      long begin = calls.begin();
      CompletionStage<Boolean> stage;
      try {
        stage = calls.store.renew(r.key, token, lease);
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
                      LogSafe.escape(r.key),
                      DedupStoreCalls.unwrap(failure));
                } else if (Boolean.TRUE.equals(ok)) {
                  r.leaseSure = sent + lease.toNanos();
                } else if (r.token != null) {
                  claimNotHeld(r, sent, "renewed", false);
                }
              });
    } catch (RuntimeException | Error unexpected) {
      log.warn("Dedup store failed to renew the lease on {}", LogSafe.escape(r.key), unexpected);
      if (unexpected instanceof VirtualMachineError vmError) {
        throw vmError;
      }
    }
  }
}
