package io.servicehooks.testsupport;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A platform that answers badly on purpose: a {@link ServerSocket} on a free loopback port whose
 * every connection is answered by a script that writes raw bytes, so a test can send headers and
 * then part of a body, or a trickle, and hold the connection open. A real HTTP server always
 * finishes its answers; this one does not have to. Each connection is read up to the end of its
 * request head, handed to the script on a thread of its own, and kept open until the script returns
 * and closes it, or until {@link #close()}.
 */
public final class RawHttpServer implements AutoCloseable {

  /** Answers one connection. */
  @FunctionalInterface
  public interface Script {
    /**
     * Writes the answer to {@code request} (its request line, such as {@code GET /2/activity/stream
     * HTTP/1.1}) to {@code out}; may block or wait for as long as it likes. The connection closes
     * when the script returns, unless {@link Connection#hold()} was called.
     */
    void answer(String request, Connection out) throws Exception;
  }

  /** One connection's output, written as raw bytes. */
  public static final class Connection {
    private final Socket socket;
    private final OutputStream out;
    private volatile boolean held;

    private Connection(Socket socket) throws IOException {
      this.socket = socket;
      this.out = socket.getOutputStream();
    }

    /** Writes {@code text} in UTF-8 and flushes it. */
    public Connection write(String text) throws IOException {
      out.write(text.getBytes(StandardCharsets.UTF_8));
      out.flush();
      return this;
    }

    /** Keeps the connection open after the script returns, until the server closes. */
    public void hold() {
      held = true;
    }

    /** Whether the far side closed the connection (checked by reading, without blocking long). */
    public boolean closedByPeer() {
      try {
        socket.setSoTimeout(50);
        return socket.getInputStream().read() < 0;
      } catch (java.net.SocketTimeoutException stillOpen) {
        return false;
      } catch (IOException e) {
        return true;
      }
    }
  }

  private final ServerSocket server;
  private final Script script;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private final List<Connection> connections = new CopyOnWriteArrayList<>();
  private final Thread acceptor;

  private RawHttpServer(Script script) throws IOException {
    this.script = script;
    this.server = new ServerSocket();
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    this.acceptor = new Thread(this::accept, "raw-http-server");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** Starts a server whose every connection is answered by {@code script}. */
  public static RawHttpServer start(Script script) {
    try {
      return new RawHttpServer(script);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code http://127.0.0.1:PORT}. */
  public URI baseUrl() {
    return URI.create(
        "http://" + server.getInetAddress().getHostAddress() + ":" + server.getLocalPort());
  }

  /** The request line of every connection so far, in order. */
  public List<String> requests() {
    return List.copyOf(requests);
  }

  /** Every connection so far, in order. */
  public List<Connection> connections() {
    return List.copyOf(connections);
  }

  private void accept() {
    while (!server.isClosed()) {
      Socket socket;
      try {
        socket = server.accept();
      } catch (IOException closed) {
        return;
      }
      sockets.add(socket);
      Thread t = new Thread(() -> serve(socket), "raw-http-connection");
      t.setDaemon(true);
      t.start();
    }
  }

  private void serve(Socket socket) {
    Connection connection = null;
    try {
      String head = readHead(socket.getInputStream());
      String requestLine = head.lines().findFirst().orElse("");
      requests.add(requestLine);
      connection = new Connection(socket);
      connections.add(connection);
      script.answer(requestLine, connection);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      // the client went away, or the script gave up: the connection ends
    } finally {
      if (connection == null || !connection.held) {
        try {
          socket.close();
        } catch (IOException ignored) {
          // closing is all that matters
        }
      }
    }
  }

  /** The request line and headers; a request body, if any, is left unread. */
  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    byte[] end = {'\r', '\n', '\r', '\n'};
    while (matched < end.length) {
      int b = in.read();
      if (b < 0) {
        break;
      }
      head.write(b);
      matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    return head.toString(StandardCharsets.ISO_8859_1);
  }

  /** Closes the listening socket and every connection. */
  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException ignored) {
      // closing is all that matters
    }
    for (Socket socket : sockets) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // closing is all that matters
      }
    }
  }

  @Override
  public String toString() {
    return "RawHttpServer[" + baseUrl() + "]";
  }
}
