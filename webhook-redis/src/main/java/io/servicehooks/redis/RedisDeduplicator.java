package io.servicehooks.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.servicehooks.core.Deduplicator;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link Deduplicator} on Redis, shared by every instance of a consumer that points at the same
 * server and prefix: a copy of an event that lands on another instance is recognised as done, or as
 * running elsewhere while its original is still being handled.
 *
 * <pre>{@code
 * RedisDeduplicator store = RedisDeduplicator.builder("redis://:secret@redis.internal:6379")
 *     .prefix("servicehooks:billing")
 *     .build();
 * WebhookConsumer consumer = WebhookConsumer.builder()...deduplicator(store).build();
 * // on shut-down, after the server stopped:
 * store.close();
 * }</pre>
 *
 * <p><b>Keys.</b> One key per event, {@code <prefix>:{<dedup key>}}. The prefix is the namespace:
 * give each application or webhook that shares a Redis its own. The braces are a Redis Cluster hash
 * tag, so a key lives in one slot. While an event is claimed its key holds {@code c:<owner token>}
 * with the lease as TTL; once done it holds {@code d} with the window as TTL.
 *
 * <p><b>Atomicity.</b> {@link #claim}, {@link #claimDone}, {@link #markDone}, {@link #release} and
 * {@link #renew} are each one Lua script on that one key ({@code EVALSHA}, falling back to {@code
 * EVAL} when the server lost its script cache): one round trip each. {@code markDone}, {@code
 * release} and {@code renew} act only while the caller's token still owns the key.
 *
 * <p><b>Failures.</b> Every call is asynchronous (Lettuce's asynchronous API) and completes
 * exceptionally when Redis cannot answer within the command time-out (default 2 s, not Lettuce's 60
 * s), is not connected, or refuses; the consumer then answers 503 {@code dedup_unavailable} and
 * runs no listener. The connection reconnects by itself (backing off up to 1 s) and TCP keepalive
 * is on. {@link Builder#build()} connects once and fails when Redis cannot be reached.
 *
 * <p>Thread-safe: one connection is shared by all callers (Lettuce pipelines their commands). On a
 * client built from a URI the store sends its scripts in batches: a call asked while an earlier
 * batch is out leaves with the next one, when that batch's last answer arrives (one round trip at
 * most, counted in the call's command time-out). Neither {@link #toString()} nor an exception of
 * this class shows a password from the URI.
 *
 * <p>This class is the SPI and the builder; package-private collaborators each do one job: {@code
 * DedupScripts} (the round trips, one Lua script per call), {@code BatchedWrites} (the scripts sent
 * in batches on a client of the store's own), {@code RedisConnection} (the Lettuce connection and
 * the client it may own), {@code UnansweredClaims} (releasing claims whose answer never came),
 * {@code OwnerTokens} and {@code SecretScrubber}.
 */
// The contract's Javadoc and the public Builder, which is API, live here; the work is in the
// collaborators named above.
public final class RedisDeduplicator implements Deduplicator, AutoCloseable {

  /** Default key prefix (namespace): {@value}. */
  public static final String DEFAULT_PREFIX = "servicehooks:default";

  /** Default command time-out: how long a call may wait for Redis before it fails. */
  public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(2);

  /** Default time-out of a TCP connect to Redis (and of each reconnect attempt). */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);

  /**
   * The command and connect time-outs must stay below this: the platform gives up on a delivery
   * after 10 s.
   */
  public static final Duration MAX_TIMEOUT = Duration.ofSeconds(10);

  private final String prefix;
  private final Duration window;
  private final Duration commandTimeout;
  private final String description;
  private final SecretScrubber secrets;
  private final RedisConnection connection;
  private final OwnerTokens tokens = new OwnerTokens();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final DedupScripts scripts;
  private final UnansweredClaims unanswered;

  private RedisDeduplicator(Builder b, RedisConnection connection) {
    this.prefix = b.prefix;
    this.window = b.window;
    this.commandTimeout = b.commandTimeout;
    this.description = b.description;
    this.secrets = b.secrets;
    this.connection = connection;
    connection.setTimeout(commandTimeout);
    this.scripts =
        new DedupScripts(
            connection.commands(),
            connection.batches(),
            connection.ownsClient(),
            commandTimeout,
            closed,
            secrets,
            toString());
    this.unanswered = new UnansweredClaims(scripts, connection::isOpen, closed);
  }

  /**
   * A builder for a store on its own Lettuce client, created from {@code redisUri} and closed by
   * {@link #close()}.
   *
   * @param redisUri {@code redis://[[user]:password@]host[:port][/database]}, {@code rediss://...}
   *     for TLS (the JDK's trust store), or {@code
   *     redis-sentinel://[[user]:password@]host1[:port1][,host2[:port2]][/database]#masterId} for a
   *     master found through Sentinel
   * @throws IllegalArgumentException when the URI is not one of these (the message hides its
   *     password)
   */
  public static Builder builder(String redisUri) {
    RedisURI uri = RedisUris.parse(redisUri);
    return new Builder(uri, null, null, RedisUris.describe(uri), RedisUris.secrets(redisUri));
  }

  /**
   * A builder for a store on the caller's own client, connecting to the client's default URI. The
   * client's options (connect time-out, reconnect, TLS) are the caller's; this store sets its
   * command time-out on the connection it opens and closes only that connection, never the client.
   *
   * @param client a client created with a {@link RedisURI}, e.g. {@code RedisClient.create(uri)}
   */
  public static Builder builder(RedisClient client) {
    Objects.requireNonNull(client, "client");
    return new Builder(null, client, null, "the application's RedisClient", Set.of());
  }

  /**
   * A builder for a store on the caller's own Redis Cluster client: each script touches one key,
   * whose hash tag keeps it in one slot, so Lettuce runs it on the node that owns the key. As with
   * {@link #builder(RedisClient)}, only the connection this store opens is closed by it.
   *
   * @param client a cluster client created with its seed URIs
   */
  public static Builder builder(RedisClusterClient client) {
    Objects.requireNonNull(client, "client");
    return new Builder(null, null, client, "the application's RedisClusterClient", Set.of());
  }

  @Override
  public CompletionStage<Claim> claim(String key, Duration lease) {
    String redisKey = redisKey(key);
    long leaseMillis = millis(lease, "lease");
    String token = tokens.next();
    return scripts
        .claim(redisKey, token, leaseMillis)
        .whenComplete(
            (answer, failure) -> {
              if (failure != null) {
                unanswered.release(redisKey, token, leaseMillis);
              }
            })
        .thenApply(answer -> DedupScripts.toClaim(answer, token, redisKey));
  }

  /**
   * One round trip: {@code SET NX} of the done value with the window as TTL, so an event with
   * nothing to run costs one script instead of a claim and a mark. The token of a {@code CLAIMED}
   * answer owns nothing ({@link #markDone} with it answers {@code false}).
   */
  @Override
  public CompletionStage<Claim> claimDone(String key, Duration lease) {
    String redisKey = redisKey(key);
    millis(lease, "lease");
    long windowMillis = millis(window, "window");
    return scripts
        .claimDone(redisKey, windowMillis)
        .thenApply(answer -> DedupScripts.toClaim(answer, tokens.next(), redisKey));
  }

  @Override
  public CompletionStage<Boolean> markDone(String key, String token) {
    String redisKey = redisKey(key);
    long windowMillis = millis(window, "window");
    Objects.requireNonNull(token, "token");
    return scripts
        .done(redisKey, token, windowMillis)
        .thenApply(n -> DedupScripts.owned(n, redisKey, "markDone"));
  }

  @Override
  public CompletionStage<Boolean> release(String key, String token) {
    String redisKey = redisKey(key);
    Objects.requireNonNull(token, "token");
    return scripts
        .release(redisKey, token)
        .thenApply(n -> DedupScripts.owned(n, redisKey, "release"));
  }

  @Override
  public CompletionStage<Boolean> renew(String key, String token, Duration lease) {
    String redisKey = redisKey(key);
    long leaseMillis = millis(lease, "lease");
    Objects.requireNonNull(token, "token");
    return scripts
        .renew(redisKey, token, leaseMillis)
        .thenApply(n -> DedupScripts.owned(n, redisKey, "renew"));
  }

  /**
   * {@code false}: every call returns at once and completes when Redis answers (or fails at once
   * while the connection is down), so the consumer asks from its IO thread and no worker waits.
   */
  @Override
  public boolean mayBlock() {
    return false;
  }

  /** The key prefix (namespace) of this store. */
  public String prefix() {
    return prefix;
  }

  /** How long a handled event id is remembered. */
  public Duration window() {
    return window;
  }

  /** How long a call waits for Redis before it fails. */
  public Duration commandTimeout() {
    return commandTimeout;
  }

  /** The Redis key that holds {@code dedupKey}: {@code <prefix>:{<dedupKey>}}. */
  public String redisKey(String dedupKey) {
    Objects.requireNonNull(dedupKey, "key");
    return prefix + ":{" + dedupKey + "}";
  }

  /**
   * Closes the connection and, when this store created its client from a URI, the client and its
   * threads. Calls made afterwards fail. Idempotent; bounded by a few seconds.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    connection.close(secrets);
  }

  /** Where this store points and how; never a password. */
  @Override
  public String toString() {
    return "RedisDeduplicator["
        + description
        + ", prefix="
        + prefix
        + ", window="
        + window
        + ", commandTimeout="
        + commandTimeout
        + "]";
  }

  /** {@code text} with control characters escaped, so an event id cannot forge a log line. */
  static String printable(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isISOControl(c)) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  private static long millis(Duration d, String what) {
    Objects.requireNonNull(d, what);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be positive: " + d);
    }
    return Math.max(1, d.toMillis());
  }

  /**
   * Settings of a {@link RedisDeduplicator}; {@link #build()} connects. Not thread-safe.
   *
   * <p>Defaults: prefix {@value RedisDeduplicator#DEFAULT_PREFIX}, window 24 h ({@link
   * Deduplicator#DEFAULT_WINDOW}), command time-out 2 s, connect time-out 5 s.
   */
  public static final class Builder {
    private final RedisURI uri;
    private final RedisClient client;
    private final RedisClusterClient clusterClient;
    private final String description;
    private final SecretScrubber secrets;
    private String prefix = DEFAULT_PREFIX;
    private Duration window = Deduplicator.DEFAULT_WINDOW;
    private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    private boolean requireNoEviction;

    private Builder(
        RedisURI uri,
        RedisClient client,
        RedisClusterClient clusterClient,
        String description,
        Set<String> secrets) {
      this.uri = uri;
      this.client = client;
      this.clusterClient = clusterClient;
      this.description = description;
      this.secrets = new SecretScrubber(secrets);
    }

    /**
     * The key prefix, which is the namespace: several applications or webhooks can share one Redis
     * when each has its own (e.g. {@code servicehooks:billing}). Keys are {@code <prefix>:{<dedup
     * key>}}. Changing it forgets every id remembered under the old one.
     *
     * @param prefix non-blank, without braces (they would change the Cluster hash tag)
     */
    public Builder prefix(String prefix) {
      Objects.requireNonNull(prefix, "prefix");
      if (prefix.isBlank() || prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
        throw new IllegalArgumentException(
            "prefix must be non-blank and without braces: " + prefix);
      }
      this.prefix = prefix;
      return this;
    }

    /**
     * How long a handled event id is remembered (default 24 h, the reach of the platform's replay).
     * A shorter window saves memory but lets a replay or a late retry run an event again.
     */
    public Builder window(Duration window) {
      millis(window, "window");
      this.window = window;
      return this;
    }

    /**
     * How long a call waits for Redis before it fails and the delivery is answered 503 (default 2
     * s; below {@link RedisDeduplicator#MAX_TIMEOUT}).
     */
    public Builder commandTimeout(Duration timeout) {
      this.commandTimeout = bounded(timeout, "commandTimeout");
      return this;
    }

    /**
     * Time-out of a TCP connect, also of each reconnect attempt (default 5 s; below {@link
     * RedisDeduplicator#MAX_TIMEOUT}). Ignored for a caller's own client.
     */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = bounded(timeout, "connectTimeout");
      return this;
    }

    /**
     * Whether {@link #build()} refuses a Redis whose {@code maxmemory-policy} is not {@code
     * noeviction} (default {@code false}: one WARN line at start-up). An evicting policy ({@code
     * volatile-*} evicts exactly the keys of this store, which all have a TTL; {@code allkeys-*}
     * too) drops remembered ids under memory pressure, and an evicted id runs again when its copy
     * arrives, answered 200 both times. When the policy cannot be read ({@code CONFIG} disabled, as
     * on several managed services, and {@code INFO} refused too) one line says so either way.
     */
    public Builder requireNoEviction(boolean require) {
      this.requireNoEviction = require;
      return this;
    }

    /**
     * Connects, checks the server's eviction policy (see {@link #requireNoEviction}), and returns
     * the store.
     *
     * @throws io.lettuce.core.RedisConnectionException or another {@link RuntimeException} when
     *     Redis cannot be reached within the connect time-out (the message hides the password)
     * @throws IllegalStateException with {@link #requireNoEviction requireNoEviction(true)}, when
     *     the server's {@code maxmemory-policy} is not {@code noeviction}
     */
    public RedisDeduplicator build() {
      RedisConnection connection;
      if (client != null) {
        connection = RedisConnection.on(client);
      } else if (clusterClient != null) {
        connection = RedisConnection.on(clusterClient);
      } else {
        connection =
            RedisConnection.open(uri, commandTimeout, connectTimeout, secrets, description);
      }
      RedisDeduplicator store = new RedisDeduplicator(this, connection);
      try {
        EvictionPolicy.check(connection.commands(), commandTimeout, requireNoEviction, description);
      } catch (RuntimeException refused) {
        store.close();
        throw refused;
      }
      return store;
    }

    private static Duration bounded(Duration d, String what) {
      millis(d, what);
      if (d.compareTo(MAX_TIMEOUT) >= 0) {
        throw new IllegalArgumentException(what + " must be below " + MAX_TIMEOUT + ": " + d);
      }
      return d;
    }
  }
}
