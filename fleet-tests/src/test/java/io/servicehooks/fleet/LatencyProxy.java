package io.servicehooks.fleet;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy that delays every chunk it forwards by {@link #delay(long)} milliseconds in each
 * direction: a slow store or a slow network without {@code tc netem}. With several upstreams it
 * spreads connections round-robin and skips an upstream that refuses, as a load balancer in front
 * of a fleet does.
 */
final class LatencyProxy implements AutoCloseable {

  private final ServerSocket server;
  private final List<InetSocketAddress> upstreams;
  private final AtomicLong delayMillis = new AtomicLong();
  private final AtomicInteger next = new AtomicInteger();
  private final ExecutorService threads = Executors.newCachedThreadPool(r -> daemon(r));

  LatencyProxy(String bindHost, int port, List<InetSocketAddress> upstreams) throws IOException {
    this.upstreams = List.copyOf(upstreams);
    this.server = new ServerSocket();
    server.setReuseAddress(true);
    server.bind(new InetSocketAddress(InetAddress.getByName(bindHost), port));
    threads.execute(this::accept);
  }

  int port() {
    return server.getLocalPort();
  }

  /** The delay added to every forwarded chunk from now on, in both directions. */
  void delay(long millis) {
    delayMillis.set(millis);
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        threads.execute(() -> connect(client));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void connect(Socket client) {
    for (int i = 0; i < upstreams.size(); i++) {
      InetSocketAddress to = upstreams.get(Math.floorMod(next.getAndIncrement(), upstreams.size()));
      Socket upstream = new Socket();
      try {
        upstream.connect(to, 1000);
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
        threads.execute(() -> pump(client, upstream));
        threads.execute(() -> pump(upstream, client));
        return;
      } catch (IOException e) {
        closeQuietly(upstream);
      }
    }
    closeQuietly(client);
  }

  private void pump(Socket from, Socket to) {
    byte[] buffer = new byte[16 * 1024];
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        long d = delayMillis.get();
        if (d > 0) {
          Thread.sleep(d); // the fault itself: this proxy is slow on purpose
        }
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException | InterruptedException e) {
      // either side went away: close both
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // closing
    }
  }

  private static Thread daemon(Runnable r) {
    Thread t = new Thread(r, "latency-proxy");
    t.setDaemon(true);
    return t;
  }

  @Override
  public void close() throws IOException {
    server.close();
    threads.shutdownNow();
  }
}
