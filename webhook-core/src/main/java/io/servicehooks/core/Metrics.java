package io.servicehooks.core;

/**
 * What the consumer records. Implemented on Micrometer when the user gives a registry, and as a
 * no-op otherwise, so the core runs without Micrometer on the class path.
 */
interface Metrics {

  Metrics NOOP = new Metrics() {};

  default void delivery(String outcome, long nanos) {}

  default void event(String type, String outcome) {}

  default void crc(String outcome) {}

  /** One call to a dedup store that may block: {@code webhook.dedup.store}. */
  default void storeCall(String operation, String outcome, long nanos) {}

  /**
   * A claim found its event running on another instance: {@code webhook.dedup.running.elsewhere}.
   */
  default void runningElsewhere() {}

  /**
   * An owner's lease ran out before its event was marked done: {@code webhook.dedup.lease.expired}.
   */
  default void leaseExpired() {}

  /**
   * A store no longer held an owner's claim while its lease certainly still ran (evicted, or the
   * store lost data): {@code webhook.dedup.claim.lost}.
   */
  default void claimLost() {}

  /** An event run without dedup because the store failed: {@code webhook.dedup.fail.open}. */
  default void failOpen() {}
}
