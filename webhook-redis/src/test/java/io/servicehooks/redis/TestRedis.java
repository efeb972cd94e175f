package io.servicehooks.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import redis.embedded.RedisServer;

/**
 * The Redis server the tests use, and a key prefix of their own on it.
 *
 * <p>The shared server is the one at {@code SERVICEHOOKS_TEST_REDIS_URL} (default {@code
 * redis://127.0.0.1:6379}); when nothing answers there, one embedded-redis server is started on a
 * free port for the whole run. Tests never flush it: each works under its own random prefix and
 * deletes its keys afterwards (SCAN + DEL). A test that stops a server starts its own with {@link
 * #startOwnServer()}.
 */
final class TestRedis implements AutoCloseable {

  static final Duration WAIT = Duration.ofSeconds(3);

  private static String sharedUrl;
  private static RedisServer sharedEmbedded;

  final String url;
  final String prefix = "servicehooks-test:" + UUID.randomUUID();
  private final RedisClient adminClient;
  private final StatefulRedisConnection<String, String> admin;

  private TestRedis(String url) {
    this.url = url;
    this.adminClient = client(url);
    this.admin = adminClient.connect();
  }

  /** A fresh prefix on the shared server. */
  static TestRedis shared() {
    return new TestRedis(sharedUrl());
  }

  /** Direct commands on the server, for inspecting keys. */
  RedisCommands<String, String> admin() {
    return admin.sync();
  }

  /** A store under this fixture's prefix. */
  RedisDeduplicator.Builder store() {
    return RedisDeduplicator.builder(url).prefix(prefix);
  }

  /** Every key under this fixture's prefix. */
  List<String> keys() {
    List<String> keys = new java.util.ArrayList<>();
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
      for (int i = 0; i < keys.size(); i += 500) {
        admin().del(keys.subList(i, Math.min(keys.size(), i + 500)).toArray(String[]::new));
      }
    } finally {
      admin.close();
      adminClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  static synchronized String sharedUrl() {
    if (sharedUrl != null) {
      return sharedUrl;
    }
    String configured = System.getenv("SERVICEHOOKS_TEST_REDIS_URL");
    String url = configured == null || configured.isBlank() ? "redis://127.0.0.1:6379" : configured;
    if (answers(url)) {
      sharedUrl = url;
    } else {
      int port = freePort();
      sharedEmbedded = embedded(port);
      start(sharedEmbedded);
      Runtime.getRuntime().addShutdownHook(new Thread(TestRedis::stopShared));
      sharedUrl = "redis://127.0.0.1:" + port;
    }
    return sharedUrl;
  }

  /** Starts a server of the test's own on a free port; the test stops and restarts it. */
  static OwnServer startOwnServer(String... settings) {
    OwnServer server = new OwnServer(freePort(), settings);
    server.start();
    return server;
  }

  /** An embedded redis-server on a fixed port that can be stopped and started again. */
  static final class OwnServer implements AutoCloseable {
    final int port;
    private final String[] settings;
    private RedisServer server;

    OwnServer(int port, String... settings) {
      this.port = port;
      this.settings = settings;
    }

    String url() {
      return "redis://127.0.0.1:" + port;
    }

    synchronized void start() {
      server = embedded(port, settings);
      TestRedis.start(server);
    }

    synchronized void stop() {
      if (server != null) {
        try {
          server.stop();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        server = null;
      }
    }

    @Override
    public void close() {
      stop();
    }
  }

  private static RedisServer embedded(int port, String... settings) {
    try {
      var builder =
          RedisServer.newRedisServer()
              .port(port)
              .bind("127.0.0.1")
              .setting("save \"\"")
              .setting("appendonly no");
      for (String setting : settings) {
        builder.setting(setting);
      }
      return builder.build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void start(RedisServer server) {
    try {
      server.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static synchronized void stopShared() {
    if (sharedEmbedded != null) {
      try {
        sharedEmbedded.stop();
      } catch (IOException e) {
        // the JVM is exiting
      }
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
    uri.setTimeout(WAIT);
    RedisClient client = RedisClient.create(uri);
    client.setOptions(
        ClientOptions.builder()
            .timeoutOptions(TimeoutOptions.enabled(WAIT))
            .socketOptions(SocketOptions.builder().connectTimeout(WAIT).build())
            .build());
    return client;
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
