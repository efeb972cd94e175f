package io.servicehooks.kafka;

/**
 * What the hand-off records. On Micrometer when the builder got a registry, a no-op otherwise, so
 * the module runs without Micrometer on the class path.
 */
interface HandOffMeters {

  HandOffMeters NONE = new HandOffMeters() {};

  /** A record was given to the producer: one more in flight. */
  default void sending() {}

  /**
   * A record's send ended after {@code nanos}: {@code acked}, {@code failed} or {@code timeout}.
   * One fewer in flight.
   */
  default void sent(String outcome, long nanos) {}
}
