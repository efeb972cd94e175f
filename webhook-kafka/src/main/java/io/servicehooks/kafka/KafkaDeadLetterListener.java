package io.servicehooks.kafka;

/**
 * Called once each time a {@link KafkaSource} writes a record to its dead-letter topic ({@link
 * KafkaSource.Builder#onDeadLetter}), for alerting or paging. It runs on the source's worker after
 * the brokers acknowledged the dead letter and before the offset is committed past it: keep it
 * quick and hand slow work to an executor of your own. What it throws is logged and otherwise
 * ignored.
 */
@FunctionalInterface
public interface KafkaDeadLetterListener {

  /** A record has just been written to the dead-letter topic. */
  void deadLettered(KafkaDeadLetter letter);
}
