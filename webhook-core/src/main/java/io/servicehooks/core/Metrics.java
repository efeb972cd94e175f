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
}
