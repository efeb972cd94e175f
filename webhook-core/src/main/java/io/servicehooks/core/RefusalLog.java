package io.servicehooks.core;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * WARN lines for refusals of requests nobody authenticated: anyone who can reach the webhook can
 * cause them, so each reason logs at most one line per interval, and the next line it logs says how
 * many were left out. The meters still count every refusal. A count left out just before the
 * refusals stop is not logged; the meters have it.
 */
final class RefusalLog {

  /** What was refused; each reason has its own interval. */
  enum Reason {
    MISSING_SIGNATURE,
    MALFORMED_SIGNATURE,
    SIGNATURE_MISMATCH,
    TOO_LARGE,
    UNREADABLE,
    CRC_TOKEN_MISSING,
    CRC_TOKEN_INVALID
  }

  // Logs under the consumer's name, as the other steps do: users' log configuration names it.
  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);

  private final LongSupplier nanoTicker;
  private final long intervalNanos;
  private final Window[] windows = new Window[Reason.values().length];

  /**
   * @param nanoTicker the time in nanoseconds from an arbitrary origin, as {@link System#nanoTime}
   * @param interval at most one line per reason in this interval; zero logs every refusal
   */
  RefusalLog(LongSupplier nanoTicker, Duration interval) {
    this.nanoTicker = nanoTicker;
    this.intervalNanos = interval.toNanos();
    long now = nanoTicker.getAsLong();
    for (int i = 0; i < windows.length; i++) {
      windows[i] = new Window(now);
    }
  }

  /** Logs {@code message} at WARN unless {@code reason} logged within the interval. */
  void warn(Reason reason, String message) {
    if (!log.isWarnEnabled()) {
      return;
    }
    Window w = windows[reason.ordinal()];
    long now = nanoTicker.getAsLong();
    long next = w.next.get();
    if (now - next < 0 || !w.next.compareAndSet(next, now + intervalNanos)) {
      w.suppressed.increment();
      return;
    }
    long suppressed = w.suppressed.sumThenReset();
    if (suppressed == 0) {
      log.warn(message);
    } else {
      log.warn("{} ({} similar refusals suppressed)", message, suppressed);
    }
  }

  private static final class Window {
    final AtomicLong next; // nanoTicker value from which the reason may log again
    final LongAdder suppressed = new LongAdder();

    Window(long now) {
      this.next = new AtomicLong(now);
    }
  }

  @Override
  public String toString() {
    return "RefusalLog[interval=" + Duration.ofNanos(intervalNanos) + "]";
  }
}
