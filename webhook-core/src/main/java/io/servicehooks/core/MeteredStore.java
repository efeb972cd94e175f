package io.servicehooks.core;

/**
 * A dedup store with statistics of its own, which it publishes through the consumer's {@link
 * MetricsBinder} when the consumer records metrics.
 */
interface MeteredStore {

  void bindTo(MetricsBinder binder);
}
