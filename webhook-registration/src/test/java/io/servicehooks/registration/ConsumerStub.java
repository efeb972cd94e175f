package io.servicehooks.registration;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A consumer answering the simulator's CRC checks on {@code /webhook...}, with its HMAC computed
 * here with {@code javax.crypto}, independent of any servicehooks code. It can be told to fail its
 * checks, to hold CRC answers until several checks are in flight, and to hold deliveries.
 */
final class ConsumerStub implements AutoCloseable {

  private final HttpServer server;
  private final ExecutorService executor =
      Executors.newCachedThreadPool(
          r -> {
            Thread thread = new Thread(r, "consumer-stub");
            thread.setDaemon(true);
            return thread;
          });
  private final String consumerSecret;
  final AtomicInteger crcRequests = new AtomicInteger();
  final AtomicInteger deliveries = new AtomicInteger();
  final AtomicBoolean failing = new AtomicBoolean();
  final AtomicReference<CountDownLatch> crcBarrier = new AtomicReference<>();
  final AtomicReference<CountDownLatch> deliveryHold = new AtomicReference<>();

  private ConsumerStub(String consumerSecret) throws IOException {
    this.consumerSecret = consumerSecret;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/webhook", this::handle);
    server.setExecutor(executor);
    server.start();
  }

  static ConsumerStub start(String consumerSecret) throws IOException {
    return new ConsumerStub(consumerSecret);
  }

  /** {@code http://127.0.0.1:<port><path>}; paths below {@code /webhook} are served. */
  String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  private void handle(HttpExchange exchange) throws IOException {
    exchange.getRequestBody().readAllBytes();
    if ("POST".equals(exchange.getRequestMethod())) {
      deliveries.incrementAndGet();
      await(deliveryHold.get());
      respond(exchange, 200, "");
      return;
    }
    String token = null;
    String query = exchange.getRequestURI().getRawQuery();
    if (query != null) {
      for (String pair : query.split("&")) {
        if (pair.startsWith("crc_token=")) {
          token = URLDecoder.decode(pair.substring(10), StandardCharsets.UTF_8);
        }
      }
    }
    if (token == null) {
      respond(exchange, 400, "{}");
      return;
    }
    crcRequests.incrementAndGet();
    CountDownLatch barrier = crcBarrier.get();
    if (barrier != null) {
      barrier.countDown();
      await(barrier);
    }
    if (failing.get()) {
      respond(exchange, 500, "{}");
      return;
    }
    respond(
        exchange, 200, "{\"response_token\":\"sha256=" + hmacBase64(consumerSecret, token) + "\"}");
  }

  private static void await(CountDownLatch latch) {
    if (latch == null) {
      return;
    }
    try {
      latch.await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static String hmacBase64(String key, String message) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return Base64.getEncoder()
          .encodeToString(mac.doFinal(message.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      exchange.getResponseBody().write(bytes);
    }
    exchange.close();
  }

  @Override
  public void close() {
    CountDownLatch hold = deliveryHold.get();
    if (hold != null) {
      hold.countDown();
    }
    server.stop(0);
    executor.shutdownNow();
  }
}
