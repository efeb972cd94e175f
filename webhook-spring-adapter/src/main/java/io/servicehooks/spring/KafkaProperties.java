package io.servicehooks.spring;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code servicehooks.webhook.kafka.*} settings, what is ours of Kafka: with {@code topic} set
 * (and {@code webhook-kafka} on the class path) the application either hands every verified event
 * to that topic instead of running listeners ({@code role=edge}, the default), or serves no webhook
 * and runs its listeners from that topic in a consumer group ({@code role=reader}). Where the
 * brokers are and how to reach them is Spring Boot's {@code spring.kafka.*}, as Boot users set it
 * ({@code spring.kafka.bootstrap-servers}, {@code spring.kafka.security.protocol}, {@code
 * spring.kafka.properties.*}, {@code spring.kafka.producer.*}, {@code spring.kafka.consumer.*}...).
 */
@ConfigurationProperties("servicehooks.webhook.kafka")
public class KafkaProperties {

  static final String PREFIX = "servicehooks.webhook.kafka";
  static final String TOPIC = PREFIX + ".topic";
  static final String ROLE = PREFIX + ".role";

  /** What this application does with the topic. */
  public enum Role {
    /** Serve the webhook and hand every verified event to the topic. */
    EDGE,
    /** Serve no webhook: run the listeners from the topic, as a member of the consumer group. */
    READER
  }

  /** The topic every event is handed to (edge) or read from (reader); unset, no Kafka. */
  private String topic;

  /**
   * edge: serve the webhook and hand every event to the topic; reader: serve no webhook and run the
   * listeners from the topic in a consumer group.
   */
  private Role role = Role.EDGE;

  /**
   * Reader: the consumer group. Unset: spring.kafka.consumer.group-id, else "servicehooks" (the
   * standalone consumer's default).
   */
  private String groupId;

  /** Reader: where an event goes after max-attempts failed attempts. Unset: the topic + ".dead". */
  private String deadLetterTopic;

  /** Reader: attempts at an event's listeners before it goes to the dead-letter topic. */
  private int maxAttempts = 10;

  /** Reader: delay after the first failed attempt; it doubles per attempt up to five minutes. */
  private Duration backoffBase = Duration.ofSeconds(2);

  /** Reader: threads running listeners; a partition runs on at most one at a time. */
  private int workers = 4;

  /**
   * Edge: how long a delivery waits for the brokers' acknowledgements before it is answered 503 (at
   * least 1 s; keep it well below the platform's 10 s).
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

  public Role getRole() {
    return role;
  }

  public void setRole(Role role) {
    this.role = role;
  }

  public String getGroupId() {
    return groupId;
  }

  public void setGroupId(String groupId) {
    this.groupId = groupId;
  }

  public String getDeadLetterTopic() {
    return deadLetterTopic;
  }

  public void setDeadLetterTopic(String deadLetterTopic) {
    this.deadLetterTopic = deadLetterTopic;
  }

  public int getMaxAttempts() {
    return maxAttempts;
  }

  public void setMaxAttempts(int maxAttempts) {
    this.maxAttempts = maxAttempts;
  }

  public Duration getBackoffBase() {
    return backoffBase;
  }

  public void setBackoffBase(Duration backoffBase) {
    this.backoffBase = backoffBase;
  }

  public int getWorkers() {
    return workers;
  }

  public void setWorkers(int workers) {
    this.workers = workers;
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
        + ", role="
        + role
        + ", groupId="
        + groupId
        + ", deadLetterTopic="
        + deadLetterTopic
        + ", maxAttempts="
        + maxAttempts
        + ", backoffBase="
        + backoffBase
        + ", workers="
        + workers
        + ", sendTimeout="
        + sendTimeout
        + ", startupTimeout="
        + startupTimeout
        + ", readiness="
        + readiness
        + "]";
  }

  /**
   * Whether the environment asks for the reader role ({@code servicehooks.webhook.kafka.role},
   * compared as Spring's property conditions compare, ignoring case). Read before binding, by the
   * conditions that leave the webhook unserved.
   */
  static boolean reader(org.springframework.core.env.Environment env) {
    return Role.READER.name().equalsIgnoreCase(env.getProperty(ROLE, "").strip());
  }
}
