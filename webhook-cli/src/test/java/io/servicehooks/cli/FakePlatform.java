package io.servicehooks.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A far side that answers as a test tells it, for what the simulator does not play: stalled and
 * trickling answers, refusals of the token request, odd headers. A real HTTP server on port 0; per
 * path a queue of answers, the last of which repeats. Closing it releases every stalled answer.
 */
final class FakePlatform implements AutoCloseable {

  /** One answer to one request. */
  @FunctionalInterface
  interface Answer {
    void answer(HttpExchange exchange, FakePlatform platform) throws IOException;
  }

  private final HttpServer server;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final Map<String, Deque<Answer>> answers = new HashMap<>();
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private final CountDownLatch closed = new CountDownLatch(1);
  private final String host;

  private FakePlatform(String bindHost, String host) throws IOException {
    this.host = host;
    server = HttpServer.create(new InetSocketAddress(bindHost, 0), 0);
    server.setExecutor(threads);
    server.createContext("/", this::handle);
    server.start();
  }

  /** On the loopback interface. */
  static FakePlatform start() throws IOException {
    return new FakePlatform("127.0.0.1", "127.0.0.1");
  }

  /** On every interface, addressed by {@code host}. */
  static FakePlatform startOn(String host) throws IOException {
    return new FakePlatform("0.0.0.0", host);
  }

  /** An address of this machine that is not a loopback one, or null when it has none. */
  static String nonLoopbackAddress() throws SocketException {
    for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      if (!nic.isUp() || nic.isLoopback()) {
        continue;
      }
      for (InetAddress address : Collections.list(nic.getInetAddresses())) {
        if (address instanceof java.net.Inet4Address && !address.isLoopbackAddress()) {
          return address.getHostAddress();
        }
      }
    }
    return null;
  }

  URI baseUrl() {
    return URI.create("http://" + host + ":" + server.getAddress().getPort());
  }

  /** Answers requests to {@code path} with these, in order; the last one repeats. */
  synchronized FakePlatform on(String path, Answer... inOrder) {
    answers.put(path, new ArrayDeque<>(List.of(inOrder)));
    return this;
  }

  /** {@code METHOD /path?query} of every request so far. */
  List<String> requests() {
    return requests;
  }

  long count(String path) {
    return requests.stream().filter(r -> r.split(" ")[1].split("\\?")[0].equals(path)).count();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      try (InputStream in = exchange.getRequestBody()) {
        in.readAllBytes();
      }
      String path = exchange.getRequestURI().getPath();
      requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI());
      Answer answer;
      synchronized (this) {
        Deque<Answer> queue = answers.get(path);
        answer = queue == null ? null : queue.size() > 1 ? queue.poll() : queue.peek();
      }
      if (answer == null) {
        json(404, "{\"title\":\"Not Found Error\"}").answer(exchange, this);
        return;
      }
      answer.answer(exchange, this);
    } catch (IOException e) {
      // the client went away
    }
  }

  /** Waits until the platform is closed (a stalled answer), at most a minute. */
  void awaitClose() {
    try {
      closed.await(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  boolean isClosed() {
    return closed.getCount() == 0;
  }

  /** {@code body} with {@code status} and the given header name-value pairs. */
  static Answer json(int status, String body, String... headers) {
    return (exchange, platform) -> {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      for (int i = 0; i + 1 < headers.length; i += 2) {
        exchange.getResponseHeaders().add(headers[i], headers[i + 1]);
      }
      exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    };
  }

  /** A bearer token, as {@code POST /oauth2/token} gives it. */
  static Answer token(String token) {
    return json(200, "{\"token_type\":\"bearer\",\"access_token\":\"" + token + "\"}");
  }

  /** Declares {@code declared} body bytes, sends {@code sent} of them, and stops until closed. */
  static Answer stalledBody(int status, int declared, String sent) {
    return (exchange, platform) -> {
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(status, declared);
      OutputStream out = exchange.getResponseBody();
      out.write(sent.getBytes(StandardCharsets.UTF_8));
      out.flush();
      platform.awaitClose();
    };
  }

  /**
   * A chunked 200 that sends {@code first} (when not null), then {@code unit} every {@code
   * everyMillis} until the client goes away or the platform is closed.
   */
  static Answer stream(String first, String unit, long everyMillis) {
    return (exchange, platform) -> {
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, 0);
      OutputStream out = exchange.getResponseBody();
      if (first != null) {
        out.write(first.getBytes(StandardCharsets.UTF_8));
        out.flush();
      }
      while (!platform.isClosed()) {
        out.write(unit.getBytes(StandardCharsets.UTF_8));
        out.flush();
        try {
          if (platform.closed.await(everyMillis, TimeUnit.MILLISECONDS)) {
            return;
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    };
  }

  /** A stream of keep-alives (a bare newline every 200 ms). */
  static Answer keepAlives() {
    return stream(null, "\n", 200);
  }

  @Override
  public void close() {
    closed.countDown();
    server.stop(0);
    threads.shutdownNow();
  }
}
