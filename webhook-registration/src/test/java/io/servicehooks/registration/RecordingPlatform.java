package io.servicehooks.registration;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A real JDK HTTP server on a free loopback port that plays the platform's post endpoints for the
 * client's tests: it answers each request with the next queued answer (or one computed from the
 * request) and records every request as it arrived (method, path and query, headers, body).
 */
final class RecordingPlatform implements AutoCloseable {

  /** One request as the server saw it. */
  record Request(String method, URI uri, Map<String, List<String>> headers, String body) {
    String header(String name) {
      for (Map.Entry<String, List<String>> entry : headers.entrySet()) {
        if (entry.getKey().equalsIgnoreCase(name)) {
          return entry.getValue().get(0);
        }
      }
      return null;
    }

    /** The raw query's value of {@code name}, decoded. */
    String query(String name) {
      for (OAuthSigner.Param param : OAuthSigner.queryParams(uri)) {
        if (param.name().equals(name)) {
          return param.value();
        }
      }
      return null;
    }
  }

  /** One answer to send. */
  record Answer(int status, Map<String, String> headers, String body) {
    static Answer json(int status, String body) {
      return new Answer(status, Map.of("Content-Type", "application/json"), body);
    }
  }

  private final HttpServer server;
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final Deque<Function<Request, Answer>> answers = new ArrayDeque<>();

  RecordingPlatform() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  URI baseUrl() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /** Queues an answer for the next request. */
  synchronized RecordingPlatform answer(int status, String json) {
    answers.add(request -> Answer.json(status, json));
    return this;
  }

  /** Queues an answer with headers for the next request. */
  synchronized RecordingPlatform answer(Answer answer) {
    answers.add(request -> answer);
    return this;
  }

  /** Queues an answer computed from the request. */
  synchronized RecordingPlatform answer(Function<Request, Answer> answer) {
    answers.add(answer);
    return this;
  }

  List<Request> requests() {
    return List.copyOf(requests);
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String body;
      try (InputStream in = exchange.getRequestBody()) {
        body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      Request request =
          new Request(
              exchange.getRequestMethod(),
              exchange.getRequestURI(),
              Map.copyOf(exchange.getRequestHeaders()),
              body);
      requests.add(request);
      Function<Request, Answer> next;
      synchronized (this) {
        next = answers.poll();
      }
      Answer answer =
          next == null ? Answer.json(500, "{\"title\":\"no answer queued\"}") : next.apply(request);
      byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
      answer.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
      exchange.sendResponseHeaders(answer.status(), bytes.length == 0 ? -1 : bytes.length);
      if (bytes.length > 0) {
        exchange.getResponseBody().write(bytes);
      }
    } catch (RuntimeException e) {
      throw new UncheckedIOException(new IOException(e));
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
