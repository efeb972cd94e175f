package io.servicehooks.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * The {@code servicehooks.webhook.*} settings of the auto-configured webhook endpoint. Setting
 * {@code servicehooks.webhook.consumer-secrets} is what switches the endpoint on.
 */
@ConfigurationProperties("servicehooks.webhook")
public class WebhookProperties {

  /**
   * The app's consumer secrets (comma-separated or a list). The first is current and signs CRC
   * answers; the others are still accepted on deliveries, for rotation.
   */
  private List<String> consumerSecrets = new ArrayList<>();

  /** Path of the webhook endpoint, matched exactly. */
  private String path = "/webhooks";

  /** Largest delivery body accepted; larger ones are answered 413. */
  private DataSize maxBodySize = DataSize.ofMegabytes(1);

  private final Dedup dedup = new Dedup();

  private final Acknowledgement acknowledgement = new Acknowledgement();

  public List<String> getConsumerSecrets() {
    return consumerSecrets;
  }

  public void setConsumerSecrets(List<String> consumerSecrets) {
    this.consumerSecrets = consumerSecrets;
  }

  public String getPath() {
    return path;
  }

  public void setPath(String path) {
    this.path = path;
  }

  public DataSize getMaxBodySize() {
    return maxBodySize;
  }

  public void setMaxBodySize(DataSize maxBodySize) {
    this.maxBodySize = maxBodySize;
  }

  public Dedup getDedup() {
    return dedup;
  }

  public Acknowledgement getAcknowledgement() {
    return acknowledgement;
  }

  @Override
  public String toString() {
    // Never the secrets themselves.
    return "WebhookProperties[consumerSecrets="
        + (consumerSecrets == null ? 0 : consumerSecrets.size())
        + ", path="
        + path
        + ", maxBodySize="
        + maxBodySize
        + ", dedupWindow="
        + dedup.window
        + ", dedupMaxEntries="
        + dedup.maxEntries
        + ", acknowledgement="
        + acknowledgement.mode
        + "]";
  }

  /** How long and how many handled event ids the in-memory dedup store remembers. */
  public static class Dedup {

    /** How long a handled event id is remembered; the platform replays at most 24 hours back. */
    private Duration window = Duration.ofHours(24);

    /** How many event ids are remembered at most. */
    private long maxEntries = 1_000_000;

    public Duration getWindow() {
      return window;
    }

    public void setWindow(Duration window) {
      this.window = window;
    }

    public long getMaxEntries() {
      return maxEntries;
    }

    public void setMaxEntries(long maxEntries) {
      this.maxEntries = maxEntries;
    }
  }

  /** When deliveries are answered relative to running their listeners. */
  public static class Acknowledgement {

    /**
     * SYNCHRONOUS answers after the listeners ran (500 when one threw, so the platform retries);
     * ASYNCHRONOUS answers once the events are queued and runs listeners on the consumer's threads.
     */
    private io.servicehooks.core.Acknowledgement mode =
        io.servicehooks.core.Acknowledgement.SYNCHRONOUS;

    /** Asynchronous mode: how many deliveries may wait; past it deliveries are answered 503. */
    private int queueCapacity = 10_000;

    /** Asynchronous mode: how many threads run listeners. */
    private int threads = 2;

    /** Asynchronous mode: how long shutdown waits for queued deliveries. */
    private Duration drainTimeout = Duration.ofSeconds(30);

    public io.servicehooks.core.Acknowledgement getMode() {
      return mode;
    }

    public void setMode(io.servicehooks.core.Acknowledgement mode) {
      this.mode = mode;
    }

    public int getQueueCapacity() {
      return queueCapacity;
    }

    public void setQueueCapacity(int queueCapacity) {
      this.queueCapacity = queueCapacity;
    }

    public int getThreads() {
      return threads;
    }

    public void setThreads(int threads) {
      this.threads = threads;
    }

    public Duration getDrainTimeout() {
      return drainTimeout;
    }

    public void setDrainTimeout(Duration drainTimeout) {
      this.drainTimeout = drainTimeout;
    }
  }
}
