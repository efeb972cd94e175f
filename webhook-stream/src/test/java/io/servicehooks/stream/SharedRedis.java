package io.servicehooks.stream;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import redis.embedded.RedisServer;

/**
 * The Redis of the redundant-streams test, found as webhook-redis's tests find it: the server at
 * {@code SERVICEHOOKS_TEST_REDIS_URL} (default {@code redis://127.0.0.1:6379}), or, when nothing
 * answers there, one embedded-redis server on a free port for the whole run. Each fixture works
 * under a random prefix of its own and deletes its keys on {@link #close()}; nothing is flushed.
 */
final class SharedRedis implements AutoCloseable {

  private static String sharedUrl;
  private static RedisServer embedded;

  final String url;
  final String prefix = "servicehooks-test:" + UUID.randomUUID();
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;

  SharedRedis() {
    this.url = sharedUrl();
    this.client = client(url);
    this.connection = client.connect();
  }

  RedisCommands<String, String> admin() {
    return connection.sync();
  }

  /** Every key under this fixture's prefix. */
  List<String> keys() {
    List<String> keys = new ArrayList<>();
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      KeyScanCursor<String> page =
          admin().scan(cursor, ScanArgs.Builder.matches(prefix + ":*").limit(1000));
      keys.addAll(page.getKeys());
      cursor = page;
    } while (!cursor.isFinished());
    return keys;
  }

  /** Deletes this fixture's keys and closes its connection. */
  @Override
  public void close() {
    try {
      List<String> keys = keys();
      if (!keys.isEmpty()) {
        admin().del(keys.toArray(String[]::new));
      }
    } finally {
      connection.close();
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  private static synchronized String sharedUrl() {
    if (sharedUrl != null) {
      return sharedUrl;
    }
    String configured = System.getenv("SERVICEHOOKS_TEST_REDIS_URL");
    String url = configured == null || configured.isBlank() ? "redis://127.0.0.1:6379" : configured;
    if (!answers(url)) {
      int port = freePort();
      try {
        embedded =
            RedisServer.newRedisServer()
                .port(port)
                .bind("127.0.0.1")
                .setting("save \"\"")
                .setting("appendonly no")
                .build();
        embedded.start();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      Runtime.getRuntime().addShutdownHook(new Thread(SharedRedis::stopEmbedded));
      url = "redis://127.0.0.1:" + port;
    }
    sharedUrl = url;
    return sharedUrl;
  }

  private static synchronized void stopEmbedded() {
    try {
      embedded.stop();
    } catch (IOException e) {
      // the JVM is exiting
    }
  }

  private static boolean answers(String url) {
    RedisURI uri = RedisURI.create(url);
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 1000);
    } catch (IOException e) {
      return false;
    }
    RedisClient client = client(url);
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      return "PONG".equals(c.sync().ping());
    } catch (RuntimeException e) {
      return false;
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  private static RedisClient client(String url) {
    RedisURI uri = RedisURI.create(url);
    uri.setTimeout(Duration.ofSeconds(3));
    return RedisClient.create(uri);
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
