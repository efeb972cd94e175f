package io.servicehooks.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP proxy in front of the test database, so a test can take "the database" away (every
 * connection cut, new ones refused) and bring it back on the same port, without touching the server
 * the other tests share.
 */
public final class TcpProxy implements AutoCloseable {

  private final String targetHost;
  private final int targetPort;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile ServerSocket server;
  private int port;

  /** A proxy to {@code targetHost:targetPort}; {@link #start()} opens its loopback port. */
  public TcpProxy(String targetHost, int targetPort) {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
  }

  /** Listens (again, on the same port after {@link #stop()}) and forwards new connections. */
  public synchronized TcpProxy start() throws IOException {
    ServerSocket s = new ServerSocket();
    s.setReuseAddress(true);
    s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    port = s.getLocalPort();
    server = s;
    Thread t = new Thread(() -> accept(s), "test-proxy-accept");
    t.setDaemon(true);
    t.start();
    return this;
  }

  /** The loopback port to connect to instead of the target. */
  public int port() {
    return port;
  }

  private void accept(ServerSocket s) {
    while (!s.isClosed()) {
      try {
        Socket client = s.accept();
        Socket upstream = new Socket();
        upstream.connect(new InetSocketAddress(targetHost, targetPort), 2_000);
        sockets.add(client);
        sockets.add(upstream);
        pump(client, upstream);
        pump(upstream, client);
      } catch (IOException closed) {
        return;
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (IOException cut) {
                // one side went away: close both
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "test-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  /** Refuses new connections and cuts every open one, as a database that went away. */
  public synchronized void stop() {
    closeQuietly(server);
    for (Socket s : sockets) {
      closeQuietly(s);
    }
    sockets.clear();
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      if (c != null) {
        c.close();
      }
    } catch (Exception ignored) {
      // closing anyway
    }
  }

  @Override
  public void close() {
    stop();
  }
}
