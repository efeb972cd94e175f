package io.servicehooks.spring;

import io.servicehooks.core.Acknowledgement;
import io.servicehooks.core.Deduplicator;
import io.servicehooks.core.WebhookConsumer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * The {@code servicehooks.webhook.*} settings of the auto-configured webhook endpoint. Setting
 * {@code servicehooks.webhook.consumer-secrets} is what switches the endpoint on; a secret that is
 * still an unresolved {@code ${...}} placeholder fails start-up, and so does a missing secret when
 * the application has listeners for the endpoint.
 *
 * <p>One file on purpose: a property tree whose groups are already one nested class each ({@link
 * Dedup}, {@link Redis}, {@link AcknowledgementProperties}, {@link Inbox}); its length is their
 * getters and setters. Nested, their public names and the generated metadata stay as they are.
 */
@ConfigurationProperties("servicehooks.webhook")
public class WebhookProperties {

  /**
   * The app's consumer secrets (comma-separated or a list). The first is current and signs CRC
   * answers; the others are still accepted on deliveries, for rotation. A secret that contains a
   * comma must be given as a list element ({@code consumer-secrets[0]=...}), which is taken whole.
   */
  private List<String> consumerSecrets = new ArrayList<>();

  /** Path of the webhook endpoint, matched exactly. */
  private String path = "/webhooks";

  // The core builder's default; the core has no public constant for it, so the defaults test
  // compares it with what a consumer built without the setting reports.
  /**
   * Largest delivery body accepted; larger ones are answered 413. From 1B to 64MB, checked at
   * start-up: a body is held in memory whole before its signature is checked.
   */
  private DataSize maxBodySize = DataSize.ofBytes(WebhookConsumer.DEFAULT_MAX_BODY_BYTES);

  /**
   * Skip the listeners of events the subscribed user caused itself: its own posts (and its own
   * replies that mention it) and its own sent direct messages; they are acknowledged as handled.
   * false for an application that wants them (an archive, an audit log).
   */
  private boolean ignoreOwnEvents = true;

  private final User user = new User();

  private final Dedup dedup = new Dedup();

  private final AcknowledgementProperties acknowledgement = new AcknowledgementProperties();

  private final Inbox inbox = new Inbox();

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

  public boolean isIgnoreOwnEvents() {
    return ignoreOwnEvents;
  }

  public void setIgnoreOwnEvents(boolean ignoreOwnEvents) {
    this.ignoreOwnEvents = ignoreOwnEvents;
  }

  public User getUser() {
    return user;
  }

  public Dedup getDedup() {
    return dedup;
  }

  public AcknowledgementProperties getAcknowledgement() {
    return acknowledgement;
  }

  public Inbox getInbox() {
    return inbox;
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
        + ", ignoreOwnEvents="
        + ignoreOwnEvents
        + "]";
  }

  /**
   * The {@code servicehooks.webhook.user.*} settings: the default user's credentials, as which an
   * {@code @OnWebhookEvent} method taking a {@code Say} answers (with {@code
   * servicehooks.registration.base-url}). Unset, {@code SERVICE_USER_TOKEN} and {@code
   * SERVICE_USER_TOKEN_SECRET} from the environment, or the credentials file of {@code servicehooks
   * auth login}. Never printed.
   */
  public static class User {

    /** The default user's access token (OAuth 1.0a), with token-secret. */
    private String token;

    /** The default user's access token secret, with token. */
    private String tokenSecret;

    public String getToken() {
      return token;
    }

    public void setToken(String token) {
      this.token = token;
    }

    public String getTokenSecret() {
      return tokenSecret;
    }

    public void setTokenSecret(String tokenSecret) {
      this.tokenSecret = tokenSecret;
    }

    @Override
    public String toString() {
      return "User[token=" + (token == null ? "unset" : "(hidden)") + "]";
    }
  }

  /**
   * The {@code servicehooks.webhook.dedup.*} settings: how long and how many handled event ids the
   * in-memory dedup store remembers.
   */
  public static class Dedup {

    // The configuration processor cannot read another class's constants: the IDE metadata takes
    // these two defaults from additional-spring-configuration-metadata.json (a test compares).
    /** How long a handled event id is remembered; the platform replays at most 24 hours back. */
    private Duration window = Deduplicator.DEFAULT_WINDOW;

    /** How many event ids are remembered at most. */
    private long maxEntries = Deduplicator.DEFAULT_MAX_ENTRIES;

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

    /** Dedup on Redis, shared by every instance of the application (needs webhook-redis). */
    private final Redis redis = new Redis();

    public Redis getRedis() {
      return redis;
    }
  }

  /**
   * The {@code servicehooks.webhook.dedup.redis.*} settings: the memory of handled events on Redis,
   * shared by every instance with the same Redis and prefix ({@code webhook-redis} on the class
   * path). On when {@code url} is set, or when {@code enabled} is true and the application has a
   * Lettuce {@code RedisClient} bean.
   */
  public static class Redis {

    /**
     * Switches dedup on Redis on without a URL: the store then uses the application's own Lettuce
     * RedisClient bean. Setting url switches it on too.
     */
    private boolean enabled;

    /**
     * The Redis every instance shares: redis://[[user]:password@]host[:port][/database], rediss://
     * for TLS, or redis-sentinel://host[:port][,host2[:port2]][/database]#masterId. Setting it puts
     * dedup on Redis; the store opens its own client.
     */
    private String url;

    // The configuration processor cannot read another class's constants: the IDE metadata takes
    // these two defaults from additional-spring-configuration-metadata.json (a test compares).
    /**
     * The key prefix, which is the namespace: instances that dedup together share it, other
     * applications or webhooks on the same Redis use their own.
     */
    private String prefix = "servicehooks:default";

    /**
     * How long a call to Redis may take before the delivery is answered 503 dedup_unavailable; at
     * most 10s.
     */
    private Duration commandTimeout = Duration.ofSeconds(2);

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public String getUrl() {
      return url;
    }

    public void setUrl(String url) {
      this.url = url;
    }

    public String getPrefix() {
      return prefix;
    }

    public void setPrefix(String prefix) {
      this.prefix = prefix;
    }

    public Duration getCommandTimeout() {
      return commandTimeout;
    }

    public void setCommandTimeout(Duration commandTimeout) {
      this.commandTimeout = commandTimeout;
    }

    /** Never the URL: it may hold a password. */
    @Override
    public String toString() {
      return "Redis[enabled="
          + enabled
          + ", url="
          + (url == null ? "unset" : "set")
          + ", prefix="
          + prefix
          + ", commandTimeout="
          + commandTimeout
          + "]";
    }
  }

  /**
   * The {@code servicehooks.webhook.acknowledgement.*} settings: when deliveries are answered
   * relative to running their listeners (the core's {@link Acknowledgement} mode), and the
   * asynchronous mode's queue and threads.
   */
  public static class AcknowledgementProperties {

    /**
     * SYNCHRONOUS answers after the listeners ran (500 when one threw, so the platform retries);
     * ASYNCHRONOUS answers once the events are queued and runs listeners on the consumer's threads;
     * DURABLE answers once the events are committed to the PostgreSQL inbox on the application's
     * DataSource (needs webhook-postgres), whose workers run the listeners with retries.
     */
    private Acknowledgement mode = WebhookConsumer.DEFAULT_ACKNOWLEDGEMENT;

    /** Asynchronous mode: how many deliveries may wait; past it deliveries are answered 503. */
    private int queueCapacity = WebhookConsumer.DEFAULT_ASYNC_QUEUE_CAPACITY;

    /** Asynchronous mode: how many threads run listeners. */
    private int threads = WebhookConsumer.DEFAULT_ASYNC_THREADS;

    /** Asynchronous mode: how long shutdown waits for queued deliveries. */
    private Duration drainTimeout = WebhookConsumer.DEFAULT_DRAIN_TIMEOUT;

    public Acknowledgement getMode() {
      return mode;
    }

    public void setMode(Acknowledgement mode) {
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

  /**
   * The {@code servicehooks.webhook.inbox.*} settings of durable mode: where the inbox table lives
   * in the application's database and how its workers run. The other settings keep the defaults of
   * webhook-postgres's {@code PostgresInbox} (a {@link WebhookConsumerCustomizer} cannot change
   * them: define a {@code PostgresInbox} bean instead).
   */
  public static class Inbox {

    // Literal defaults: this class must load without webhook-postgres; the metadata test compares
    // them with PostgresInbox's.
    /** Schema of the inbox table. */
    private String schema = "servicehooks";

    /** Name of the inbox table. */
    private String table = "webhook_inbox";

    /**
     * Create the schema and table at start-up when missing (the default, as for every servicehooks
     * store). Set false when a DBA applies the shipped SQL; start-up then checks that the table
     * exists.
     */
    private boolean createSchema = true;

    /** Threads in this instance that run listeners on stored events. */
    private int workers = 4;

    /** Attempts at an event's listeners before it becomes a dead letter. */
    private int maxAttempts = 10;

    /**
     * Put the webhookInbox health in Boot's readiness group (when probes are on), so that an
     * instance whose inbox database does not answer is taken out of the load balancer.
     */
    private boolean readiness = true;

    /**
     * How long a row taken by a worker belongs to its instance; when it ends the row is due again
     * (another instance may run it). Keep it above twice the slowest listener.
     */
    private Duration lease = Duration.ofSeconds(60);

    /** Delay after the first failed attempt; it doubles per attempt up to backoff-max. */
    private Duration backoffBase = Duration.ofSeconds(2);

    /** Longest delay between two attempts. */
    private Duration backoffMax = Duration.ofMinutes(5);

    /** How long done rows are kept: the dedup window of durable mode. */
    private Duration retention = Duration.ofHours(24);

    /** How soon the poller looks again after finding nothing; doubles up to max-poll-interval. */
    private Duration pollInterval = Duration.ofMillis(200);

    /** Longest idle wait between looks, and between tries while the database is unreachable. */
    private Duration maxPollInterval = Duration.ofSeconds(1);

    /**
     * A label for this instance in the inbox (e.g. ${HOSTNAME}): shown in the leased_by column, the
     * owner table and the log line that says an instance is gone. Unset: pid@host. Need not be
     * unique; crash recovery needs no name.
     */
    private String instanceName;

    public String getInstanceName() {
      return instanceName;
    }

    public void setInstanceName(String instanceName) {
      this.instanceName = instanceName;
    }

    /** Writer threads, each committing one group of deliveries at a time. */
    private int writers = 2;

    /** Time-out of every inbox statement (whole seconds, at least one). */
    private Duration statementTimeout = Duration.ofSeconds(5);

    public Duration getLease() {
      return lease;
    }

    public void setLease(Duration lease) {
      this.lease = lease;
    }

    public Duration getBackoffBase() {
      return backoffBase;
    }

    public void setBackoffBase(Duration backoffBase) {
      this.backoffBase = backoffBase;
    }

    public Duration getBackoffMax() {
      return backoffMax;
    }

    public void setBackoffMax(Duration backoffMax) {
      this.backoffMax = backoffMax;
    }

    public Duration getRetention() {
      return retention;
    }

    public void setRetention(Duration retention) {
      this.retention = retention;
    }

    public Duration getPollInterval() {
      return pollInterval;
    }

    public void setPollInterval(Duration pollInterval) {
      this.pollInterval = pollInterval;
    }

    public Duration getMaxPollInterval() {
      return maxPollInterval;
    }

    public void setMaxPollInterval(Duration maxPollInterval) {
      this.maxPollInterval = maxPollInterval;
    }

    public int getWriters() {
      return writers;
    }

    public void setWriters(int writers) {
      this.writers = writers;
    }

    public Duration getStatementTimeout() {
      return statementTimeout;
    }

    public void setStatementTimeout(Duration statementTimeout) {
      this.statementTimeout = statementTimeout;
    }

    public boolean isReadiness() {
      return readiness;
    }

    public void setReadiness(boolean readiness) {
      this.readiness = readiness;
    }

    public String getSchema() {
      return schema;
    }

    public void setSchema(String schema) {
      this.schema = schema;
    }

    public String getTable() {
      return table;
    }

    public void setTable(String table) {
      this.table = table;
    }

    public boolean isCreateSchema() {
      return createSchema;
    }

    public void setCreateSchema(boolean createSchema) {
      this.createSchema = createSchema;
    }

    public int getWorkers() {
      return workers;
    }

    public void setWorkers(int workers) {
      this.workers = workers;
    }

    public int getMaxAttempts() {
      return maxAttempts;
    }

    public void setMaxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
    }
  }
}
