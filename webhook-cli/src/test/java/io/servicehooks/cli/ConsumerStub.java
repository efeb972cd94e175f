package io.servicehooks.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A consumer on port 0: answers CRC checks on {@code /webhook...} and records deliveries. Its HMAC
 * is computed here with {@code javax.crypto}, independent of the code under test.
 */
final class ConsumerStub implements AutoCloseable {

  /** One POST as received. */
  record Delivery(byte[] body, String signature, String contentType) {}

  private final HttpServer server;
  private final String consumerSecret;
  final List<Delivery> deliveries = new CopyOnWriteArrayList<>();
  final AtomicInteger deliveryStatus = new AtomicInteger(200);

  ConsumerStub(String consumerSecret) throws IOException {
    this.consumerSecret = consumerSecret;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/webhook", this::handle);
    server.start();
  }

  String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  private void handle(HttpExchange exchange) throws IOException {
    byte[] body = exchange.getRequestBody().readAllBytes();
    if ("POST".equals(exchange.getRequestMethod())) {
      deliveries.add(
          new Delivery(
              body,
              exchange.getRequestHeaders().getFirst("X-Service-Webhooks-Signature"),
              exchange.getRequestHeaders().getFirst("Content-Type")));
      respond(exchange, deliveryStatus.get(), "{\"received\":true}");
      return;
    }
    String query = exchange.getRequestURI().getRawQuery();
    String token = null;
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
    respond(
        exchange,
        200,
        "{\"response_token\":\""
            + hmac(consumerSecret, token.getBytes(StandardCharsets.UTF_8))
            + "\"}");
  }

  /** {@code sha256=<base64 HMAC-SHA256>}, computed independently of the CLI. */
  static String hmac(String key, byte[] message) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return "sha256=" + Base64.getEncoder().encodeToString(mac.doFinal(message));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
