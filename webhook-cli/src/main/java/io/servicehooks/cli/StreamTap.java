package io.servicehooks.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The reader behind {@code servicehooks listen}: holds {@code GET /2/activity/stream}, prints one
 * line per event and optionally forwards each event, signed as the platform signs, to a local
 * consumer. Deliberately small: it reconnects with the platform's back-off (at once after a drop,
 * +250 ms per network failure up to 16 s, 5 s doubling up to 320 s on HTTP errors, 60 s doubling on
 * 429 or until {@code x-rate-limit-reset}), asks for backfill after a gap, and treats 30 s without
 * a complete line (keep-alives, bare newlines, come every 20 s) as a dead connection: a trickle of
 * bytes that never ends a line is not a live stream. A token request that fails for the moment (a
 * 429, a 5xx, no complete answer within its budget) takes the same back-off; only a refusal of the
 * credentials (401, 403) ends it. Text the platform controls is printed through {@link Printable}.
 * The production reader with metrics and the consumer pipeline is the {@code webhook-stream}
 * module.
 *
 * <p>This class is the connection loop and its back-off; the token is {@link StreamToken}'s, each
 * waits are {@link ReconnectBackoff}'s, each line goes to {@link StreamLines} (printing, {@link
 * EventForwarder forwarding}).
 */
final class StreamTap {

  /** What ended {@link #run()}: a stop (Ctrl-C, interrupt), or the token was refused. */
  enum Outcome {
    STOPPED,
    REFUSED
  }

  /** How long without a complete line counts as a dead connection; keep-alives come every 20 s. */
  static final Duration STALL_TIMEOUT = Duration.ofSeconds(30);

  static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_LINE_BYTES = 4 << 20;

  private final URI baseUri;
  private final URI forwardTo;
  private final PrintWriter err;
  private final Clock clock;
  private final HttpClient http;
  private final Duration stallTimeout;
  private final StreamToken token;
  private final StreamLines lines;

  private volatile boolean stopping;
  private Instant lastLineAt;

  StreamTap(
      URI baseUri,
      String fixedToken,
      String apiKey,
      String apiSecret,
      Predicate<String> events,
      URI forwardTo,
      String consumerSecret,
      boolean json,
      PrintWriter out,
      PrintWriter err,
      Clock clock,
      Duration stallTimeout) {
    this.baseUri = baseUri;
    this.forwardTo = forwardTo;
    this.err = err;
    this.clock = clock;
    this.stallTimeout = stallTimeout;
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    this.token = new StreamToken(baseUri, fixedToken, apiKey, apiSecret, http);
    this.lines =
        new StreamLines(
            events,
            forwardTo == null ? null : new EventForwarder(http, forwardTo, consumerSecret),
            json,
            out,
            err,
            clock);
  }

  /** Asks the loop to end; {@link #run()} returns within about a quarter second. */
  void stop() {
    stopping = true;
  }

  /** Holds the stream until stopped or refused; the calling thread's interrupt also stops it. */
  Outcome run() {
    return loop();
  }

  private Outcome loop() {
    ReconnectBackoff backoff = new ReconnectBackoff(clock);
    boolean refreshed = false;
    boolean connected = false;
    Instant outageSince = null;
    while (!stopped()) {
      Duration wait;
      String cause;
      try {
        HttpResponse<Flow.Publisher<List<ByteBuffer>>> response = connect();
        int status = response.statusCode();
        if (status == 200) {
          if (connected && outageSince != null) {
            err.println(
                "stream reconnected after "
                    + Duration.between(outageSince, clock.instant()).toSeconds()
                    + " s");
          } else {
            err.println(
                "Listening on "
                    + baseUri.resolve("/2/activity/stream")
                    + (forwardTo == null ? "" : ", forwarding to " + forwardTo)
                    + " (Ctrl-C to stop)");
          }
          err.flush();
          connected = true;
          outageSince = null;
          backoff.reset();
          refreshed = false;
          boolean stalled = read(response.body());
          if (stopped()) {
            break;
          }
          outageSince = clock.instant();
          err.println(
              "stream ended"
                  + (stalled ? " (no line for " + stallTimeout.toMillis() + " ms)" : "")
                  + "; reconnecting");
          err.flush();
          continue; // at once after a drop
        }
        String body = StreamChunks.head(response.body());
        if (status == 401 || status == 403) {
          if (status == 401 && token.renewable() && !refreshed) {
            refreshed = true;
            token.forget(); // a revoked token: fetch a new one, once
            continue;
          }
          err.println(
              "error: the platform refused the bearer token (HTTP "
                  + status
                  + ")"
                  + StreamToken.platformMessage(body)
                  + "; check SERVICE_BEARER_TOKEN or SERVICE_API_KEY/SERVICE_API_SECRET");
          err.flush();
          return Outcome.REFUSED;
        }
        if (status == 429) {
          wait =
              backoff.afterRateLimit(
                  response.headers().firstValue("x-rate-limit-reset").orElse(null));
          cause = "HTTP 429" + StreamToken.platformMessage(body);
        } else {
          wait = backoff.afterHttpError();
          cause = "HTTP " + status + StreamToken.platformMessage(body);
        }
      } catch (StreamToken.Refused e) {
        err.println("error: " + e.getMessage());
        err.flush();
        return Outcome.REFUSED;
      } catch (StreamToken.Unavailable e) {
        if (stopped()) {
          break;
        }
        wait =
            e.status() == 429
                ? backoff.afterRateLimit(e.rateLimitReset())
                : e.status() == 0 ? backoff.afterNetworkFailure() : backoff.afterHttpError();
        cause = e.getMessage();
      } catch (IOException e) {
        if (stopped()) {
          break;
        }
        wait = backoff.afterNetworkFailure();
        cause =
            e.getClass().getSimpleName()
                + (e.getMessage() == null ? "" : ": " + Printable.of(e.getMessage()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      if (outageSince == null) {
        outageSince = clock.instant();
      }
      wait = ReconnectBackoff.jitter(wait);
      err.println("stream unavailable (" + cause + "); retrying in " + wait.toMillis() + " ms");
      err.flush();
      if (!pause(wait)) {
        break;
      }
    }
    err.println("stopped listening");
    err.flush();
    return Outcome.STOPPED;
  }

  /** Waits, noticing a stop within a quarter second; false when stopped or interrupted. */
  private boolean pause(Duration wait) {
    long until = System.nanoTime() + wait.toNanos();
    while (!stopped()) {
      long left = until - System.nanoTime();
      if (left <= 0) {
        return true;
      }
      try {
        TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(250)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return false;
  }

  private boolean stopped() {
    return stopping || Thread.currentThread().isInterrupted();
  }

  private HttpResponse<Flow.Publisher<List<ByteBuffer>>> connect()
      throws IOException, InterruptedException {
    String query = "";
    if (lastLineAt != null) {
      // Minutes since the last line, rounded up, at most the platform's five.
      long seconds = Duration.between(lastLineAt, clock.instant()).toSeconds();
      long minutes = Math.min(5, Math.max(1, (seconds + 59) / 60));
      query = "?backfill_minutes=" + minutes;
    }
    HttpRequest request =
        HttpRequest.newBuilder(baseUri.resolve("/2/activity/stream" + query))
            .timeout(Duration.ofSeconds(9))
            .header("Authorization", "Bearer " + token.get())
            .header("User-Agent", "servicehooks-cli")
            .GET()
            .build();
    return http.send(request, HttpResponse.BodyHandlers.ofPublisher());
  }

  /**
   * Reads the stream until it ends, fails, stalls or the tap is stopped. The body arrives as chunks
   * through a subscriber and this thread polls for them, so an interrupt, {@link #stop()} and a
   * stall are all noticed within a quarter second, never stuck in a blocking read. The stall clock
   * runs from the last complete line (a keep-alive is one) and restarts once a line was handled, so
   * a slow forward is not taken for a silent platform.
   *
   * @return whether it ended because no line came for the stall time-out
   */
  private boolean read(Flow.Publisher<List<ByteBuffer>> body) {
    StreamChunks chunks = new StreamChunks();
    body.subscribe(chunks);
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    long lastLine = System.nanoTime();
    try {
      while (!stopped()) {
        if (System.nanoTime() - lastLine > stallTimeout.toNanos()) {
          return true;
        }
        Object item;
        try {
          item = chunks.queue.poll(250, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
        if (item == null) {
          continue;
        }
        if (item == StreamChunks.END) {
          return false;
        }
        if (item instanceof Throwable failure) {
          err.println("stream dropped (" + failure.getClass().getSimpleName() + ")");
          err.flush();
          return false;
        }
        for (byte b : (byte[]) item) {
          if (b != '\n') {
            if (line.size() < MAX_LINE_BYTES) {
              line.write(b);
            }
            continue;
          }
          byte[] bytes = line.toByteArray();
          line.reset();
          lastLineAt = clock.instant();
          if (bytes.length > 0 && !(bytes.length == 1 && bytes[0] == '\r')) {
            lines.onLine(bytes);
          }
          lastLine = System.nanoTime();
        }
        chunks.next();
      }
      return false;
    } finally {
      chunks.cancel();
    }
  }

  /** A glob list such as {@code post.*,dm.*} as a test on event types; empty matches all. */
  static Predicate<String> eventFilter(List<String> globs) {
    if (globs == null || globs.isEmpty()) {
      return type -> true;
    }
    List<java.util.regex.Pattern> patterns =
        globs.stream()
            .map(String::trim)
            .filter(g -> !g.isEmpty())
            .map(
                g ->
                    java.util.regex.Pattern.compile(
                        java.util.Arrays.stream(g.split("\\*", -1))
                            .map(java.util.regex.Pattern::quote)
                            .collect(java.util.stream.Collectors.joining(".*"))))
            .toList();
    return type -> patterns.stream().anyMatch(p -> p.matcher(type).matches());
  }
}
