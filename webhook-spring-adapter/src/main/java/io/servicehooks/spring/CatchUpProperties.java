package io.servicehooks.spring;

import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code servicehooks.webhook.catch-up.*} settings: with {@code enabled=true} (and {@code
 * webhook-catchup} on the classpath) the application heals its own downtime with a replay, see
 * {@link io.servicehooks.catchup.CatchUp}.
 */
@ConfigurationProperties("servicehooks.webhook.catch-up")
public class CatchUpProperties {

  /** Where the heartbeat is kept. */
  public enum Store {
    /** {@code redis-url} when set, else the application's DataSource, else the file. */
    AUTO,
    /** Redis at {@code redis-url}. */
    REDIS,
    /** The application's DataSource (PostgreSQL). */
    POSTGRES,
    /** The local file {@code file}. */
    FILE
  }

  /** Replay the consumer's own downtime. */
  private boolean enabled;

  /**
   * The webhook to replay, by id; default the one registered for {@code
   * servicehooks.registration.public-url}.
   */
  private String webhookId;

  /** Where the heartbeat is kept. */
  private Store store = Store.AUTO;

  /** The heartbeat file of the file store. */
  private Path file = Path.of("servicehooks-heartbeat");

  /** Redis of the Redis store, e.g. redis://host:6379; default spring.data.redis.url. */
  private String redisUrl;

  /** The key prefix of the Redis store. */
  private String redisPrefix = "servicehooks:default:catchup:";

  /** The table of the PostgreSQL store, optionally schema-qualified. */
  private String table = "servicehooks_catchup";

  /** Create the table when absent. */
  private boolean createTable = true;

  /** How often the heartbeat is recorded. */
  private Duration heartbeatInterval = Duration.ofSeconds(30);

  /** How far before the last heartbeat a replay starts. */
  private Duration safetyMargin = Duration.ofMinutes(2);

  /** How old the last heartbeat must be for a gap. */
  private Duration gapThreshold = Duration.ofMinutes(2);

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public String getWebhookId() {
    return webhookId;
  }

  public void setWebhookId(String webhookId) {
    this.webhookId = webhookId;
  }

  public Store getStore() {
    return store;
  }

  public void setStore(Store store) {
    this.store = store;
  }

  public Path getFile() {
    return file;
  }

  public void setFile(Path file) {
    this.file = file;
  }

  public String getRedisUrl() {
    return redisUrl;
  }

  public void setRedisUrl(String redisUrl) {
    this.redisUrl = redisUrl;
  }

  public String getRedisPrefix() {
    return redisPrefix;
  }

  public void setRedisPrefix(String redisPrefix) {
    this.redisPrefix = redisPrefix;
  }

  public String getTable() {
    return table;
  }

  public void setTable(String table) {
    this.table = table;
  }

  public boolean isCreateTable() {
    return createTable;
  }

  public void setCreateTable(boolean createTable) {
    this.createTable = createTable;
  }

  public Duration getHeartbeatInterval() {
    return heartbeatInterval;
  }

  public void setHeartbeatInterval(Duration heartbeatInterval) {
    this.heartbeatInterval = heartbeatInterval;
  }

  public Duration getSafetyMargin() {
    return safetyMargin;
  }

  public void setSafetyMargin(Duration safetyMargin) {
    this.safetyMargin = safetyMargin;
  }

  public Duration getGapThreshold() {
    return gapThreshold;
  }

  public void setGapThreshold(Duration gapThreshold) {
    this.gapThreshold = gapThreshold;
  }

  @Override
  public String toString() {
    // the Redis URL may carry a password: left out
    return "CatchUpProperties[enabled="
        + enabled
        + ", webhookId="
        + webhookId
        + ", store="
        + store
        + ", heartbeatInterval="
        + heartbeatInterval
        + "]";
  }
}
