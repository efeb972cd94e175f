package io.servicehooks.spring;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code servicehooks.webhook.kafka.*} settings, what is ours of the hand-off to Kafka: with
 * {@code topic} set (and {@code webhook-kafka} on the class path) every verified event goes to that
 * topic instead of running listeners. Where the brokers are and how to reach them is Spring Boot's
 * {@code spring.kafka.*}, as Boot users set it ({@code spring.kafka.bootstrap-servers}, {@code
 * spring.kafka.security.protocol}, {@code spring.kafka.properties.*}, {@code
 * spring.kafka.producer.properties.*}...).
 */
@ConfigurationProperties("servicehooks.webhook.kafka")
public class KafkaProperties {

  /** The topic every event is handed to; unset, nothing goes to Kafka. */
  private String topic;

  /**
   * How long a delivery waits for the brokers' acknowledgements before it is answered 503 (at least
   * 1 s; keep it well below the platform's 10 s).
   */
  private Duration sendTimeout = Duration.ofSeconds(5);

  /** How long start-up waits for a broker to answer before it fails with a failure analysis. */
  private Duration startupTimeout = Duration.ofSeconds(10);

  /** Put the webhookKafka health in Boot's readiness group, when there is one. */
  private boolean readiness = true;

  public String getTopic() {
    return topic;
  }

  public void setTopic(String topic) {
    this.topic = topic;
  }

  public Duration getSendTimeout() {
    return sendTimeout;
  }

  public void setSendTimeout(Duration sendTimeout) {
    this.sendTimeout = sendTimeout;
  }

  public Duration getStartupTimeout() {
    return startupTimeout;
  }

  public void setStartupTimeout(Duration startupTimeout) {
    this.startupTimeout = startupTimeout;
  }

  public boolean isReadiness() {
    return readiness;
  }

  public void setReadiness(boolean readiness) {
    this.readiness = readiness;
  }

  @Override
  public String toString() {
    return "KafkaProperties[topic="
        + topic
        + ", sendTimeout="
        + sendTimeout
        + ", startupTimeout="
        + startupTimeout
        + ", readiness="
        + readiness
        + "]";
  }
}
