package io.servicehooks.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.handler.flush.FlushConsolidationHandler;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's one Lettuce connection: opened on a client of its own (with the time-outs, reconnect
 * and keepalive the store needs) or on the caller's client, and closed with whatever this class
 * created.
 */
final class RedisConnection {

  private static final Logger LOG = LoggerFactory.getLogger(RedisDeduplicator.class);

  private final AbstractRedisClient ownedClient;
  private final ClientResources ownedResources;
  private final StatefulConnection<String, String> connection;
  private final RedisClusterAsyncCommands<String, String> commands;
  private final BatchedWrites batches;

  private RedisConnection(
      AbstractRedisClient ownedClient,
      ClientResources ownedResources,
      StatefulConnection<String, String> connection,
      RedisClusterAsyncCommands<String, String> commands) {
    this.ownedClient = ownedClient;
    this.ownedResources = ownedResources;
    this.connection = connection;
    this.commands = commands;
    // Batched only on a client of this store's own, whose options time out every command.
    this.batches = ownedClient != null ? new BatchedWrites(connection) : null;
  }

  /** A connection on the caller's client, which stays the caller's to close. */
  static RedisConnection on(RedisClient client) {
    StatefulRedisConnection<String, String> c = client.connect(StringCodec.UTF8);
    return new RedisConnection(null, null, c, c.async());
  }

  /** A connection on the caller's cluster client, which stays the caller's to close. */
  static RedisConnection on(RedisClusterClient client) {
    StatefulRedisClusterConnection<String, String> c = client.connect(StringCodec.UTF8);
    return new RedisConnection(null, null, c, c.async());
  }

  /**
   * A connection on a client of its own, closed with it.
   *
   * @throws RuntimeException when Redis cannot be reached; without a secret in its message
   */
  static RedisConnection open(
      RedisURI uri,
      Duration commandTimeout,
      Duration connectTimeout,
      SecretScrubber secrets,
      String description) {
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
            // Every command fails after the command time-out; a batched one counts its wait
            // for the batch in it (BatchedWrites).
            .timeoutOptions(
                TimeoutOptions.builder()
                    .timeoutCommands(true)
                    .timeoutSource(new RemainingTime(commandTimeout))
                    .build())
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
      return new RedisConnection(own, resources, c, c.async());
    } catch (RuntimeException e) {
      own.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      resources.shutdown(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
      throw secrets.connectFailure(e, description);
    }
  }

  RedisClusterAsyncCommands<String, String> commands() {
    return commands;
  }

  /** Sends commands in batches; null on a caller's client (each command then leaves at once). */
  BatchedWrites batches() {
    return batches;
  }

  /** Whether this class built the client, whose options then time out every command. */
  boolean ownsClient() {
    return ownedClient != null;
  }

  boolean isOpen() {
    return connection.isOpen();
  }

  void setTimeout(Duration commandTimeout) {
    connection.setTimeout(commandTimeout);
  }

  /** Closes the connection, then the client and its threads when this class created them. */
  void close(SecretScrubber secrets) {
    try {
      connection.closeAsync().get(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | java.util.concurrent.TimeoutException | RuntimeException e) {
      LOG.debug("closing the Redis connection: {}", secrets.scrub(e.toString()));
    }
    if (ownedClient != null) {
      ownedClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
    if (ownedResources != null) {
      ownedResources.shutdown(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
    }
  }

  /** Each command's time-out: the command time-out, less a batched command's wait for its batch. */
  private static final class RemainingTime extends TimeoutOptions.TimeoutSource {
    private final Duration commandTimeout;

    RemainingTime(Duration commandTimeout) {
      this.commandTimeout = commandTimeout;
    }

    @Override
    public long getTimeout(RedisCommand<?, ?, ?> command) {
      return BatchedWrites.remaining(command, commandTimeout);
    }

    @Override
    public TimeUnit getTimeUnit() {
      return TimeUnit.NANOSECONDS;
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
