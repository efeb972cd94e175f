package io.servicehooks.core;

import java.util.function.DoubleSupplier;

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
        public void cache(String name, InMemoryDeduplicator store) {}
      };

  /**
   * The consumer's meters, and a gauge of the duplicates waiting at {@code gate} for their
   * original; called once, at build time. A {@code null} gate (durable mode, where the inbox is the
   * dedup) leaves out every dedup meter.
   */
  Metrics metrics(DedupGate gate);

  /**
   * Publishes the in-memory dedup store under {@code cache=name} as a cache: its size, hits,
   * misses, evictions and puts, the entries it wrote. Loads are not published: the store never
   * loads.
   */
  void cache(String name, InMemoryDeduplicator store);

  /**
   * Publishes when a CRC check was last answered, in seconds since the epoch (0: none yet), as
   * {@code webhook.crc.last.answered}; called once, at build time.
   */
  default void crcLastAnswered(DoubleSupplier epochSeconds) {}
}
