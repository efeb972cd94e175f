package io.servicehooks.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code servicehooks.webhook.stream.*} settings: with {@code enabled=true} (and {@code
 * webhook-stream} on the class path) the consumer also receives the platform's activity stream, see
 * {@link io.servicehooks.stream.ActivityStream}.
 */
@ConfigurationProperties("servicehooks.webhook.stream")
public class StreamProperties {

  /** Receive the activity stream into the consumer. */
  private boolean enabled;

  /** The most minutes a reconnect asks again (backfill_minutes), 1 to 5 (0 is refused). */
  private int backfillMinutes = 5;

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public int getBackfillMinutes() {
    return backfillMinutes;
  }

  public void setBackfillMinutes(int backfillMinutes) {
    this.backfillMinutes = backfillMinutes;
  }

  @Override
  public String toString() {
    return "StreamProperties[enabled=" + enabled + ", backfillMinutes=" + backfillMinutes + "]";
  }
}
