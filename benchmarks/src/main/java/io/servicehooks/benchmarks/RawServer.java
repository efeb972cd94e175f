package io.servicehooks.benchmarks;

import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import io.undertow.util.Methods;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Load baseline (a): the least an Undertow server can do for a delivery. It reads the whole body on
 * the IO thread and answers 200 with a body of the consumer's size; a GET gets a fixed answer the
 * size of a CRC answer, unsigned. Nothing is checked.
 *
 * <p>{@code PORT=18080 java -cp benchmarks.jar io.servicehooks.benchmarks.RawServer}
 */
public final class RawServer {

  private static final ByteBuffer ACCEPTED =
      bytes("{\"status\":\"accepted\",\"events\":1,\"duplicates\":0}");
  private static final ByteBuffer CRC =
      bytes("{\"response_token\":\"sha256=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\"}");

  private RawServer() {}

  public static void main(String[] args) {
    BaselineEnv.undertow().setHandler(RawServer::handle).build().start();
    System.out.println("raw server on 127.0.0.1:" + BaselineEnv.port());
  }

  private static void handle(HttpServerExchange exchange) {
    exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
    if (Methods.POST.equals(exchange.getRequestMethod())) {
      exchange
          .getRequestReceiver()
          .receiveFullBytes((ex, body) -> ex.getResponseSender().send(ACCEPTED.duplicate()));
    } else {
      exchange.getResponseSender().send(CRC.duplicate());
    }
  }

  private static ByteBuffer bytes(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8)).asReadOnlyBuffer();
  }
}
