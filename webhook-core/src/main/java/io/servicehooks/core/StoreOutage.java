package io.servicehooks.core;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs a dedup store outage as the inbox logs a database outage: one WARN (with the one stack
 * trace) when the first call fails, one INFO when a call works again, DEBUG in between. Each
 * refused delivery had logged an ERROR with its stack trace: five deliveries during a Redis cut
 * made 190 lines. The meters ({@code webhook.dedup.store}, {@code webhook.deliveries}) count every
 * failure.
 */
final class StoreOutage {

  // Logs under the consumer's name, as the other steps do: users' log configuration names it.
  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);

  private final AtomicBoolean down = new AtomicBoolean();
  private final LongAdder failures = new LongAdder();

  /**
   * A call failed.
   *
   * @param consequence what happens to the deliveries meanwhile, e.g. "answering 503
   *     dedup_unavailable"
   */
  void failed(String operation, String consequence, Throwable cause) {
    failures.increment();
    if (down.compareAndSet(false, true)) {
      log.warn(
          "Dedup store failed ({}); {} until it answers again (one line when it does; failures"
              + " counted in webhook.dedup.store)",
          operation,
          consequence,
          cause);
    } else if (log.isDebugEnabled()) {
      log.debug("Dedup store failed again ({}): {}", operation, String.valueOf(cause));
    }
  }

  /** A call worked: ends the outage, if there was one. */
  void worked() {
    if (down.get() && down.compareAndSet(true, false)) {
      log.info("Dedup store answers again after {} failed calls", failures.sumThenReset());
    }
  }

  boolean down() {
    return down.get();
  }
}
