package io.servicehooks.catchup;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the consumer's answers, since the heartbeat means "answered 2xx", not "the process runs":
 * a delivery answered 5xx (the dedup store or the inbox down) was not taken, and when nothing but
 * refusals comes for longer than the gap threshold, that period is downtime to replay once a
 * delivery is answered 2xx again. Called from delivery threads.
 */
final class RefusedDeliveries {

  private static final Logger log = LoggerFactory.getLogger(CatchUp.class);

  private final DowntimeWindow window;
  private final Supplier<Instant> clock;

  // Epoch milliseconds of the first refused delivery (5xx) since the last one answered 2xx; 0 while
  // deliveries are answered. Written by delivery threads, read mostly.
  private final AtomicLong refusingSince = new AtomicLong();

  // The start of a period when every delivery was refused, longer than the gap threshold, that has
  // not been replayed yet; null when there is none.
  private final AtomicReference<Instant> refusalGap = new AtomicReference<>();

  RefusedDeliveries(DowntimeWindow window, Supplier<Instant> clock) {
    this.window = window;
    this.clock = clock;
  }

  /** One answer of the consumer's, by its HTTP status. */
  void answered(int status) {
    if (status >= 200 && status < 300) {
      if (refusingSince.get() != 0) {
        long since = refusingSince.getAndSet(0);
        if (since != 0) {
          Instant from = Instant.ofEpochMilli(since);
          Instant now = clock.get();
          if (window.gap(from, now)) {
            refusalGap.accumulateAndGet(from, (a, b) -> a == null || b.isBefore(a) ? b : a);
            log.warn(
                "Catch-up: every delivery was refused from {} to {}; that period is replayed",
                from,
                now);
          }
        }
      }
    } else if (status >= 500 && refusingSince.get() == 0) {
      refusingSince.compareAndSet(0, clock.get().toEpochMilli());
    }
  }

  /** Epoch milliseconds since when every delivery was refused, or 0 while they are answered. */
  long refusingSince() {
    return refusingSince.get();
  }

  /** The start of a refused period not yet replayed, or {@code null}. */
  Instant gapStart() {
    return refusalGap.get();
  }

  /** A replay from {@code since} was recorded: a refused period it covers is healed. */
  void covered(Instant since) {
    refusalGap.getAndUpdate(g -> g != null && !g.isBefore(since) ? null : g);
  }
}
