package io.servicehooks.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A test's reader of {@code GET /2/activity/stream} over a real {@link HttpClient}: it collects
 * every line (keep-alives as empty strings) and how the stream ended.
 */
final class StreamReader implements AutoCloseable {

  enum End {
    OPEN,
    CLEAN,
    ERROR
  }

  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  final HttpResponse<InputStream> response;
  private final List<String> lines = new ArrayList<>();
  private final AtomicReference<End> end = new AtomicReference<>(End.OPEN);
  private final Thread thread;

  private StreamReader(HttpResponse<InputStream> response) {
    this.response = response;
    this.thread = new Thread(this::read, "stream-reader");
    thread.setDaemon(true);
    if (response.statusCode() == 200) {
      thread.start();
    }
  }

  /** Connects with {@code query} (may be empty) and the given bearer token. */
  static StreamReader open(PlatformSimulator simulator, String bearer, String query) {
    URI uri =
        simulator
            .baseUrl()
            .resolve(StreamHandler.PATH + (query == null || query.isEmpty() ? "" : "?" + query));
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).GET();
    if (bearer != null) {
      request.header("Authorization", "Bearer " + bearer);
    }
    try {
      return new StreamReader(
          HTTP.send(request.build(), HttpResponse.BodyHandlers.ofInputStream()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  int status() {
    return response.statusCode();
  }

  /** The answer's body when the connect was refused. */
  String refusal() {
    try (InputStream in = response.body()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  List<String> lines() {
    synchronized (lines) {
      return List.copyOf(lines);
    }
  }

  /** The lines that are not keep-alives. */
  List<String> events() {
    return lines().stream().filter(line -> !line.isEmpty()).toList();
  }

  long keepAlives() {
    return lines().stream().filter(String::isEmpty).count();
  }

  End end() {
    return end.get();
  }

  private void read() {
    try (InputStream in = response.body()) {
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      int b;
      while ((b = in.read()) != -1) {
        if (b == '\n') {
          synchronized (lines) {
            lines.add(line.toString(StandardCharsets.UTF_8));
          }
          line.reset();
        } else {
          line.write(b);
        }
      }
      end.set(End.CLEAN);
    } catch (IOException e) {
      end.set(End.ERROR);
    }
  }

  @Override
  public void close() {
    try {
      response.body().close();
    } catch (IOException e) {
      // Closing our side of a stream that already ended.
    }
  }
}
