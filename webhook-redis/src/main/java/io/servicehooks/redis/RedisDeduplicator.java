package io.servicehooks.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.servicehooks.core.Deduplicator;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <p><b>Atomicity.</b> {@link #claim}, {@link #markDone}, {@link #release} and {@link #renew} are
 * each one Lua script on that one key ({@code EVALSHA}, falling back to {@code EVAL} when the
 * server lost its script cache): one round trip each. {@code markDone}, {@code release} and {@code
 * renew} act only while the caller's token still owns the key.
 *
 * <p><b>Failures.</b> Every call is asynchronous (Lettuce's asynchronous API) and completes
 * exceptionally when Redis cannot answer within the command time-out (default 2 s, not Lettuce's 60
 * s), is not connected, or refuses; the consumer then answers 503 {@code dedup_unavailable} and
 * runs no listener. The connection reconnects by itself (backing off up to 1 s) and TCP keepalive
 * is on. {@link Builder#build()} connects once and fails when Redis cannot be reached.
 *
 * <p>Thread-safe: one connection is shared by all callers (Lettuce pipelines their commands).
 * Neither {@link #toString()} nor an exception of this class shows a password from the URI.
 */
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

  private static final Logger LOG = LoggerFactory.getLogger(RedisDeduplicator.class);

  /** How long past the command time-out a call is failed by this class when Lettuce has not. */
  private static final Duration BACKSTOP_MARGIN = Duration.ofMillis(200);

  private static final Base64.Encoder TOKENS = Base64.getUrlEncoder().withoutPadding();

  /** Pause between attempts to release claims whose answer never came. */
  static final Duration UNANSWERED_RETRY = Duration.ofMillis(500);

  /**
   * At most this many unanswered claims wait for their release; past it the lease ends the rest (a
   * long outage fails claims by the thousand, most never sent at all).
   */
  static final int MAX_UNANSWERED = 10_000;

  private final String prefix;
  private final Duration window;
  private final Duration commandTimeout;
  private final String description;
  private final Set<String> secrets;
  private final AbstractRedisClient ownedClient;
  private final ClientResources ownedResources;
  private final StatefulConnection<String, String> connection;
  private final RedisClusterAsyncCommands<String, String> commands;

  /** This store's random part of every owner token; a counter makes each token unique. */
  private final String tokenPrefix = randomTokenPrefix();

  private final AtomicLong tokens = new AtomicLong();
  private final AtomicBoolean closed = new AtomicBoolean();

  /** Claims that failed here but may have run on Redis, waiting for their release. */
  private final ConcurrentLinkedQueue<Unanswered> unanswered = new ConcurrentLinkedQueue<>();

  private final AtomicInteger unansweredCount = new AtomicInteger();
  private final AtomicBoolean releaseScheduled = new AtomicBoolean();
  private final Script claimScript;
  private final Script doneScript;
  private final Script releaseScript;
  private final Script renewScript;

  private RedisDeduplicator(Builder b, Connected connected) {
    this.prefix = b.prefix;
    this.window = b.window;
    this.commandTimeout = b.commandTimeout;
    this.description = b.description;
    this.secrets = b.secrets;
    this.ownedClient = connected.ownedClient;
    this.ownedResources = connected.ownedResources;
    this.connection = connected.connection;
    this.commands = connected.commands;
    this.connection.setTimeout(commandTimeout);
    this.claimScript = new Script(Scripts.CLAIM, commands.digest(Scripts.CLAIM));
    this.doneScript = new Script(Scripts.DONE_SCRIPT, commands.digest(Scripts.DONE_SCRIPT));
    this.releaseScript = new Script(Scripts.RELEASE, commands.digest(Scripts.RELEASE));
    this.renewScript = new Script(Scripts.RENEW, commands.digest(Scripts.RENEW));
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
    String token = newToken();
    return this.<List<Object>>run(
            claimScript,
            ScriptOutputType.MULTI,
            redisKey,
            Scripts.CLAIMED + token,
            Long.toString(leaseMillis))
        .whenComplete(
            (answer, failure) -> {
              if (failure != null) {
                releaseUnanswered(Unanswered.of(redisKey, token, leaseMillis));
              }
            })
        .thenApply(answer -> toClaim(answer, token, redisKey));
  }

  @Override
  public CompletionStage<Boolean> markDone(String key, String token) {
    return owned(
        doneScript, redisKey(key), token, Long.toString(millis(window, "window")), "markDone");
  }

  @Override
  public CompletionStage<Boolean> release(String key, String token) {
    return owned(releaseScript, redisKey(key), token, null, "release");
  }

  @Override
  public CompletionStage<Boolean> renew(String key, String token, Duration lease) {
    return owned(renewScript, redisKey(key), token, Long.toString(millis(lease, "lease")), "renew");
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
    try {
      connection.closeAsync().get(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | java.util.concurrent.TimeoutException | RuntimeException e) {
      LOG.debug("closing the Redis connection: {}", scrub(e.toString()));
    }
    if (ownedClient != null) {
      ownedClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
    if (ownedResources != null) {
      ownedResources.shutdown(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
    }
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

  private CompletionStage<Boolean> owned(
      Script script, String redisKey, String token, String arg, String operation) {
    Objects.requireNonNull(token, "token");
    String owner = Scripts.CLAIMED + token;
    CompletableFuture<Long> answer =
        arg == null
            ? run(script, ScriptOutputType.INTEGER, redisKey, owner)
            : run(script, ScriptOutputType.INTEGER, redisKey, owner, arg);
    return answer.thenApply(
        n -> {
          boolean owns = n != null && n == 1L;
          if (!owns) {
            // The core tells a lost key from a lease that ran out by its timing; this line says
            // what Redis held instead.
            LOG.debug(
                "{} of {}: the token no longer owns the key, which {}",
                operation,
                printable(redisKey),
                n != null && n == 0L ? "is missing" : "another owner holds (or marked done)");
          }
          return owns;
        });
  }

  private Claim toClaim(List<Object> answer, String token, String redisKey) {
    if (answer == null || answer.isEmpty() || !(answer.get(0) instanceof Long claimed)) {
      throw new IllegalStateException("unexpected answer of the claim script: " + answer);
    }
    if (claimed == 1L) {
      return Claim.claimed(token);
    }
    Object value = answer.size() > 1 ? answer.get(1) : null;
    long pttl = answer.size() > 2 && answer.get(2) instanceof Long l ? l : -1;
    if (Scripts.DONE.equals(value)) {
      return Claim.done();
    }
    if (value instanceof String s && s.startsWith(Scripts.CLAIMED)) {
      return Claim.runningElsewhere(pttl > 0 ? Duration.ofMillis(pttl) : Duration.ZERO);
    }
    throw new IllegalStateException(
        "key "
            + printable(redisKey)
            + " holds a value this store did not write; is the prefix used by something else?");
  }

  private <T> CompletableFuture<T> run(
      Script script, ScriptOutputType type, String redisKey, String... args) {
    if (closed.get()) {
      return CompletableFuture.failedFuture(new IllegalStateException(this + " is closed"));
    }
    String[] keys = {redisKey};
    CompletableFuture<T> call;
    try {
      CompletableFuture<T> first =
          commands.<T>evalsha(script.sha(), type, keys, args).toCompletableFuture();
      call =
          first.exceptionallyCompose(
              e -> {
                if (unwrap(e) instanceof RedisNoScriptException) {
                  // The server lost its script cache (restart, SCRIPT FLUSH): EVAL runs the
                  // script and caches it again.
                  LOG.debug("Redis had no script {}: sending it", script.sha());
                  return commands.<T>eval(script.text(), type, keys, args).toCompletableFuture();
                }
                return CompletableFuture.failedFuture(unwrap(e));
              });
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(safe(e));
    }
    if (ownedClient == null) {
      // Lettuce times out commands on a client this class built; a caller's client may not: the
      // stage fails shortly after the command time-out either way.
      call = call.orTimeout(commandTimeout.plus(BACKSTOP_MARGIN).toMillis(), TimeUnit.MILLISECONDS);
    }
    return call.exceptionallyCompose(e -> CompletableFuture.failedFuture(safe(unwrap(e))));
  }

  /**
   * A claim whose call failed here (time-out, connection cut) but which Redis may still run, or
   * have run, once it catches up: its {@code SET NX} would then hold the key for a lease with no
   * owner, and the platform's retries would be answered 503 {@code in_flight} until it ends. The
   * token is this store's, so a release for it is sent at once: on the same connection it runs
   * after the claim, whatever the claim did. A release that fails too is retried every {@link
   * #UNANSWERED_RETRY} until it is answered or the lease would have ended the claim anyway.
   */
  private record Unanswered(String redisKey, String token, long deadlineNanos) {
    static Unanswered of(String redisKey, String token, long leaseMillis) {
      return new Unanswered(
          redisKey, token, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis));
    }
  }

  private void releaseUnanswered(Unanswered claim) {
    if (closed.get()) {
      return;
    }
    CompletableFuture<Long> release;
    try {
      release =
          run(
              releaseScript,
              ScriptOutputType.INTEGER,
              claim.redisKey(),
              Scripts.CLAIMED + claim.token());
    } catch (RuntimeException e) {
      release = CompletableFuture.failedFuture(e);
    }
    release.whenComplete(
        (n, failure) -> {
          if (failure == null) {
            if (n != null && n == 1L) {
              LOG.debug(
                  "Released the claim on {} that Redis took after its caller gave up",
                  printable(claim.redisKey()));
            }
            return;
          }
          retryLater(claim);
        });
  }

  private void retryLater(Unanswered claim) {
    if (closed.get() || System.nanoTime() - claim.deadlineNanos() >= 0) {
      return; // the lease has ended the claim, if it ever ran
    }
    if (unansweredCount.incrementAndGet() > MAX_UNANSWERED) {
      unansweredCount.decrementAndGet();
      return;
    }
    unanswered.add(claim);
    if (releaseScheduled.compareAndSet(false, true)) {
      CompletableFuture.delayedExecutor(UNANSWERED_RETRY.toMillis(), TimeUnit.MILLISECONDS)
          .execute(this::releaseWaiting);
    }
  }

  private void releaseWaiting() {
    releaseScheduled.set(false);
    if (closed.get()) {
      return;
    }
    if (!connection.isOpen()) {
      // Every release would be rejected at once: wait for the reconnect instead.
      if (releaseScheduled.compareAndSet(false, true)) {
        CompletableFuture.delayedExecutor(UNANSWERED_RETRY.toMillis(), TimeUnit.MILLISECONDS)
            .execute(this::releaseWaiting);
      }
      return;
    }
    for (int n = unansweredCount.get(); n > 0; n--) {
      Unanswered claim = unanswered.poll();
      if (claim == null) {
        break;
      }
      unansweredCount.decrementAndGet();
      releaseUnanswered(claim);
    }
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

  /**
   * A new owner token: 128 random bits drawn once per store, then a counter. Unique across
   * instances and restarts without a read of the system's random source per claim (a system call
   * each time): a token only has to differ from every other owner's, it guards nothing secret.
   */
  private String newToken() {
    return tokenPrefix + Long.toString(tokens.incrementAndGet(), 36);
  }

  private static String randomTokenPrefix() {
    byte[] bytes = new byte[16];
    new SecureRandom().nextBytes(bytes);
    return TOKENS.encodeToString(bytes) + ".";
  }

  private static long millis(Duration d, String what) {
    Objects.requireNonNull(d, what);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be positive: " + d);
    }
    return Math.max(1, d.toMillis());
  }

  private static Throwable unwrap(Throwable e) {
    while ((e instanceof CompletionException || e instanceof ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  /** {@code e} itself unless a secret appears in its chain; then a copy without it. */
  private Throwable safe(Throwable e) {
    if (secrets.isEmpty()) {
      return e;
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (!scrub(String.valueOf(t.getMessage())).equals(String.valueOf(t.getMessage()))) {
        return new RedisStoreException(scrub(e.toString()));
      }
    }
    return e;
  }

  private String scrub(String text) {
    String out = text;
    for (String secret : secrets) {
      out = out.replace(secret, "***");
    }
    return out;
  }

  private record Script(String text, String sha) {}

  /** A failure of the store whose original message had to lose a secret. */
  static final class RedisStoreException extends RuntimeException {
    RedisStoreException(String message) {
      super(message, null, false, false);
    }
  }

  private record Connected(
      AbstractRedisClient ownedClient,
      ClientResources ownedResources,
      StatefulConnection<String, String> connection,
      RedisClusterAsyncCommands<String, String> commands) {}

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
    private final Set<String> secrets;
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
      this.secrets = secrets;
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
      Connected connected;
      if (client != null) {
        StatefulRedisConnection<String, String> c = client.connect(StringCodec.UTF8);
        connected = new Connected(null, null, c, c.async());
      } else if (clusterClient != null) {
        StatefulRedisClusterConnection<String, String> c = clusterClient.connect(StringCodec.UTF8);
        connected = new Connected(null, null, c, c.async());
      } else {
        connected = connectOwn();
      }
      RedisDeduplicator store = new RedisDeduplicator(this, connected);
      try {
        EvictionPolicy.check(connected.commands(), commandTimeout, requireNoEviction, description);
      } catch (RuntimeException refused) {
        store.close();
        throw refused;
      }
      return store;
    }

    private Connected connectOwn() {
      RedisURI target = uri;
      target.setTimeout(commandTimeout);
      ClientResources resources =
          ClientResources.builder()
              // Lettuce's minimum; the store's one connection is served by one event loop thread.
              .ioThreadPoolSize(2)
              .computationThreadPoolSize(2)
              // Commands written in the same turn of the event loop leave in one write (and
              // their answers come back in one read), instead of a system call each.
              .nettyCustomizer(new ConsolidatedFlushes())
              .reconnectDelay(
                  Delay.exponential(
                      Duration.ofMillis(50), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
              .build();
      RedisClient own = RedisClient.create(resources, target);
      own.setOptions(
          ClientOptions.builder()
              .autoReconnect(true)
              // Fail at once while the connection is down instead of queueing: the delivery is
              // answered 503 and the platform retries.
              .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
              .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
              .socketOptions(
                  SocketOptions.builder()
                      .connectTimeout(connectTimeout)
                      .keepAlive(
                          SocketOptions.KeepAliveOptions.builder()
                              .enable()
                              .idle(Duration.ofSeconds(15))
                              .interval(Duration.ofSeconds(5))
                              .count(3)
                              .build())
                      .build())
              .build());
      try {
        StatefulRedisConnection<String, String> c = own.connect(StringCodec.UTF8);
        return new Connected(own, resources, c, c.async());
      } catch (RuntimeException e) {
        own.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
        throw scrubbed(e);
      }
    }

    private RuntimeException scrubbed(RuntimeException e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        String message = String.valueOf(t.getMessage());
        for (String secret : secrets) {
          if (message.contains(secret)) {
            return new RedisStoreException(
                "cannot connect to Redis at " + description + " (" + e.getClass().getName() + ")");
          }
        }
      }
      return e;
    }

    private static Duration bounded(Duration d, String what) {
      millis(d, what);
      if (d.compareTo(MAX_TIMEOUT) >= 0) {
        throw new IllegalArgumentException(what + " must be below " + MAX_TIMEOUT + ": " + d);
      }
      return d;
    }
  }

  /**
   * Puts Netty's {@link FlushConsolidationHandler} next to the socket: flushes asked for while the
   * event loop has more queued writes (or is reading answers) become one flush.
   */
  private static final class ConsolidatedFlushes implements NettyCustomizer {
    @Override
    public void afterChannelInitialized(Channel channel) {
      channel
          .pipeline()
          .addFirst(
              "servicehooks-flush-consolidation",
              new FlushConsolidationHandler(
                  FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, true));
    }
  }
}
