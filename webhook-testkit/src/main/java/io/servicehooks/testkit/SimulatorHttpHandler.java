package io.servicehooks.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Translates between the JDK HTTP server and {@link Api}, and plays the queued {@link Fault}s on
 * {@code /2/...} calls.
 */
final class SimulatorHttpHandler implements HttpHandler {

  private static final Logger log = LoggerFactory.getLogger(SimulatorHttpHandler.class);
  private static final int MAX_BODY_BYTES = 1 << 20;

  private final Api api;

  // A call that meets an "applied, but the answer is late or lost" fault finishes applying before
  // any later call is served. A client that gives up on the answer and looks (lists) therefore
  // always sees the change, however slow the CRC check inside the apply was: tests of lost answers
  // need not race the client's time-out against that check.
  private final ReadWriteLock applying = new ReentrantReadWriteLock();

  SimulatorHttpHandler(Api api) {
    this.api = api;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try {
      byte[] body = readBody(exchange);
      if (body == null) {
        send(
            exchange,
            SimResponse.problem(
                413, "Payload Too Large", "Body over " + MAX_BODY_BYTES + " bytes", "about:blank"));
        return;
      }
      ApiRequest request =
          new ApiRequest(
              exchange.getRequestMethod(),
              exchange.getRequestURI().getPath(),
              exchange.getRequestURI().getRawQuery(),
              exchange.getRequestHeaders(),
              body);
      Fault fault = request.path().startsWith("/2/") ? api.pollFault() : null;
      if (fault != null) {
        log.debug("{} meets {}", request, fault);
        play(fault, request, exchange);
        return;
      }
      send(exchange, apply(request, applying.readLock()));
    } catch (RuntimeException e) {
      log.warn(
          "simulator failed on {} {}",
          exchange.getRequestMethod(),
          exchange.getRequestURI().getPath(),
          e);
      send(
          exchange,
          SimResponse.problem(500, "Internal Server Error", "Simulator error", "about:blank"));
    } finally {
      exchange.close();
    }
  }

  private void play(Fault fault, ApiRequest request, HttpExchange exchange) throws IOException {
    switch (fault.kind()) {
      case RATE_LIMITED:
        send(exchange, api.rateLimited(fault.reset()));
        break;
      case SERVER_ERROR:
        send(exchange, api.failure(fault.status()));
        break;
      case DELAY:
        SimResponse late = apply(request, applying.writeLock());
        if (pause(fault.delay())) {
          send(exchange, late);
        }
        break;
      case DROP_RESPONSE:
        apply(request, applying.writeLock());
        send(exchange, api.failure(fault.status()));
        break;
      case CLOSE_CONNECTION:
        apply(request, applying.writeLock());
        // Closing an exchange that never sent headers makes the JDK server drop the connection.
        break;
      default:
        throw new IllegalStateException("unknown fault " + fault);
    }
  }

  private SimResponse apply(ApiRequest request, Lock lock) {
    lock.lock();
    try {
      return api.handle(request);
    } finally {
      lock.unlock();
    }
  }

  // A simulated slow server, not a test wait: the handler thread holds the answer back.
  private static boolean pause(Duration delay) {
    try {
      Thread.sleep(delay.toMillis());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static byte[] readBody(HttpExchange exchange) throws IOException {
    try (InputStream in = exchange.getRequestBody()) {
      byte[] bytes = in.readNBytes(MAX_BODY_BYTES + 1);
      return bytes.length > MAX_BODY_BYTES ? null : bytes;
    }
  }

  private static void send(HttpExchange exchange, SimResponse response) throws IOException {
    for (Map.Entry<String, String> header : response.headers().entrySet()) {
      exchange.getResponseHeaders().set(header.getKey(), header.getValue());
    }
    byte[] body = response.body();
    exchange.sendResponseHeaders(response.status(), body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }
}
