package io.servicehooks.kafka;

/**
 * What a {@link KafkaSource} records about the records it reads: one count per outcome ({@link
 * #HANDLED}, {@link #DUPLICATE}, {@link #RETRIED}, {@link #DEAD_LETTERED}). Without a registry
 * nothing is recorded and Micrometer need not be present.
 */
interface SourceMeters {

  String HANDLED = "handled";
  String DUPLICATE = "duplicate";
  String RETRIED = "retried";
  String DEAD_LETTERED = "dead_lettered";

  SourceMeters NONE = outcome -> {};

  /** One record (or one failed attempt at it, for {@link #RETRIED}) had this outcome. */
  void record(String outcome);
}
