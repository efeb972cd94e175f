package io.servicehooks.testsupport;

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
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import redis.embedded.RedisServer;

/**
 * The Redis server the tests use, and a key prefix of the test's own on it.
 *
 * <p>The shared server is the one at {@code SERVICEHOOKS_TEST_REDIS_URL} (default {@code
 * redis://127.0.0.1:6379}); when nothing answers there, one embedded-redis server
 * (com.github.codemonstur) is started on a free port for the whole run. Tests never flush it: each
 * works under its own random {@link #prefix} and {@link #close()} deletes its keys (SCAN + DEL). A
 * test that stops a server starts its own with {@link #startOwnServer(String...)}.
 *
 * <p>The caller declares {@code io.lettuce:lettuce-core} and {@code
 * com.github.codemonstur:embedded-redis} in test scope.
 */
public final class TestRedis implements AutoCloseable {

  /** The bound on every wait of the admin connection. */
  public static final Duration WAIT = Duration.ofSeconds(3);

  private static String sharedUrl;
  private static RedisServer sharedEmbedded;

  /** The shared server's URL, as the code under test is given it. */
  public final String url;

  /** This fixture's key prefix, {@code servicehooks-test:} and a random UUID; keys are below it. */
  public final String prefix = "servicehooks-test:" + UUID.randomUUID();

  private final RedisClient adminClient;
  private final StatefulRedisConnection<String, String> admin;

  private TestRedis(String url) {
    this.url = url;
    this.adminClient = client(url);
    this.admin = adminClient.connect();
  }

  /** A fresh prefix on the shared server. */
  public static TestRedis shared() {
    return new TestRedis(sharedUrl());
  }

  /** Direct commands on the server, for inspecting keys. */
  public RedisCommands<String, String> admin() {
    return admin.sync();
  }

  /** Every key under this fixture's prefix ({@code prefix + ":*"}). */
  public List<String> keys() {
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

  /**
   * The shared URL with {@code password} in it for the default user, unless the URL already carries
   * credentials: a test's default user has none ({@code nopass} accepts any), so the store works
   * while the test looks for the password in logs and errors.
   */
  public String urlWithPassword(String password) {
    return url.contains("@") ? url : url.replaceFirst("://", "://default:" + password + "@");
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

  /** The URL of the server every test shares: the configured one if it answers, else embedded. */
  public static synchronized String sharedUrl() {
    if (sharedUrl != null) {
      return sharedUrl;
    }
    String configured = System.getenv("SERVICEHOOKS_TEST_REDIS_URL");
    String url = configured == null || configured.isBlank() ? "redis://127.0.0.1:6379" : configured;
    if (answers(url)) {
      sharedUrl = url;
    } else {
      int port = Ports.free();
      sharedEmbedded = embedded(port);
      start(sharedEmbedded);
      Runtime.getRuntime().addShutdownHook(new Thread(TestRedis::stopShared));
      sharedUrl = "redis://127.0.0.1:" + port;
    }
    return sharedUrl;
  }

  /** Starts a server of the test's own on a free port; the test stops and restarts it. */
  public static OwnServer startOwnServer(String... settings) {
    OwnServer server = new OwnServer(Ports.free(), settings);
    server.start();
    return server;
  }

  /** An embedded redis-server on a fixed port that can be stopped and started again. */
  public static final class OwnServer implements AutoCloseable {

    /** The port it listens on, the same across restarts. */
    public final int port;

    private final String[] settings;
    private RedisServer server;

    private OwnServer(int port, String... settings) {
      this.port = port;
      this.settings = settings.clone();
    }

    /** {@code redis://127.0.0.1:<port>}. */
    public String url() {
      return "redis://127.0.0.1:" + port;
    }

    /** Starts it (again) on the same port with the same settings. */
    public synchronized void start() {
      server = embedded(port, settings);
      TestRedis.start(server);
    }

    /** Stops it; a stopped server stays stopped. */
    public synchronized void stop() {
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
}
