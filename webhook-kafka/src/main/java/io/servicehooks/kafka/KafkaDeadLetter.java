package io.servicehooks.kafka;

import java.util.Objects;

/**
 * A record a {@link KafkaSource} gave up on: its listeners failed {@code attempts} times, so it was
 * written to the dead-letter topic (same key, value and headers, plus the reason headers) and the
 * source committed past it. Given to the {@link KafkaDeadLetterListener}s, for alerting or paging.
 *
 * @param eventId the event's id (the {@link KafkaHandOff#EVENT_ID_HEADER} header)
 * @param type the event's current type name
 * @param topic the topic the record was read from
 * @param partition its partition
 * @param offset its offset there
 * @param deadLetterTopic where it was written
 * @param attempts how many attempts failed
 * @param reason the last failure's class and message (truncated)
 */
public record KafkaDeadLetter(
    String eventId,
    String type,
    String topic,
    int partition,
    long offset,
    String deadLetterTopic,
    int attempts,
    String reason) {

  /** Checks the values. */
  public KafkaDeadLetter {
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(deadLetterTopic, "deadLetterTopic");
    Objects.requireNonNull(reason, "reason");
  }
}
