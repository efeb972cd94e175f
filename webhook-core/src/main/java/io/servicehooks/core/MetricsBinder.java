package io.servicehooks.core;

import com.github.benmanes.caffeine.cache.Cache;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * Attaches the consumer's meters to one metrics system. The builder holds a binder, never the
 * registry itself, so that only the Micrometer binder names Micrometer's types and the core runs
 * without Micrometer on the class path.
 */
interface MetricsBinder {

  /** Records nothing: the default when no registry was given. */
  MetricsBinder NONE =
      new MetricsBinder() {
        @Override
        public Metrics metrics(DedupGate gate) {
          return Metrics.NOOP;
        }

        @Override
        public void cache(String name, Cache<?, ?> cache, LongSupplier puts) {}
      };

  /**
   * The consumer's meters, and a gauge of the duplicates waiting at {@code gate} for their
   * original; called once, at build time. A {@code null} gate (durable mode, where the inbox is the
   * dedup) leaves out every dedup meter.
   */
  Metrics metrics(DedupGate gate);

  /**
   * Publishes a dedup store's Caffeine cache under {@code cache=name}: its size, the hits, misses
   * and evictions the cache's statistics hold, and {@code puts}, the entries the store wrote. Loads
   * are not published: the store never loads.
   */
  void cache(String name, Cache<?, ?> cache, LongSupplier puts);

  /**
   * Publishes when a CRC check was last answered, in seconds since the epoch (0: none yet), as
   * {@code webhook.crc.last.answered}; called once, at build time.
   */
  default void crcLastAnswered(DoubleSupplier epochSeconds) {}
}
