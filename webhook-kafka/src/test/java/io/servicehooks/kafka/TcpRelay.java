package io.servicehooks.kafka;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real TCP relay in front of the broker's client listener: while {@link #cut() cut}, every open
 * connection is closed and new ones are closed at once, so the broker is gone for its clients
 * without stopping it; {@link #restore()} lets them through again.
 */
final class TcpRelay implements AutoCloseable {

  private final ServerSocket server;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private volatile int targetPort;
  private volatile boolean cut;

  TcpRelay() throws IOException {
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(this::accept, "tcp-relay-accept");
    accept.setDaemon(true);
    accept.start();
  }

  int port() {
    return server.getLocalPort();
  }

  /** Where connections go: the broker's own client port, known once it started. */
  void target(int port) {
    this.targetPort = port;
  }

  void cut() {
    cut = true;
    for (Socket s : open) {
      closeQuietly(s);
    }
    open.clear();
  }

  void restore() {
    cut = false;
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        if (cut || targetPort == 0) {
          closeQuietly(client);
          continue;
        }
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        open.add(client);
        open.add(upstream);
        pipe(client, upstream);
        pipe(upstream, client);
      } catch (IOException e) {
        // closed, or the broker refused: the client sees a closed connection
      }
    }
  }

  private void pipe(Socket from, Socket to) {
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
              } catch (IOException e) {
                // one side closed
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "tcp-relay-pipe");
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    cut();
  }
}
