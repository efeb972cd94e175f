package io.servicehooks.testkit;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The simulator's lifecycle: its worker and timer threads, the JDK HTTP server bound once on {@link
 * #start}, and the orderly {@link #close}. Started once, closed once; knows nothing of the API.
 */
final class SimulatorServer {

  private final String host;
  private final int requestedPort;
  private final ExecutorService workers =
      Executors.newCachedThreadPool(daemonThreads("platform-simulator"));
  private final ScheduledExecutorService scheduler =
      Executors.newScheduledThreadPool(2, daemonThreads("platform-simulator-timer"));

  private final Object lifecycle = new Object();
  private HttpServer server; // guarded by lifecycle
  private boolean closed; // guarded by lifecycle

  SimulatorServer(String host, int requestedPort) {
    this.host = host;
    this.requestedPort = requestedPort;
  }

  /** The threads that run handlers, deliveries and CRC checks. */
  ExecutorService workers() {
    return workers;
  }

  /** The timer threads that drive retries and keep-alives. */
  ScheduledExecutorService scheduler() {
    return scheduler;
  }

  /**
   * Binds the server, serves {@code contexts} (path prefix to handler) and, when {@code every} is
   * not null, runs {@code periodic} on the workers at that period.
   *
   * @throws UncheckedIOException when the address cannot be bound
   * @throws IllegalStateException when already started or closed
   */
  void start(Map<String, HttpHandler> contexts, Duration every, Runnable periodic) {
    synchronized (lifecycle) {
      if (closed) {
        throw new IllegalStateException("the simulator is closed");
      }
      if (server != null) {
        throw new IllegalStateException("the simulator is already started");
      }
      try {
        server =
            HttpServer.create(new InetSocketAddress(InetAddress.getByName(host), requestedPort), 0);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot bind " + host + ":" + requestedPort, e);
      }
      new LinkedHashMap<>(contexts).forEach(server::createContext);
      server.setExecutor(workers);
      server.start();
      if (every != null) {
        // Hand off to the workers: a slow CRC must not hold up the timer that drives retries.
        scheduler.scheduleWithFixedDelay(
            () -> workers.execute(periodic),
            every.toNanos(),
            every.toNanos(),
            TimeUnit.NANOSECONDS);
      }
    }
  }

  /** The bound port. */
  int port() {
    synchronized (lifecycle) {
      if (server == null) {
        throw new IllegalStateException("the simulator is not started");
      }
      return server.getAddress().getPort();
    }
  }

  /** Stops the server and the threads; {@code beforeStop} runs once, before the server stops. */
  void close(Runnable beforeStop) {
    synchronized (lifecycle) {
      if (closed) {
        return;
      }
      closed = true;
      beforeStop.run();
      if (server != null) {
        server.stop(0);
      }
    }
    scheduler.shutdownNow();
    workers.shutdownNow();
  }

  /** Where it listens, or "not started" / "closed". */
  String where() {
    synchronized (lifecycle) {
      return server == null
          ? (closed ? "closed" : "not started")
          : "http://" + host + ":" + server.getAddress().getPort();
    }
  }

  private static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
