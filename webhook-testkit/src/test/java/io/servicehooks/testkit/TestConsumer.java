package io.servicehooks.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.ArrayDeque;
import java.util.Base64;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A tiny real webhook consumer on port 0 for the tests: answers CRC requests (correctly or in a
 * chosen wrong way, computed here with javax.crypto, not with the simulator's code) and records
 * deliveries.
 */
final class TestConsumer implements AutoCloseable {

  /** How the consumer answers the next CRC requests. */
  enum Crc {
    CORRECT,
    WRONG_TOKEN,
    SERVER_ERROR,
    REDIRECT,
    HANG
  }

  /** One received delivery. */
  record Received(String body, String signature) {}

  private final String secret;
  private final HttpServer server;
  private final ExecutorService executor =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "test-consumer");
            t.setDaemon(true);
            return t;
          });
  private final CountDownLatch closing = new CountDownLatch(1);
  private final Deque<Integer> deliveryStatuses = new ArrayDeque<>();
  private final List<Received> received = new CopyOnWriteArrayList<>();
  private final AtomicInteger crcRequests = new AtomicInteger();
  private volatile Crc crc = Crc.CORRECT;
  private final AtomicInteger deliveriesToHang = new AtomicInteger();

  TestConsumer(String secret) throws IOException {
    this.secret = secret;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.setExecutor(executor);
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/webhook";
  }

  void crc(Crc mode) {
    crc = mode;
  }

  /** Statuses for the next deliveries, in order; afterwards 200. */
  void answerDeliveriesWith(Integer... statuses) {
    synchronized (deliveryStatuses) {
      deliveryStatuses.addAll(List.of(statuses));
    }
  }

  /** The next {@code count} deliveries get no answer until the consumer closes. */
  void hangDeliveries(int count) {
    deliveriesToHang.set(count);
  }

  List<Received> received() {
    return List.copyOf(received);
  }

  List<String> receivedBodies() {
    return received.stream().map(Received::body).toList();
  }

  int crcRequests() {
    return crcRequests.get();
  }

  /** The CRC answer computed independently of the simulator, with javax.crypto directly. */
  static String expectedResponseToken(String secret, String message) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return "sha256="
          + Base64.getEncoder()
              .encodeToString(mac.doFinal(message.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    try {
      byte[] body = exchange.getRequestBody().readAllBytes();
      if (exchange.getRequestMethod().equals("GET")) {
        answerCrc(exchange);
      } else {
        received.add(
            new Received(
                new String(body, StandardCharsets.UTF_8),
                exchange.getRequestHeaders().getFirst("X-Service-Webhooks-Signature")));
        if (deliveriesToHang.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
          hang();
        }
        Integer status;
        synchronized (deliveryStatuses) {
          status = deliveryStatuses.poll();
        }
        exchange.sendResponseHeaders(status == null ? 200 : status, -1);
      }
    } finally {
      exchange.close();
    }
  }

  private void answerCrc(HttpExchange exchange) throws IOException {
    crcRequests.incrementAndGet();
    String token = null;
    for (String pair : exchange.getRequestURI().getRawQuery().split("&")) {
      if (pair.startsWith("crc_token=")) {
        token = URLDecoder.decode(pair.substring("crc_token=".length()), StandardCharsets.UTF_8);
      }
    }
    switch (crc) {
      case CORRECT -> json(exchange, expectedResponseToken(secret, token));
      case WRONG_TOKEN -> json(exchange, expectedResponseToken(secret + "x", token));
      case SERVER_ERROR -> exchange.sendResponseHeaders(500, -1);
      case REDIRECT -> {
        exchange.getResponseHeaders().set("Location", url());
        exchange.sendResponseHeaders(302, -1);
      }
      case HANG -> hang();
    }
  }

  private void hang() {
    try {
      closing.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void json(HttpExchange exchange, String responseToken) throws IOException {
    byte[] bytes =
        ("{\"response_token\":\"" + responseToken + "\"}").getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    closing.countDown();
    server.stop(0);
    executor.shutdownNow();
  }
}
