package io.servicehooks.benchmarks;

import java.util.List;

/**
 * {@code KafkaSource} as a contender of {@link KafkaSourceBench}: a {@code WebhookConsumer} in
 * durable mode whose inbox is the source, one listener counting events.
 */
final class KafkaSourceContender {

  static final String NAME = "KafkaSource (WebhookConsumer, durable)";

  private KafkaSourceContender() {}

  /** The source contender; none until webhook-kafka has its source. */
  static List<KafkaSourceBench.Contender> available() {
    return List.of();
  }
}
