package io.servicehooks.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookSigner;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The reader behind {@code servicehooks listen}: holds {@code GET /2/activity/stream}, prints one
 * line per event and optionally forwards each event, signed as the platform signs, to a local
 * consumer. Deliberately small: it reconnects with the platform's back-off (at once after a drop,
 * +250 ms per network failure up to 16 s, 5 s doubling up to 320 s on HTTP errors, 60 s doubling on
 * 429 or until {@code x-rate-limit-reset}), asks for backfill after a gap, and treats 30 s without
 * a byte (keep-alives come every 20 s) as a dead connection. The production reader with metrics and
 * the consumer pipeline is the {@code webhook-stream} module.
 */
final class StreamTap {

  /** What ended {@link #run()}: a stop (Ctrl-C, interrupt), or the token was refused. */
  enum Outcome {
    STOPPED,
    REFUSED
  }

  static final Duration STALL_TIMEOUT = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_LINE_BYTES = 4 << 20;

  private final URI baseUri;
  private final String fixedToken;
  private final String apiKey;
  private final String apiSecret;
  private final Predicate<String> events;
  private final URI forwardTo;
  private final String consumerSecret;
  private final boolean json;
  private final PrintWriter out;
  private final PrintWriter err;
  private final Clock clock;
  private final HttpClient http;

  private volatile boolean stopping;
  private Instant lastByteAt;
  private String token;

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
      Clock clock) {
    this.baseUri = baseUri;
    this.fixedToken = fixedToken;
    this.apiKey = apiKey;
    this.apiSecret = apiSecret;
    this.events = events;
    this.forwardTo = forwardTo;
    this.consumerSecret = consumerSecret;
    this.json = json;
    this.out = out;
    this.err = err;
    this.clock = clock;
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
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
    int networkFailures = 0;
    int httpFailures = 0;
    int rateLimited = 0;
    boolean refreshed = false;
    Instant outageSince = null;
    while (!stopped()) {
      Duration wait;
      String cause;
      try {
        HttpResponse<Flow.Publisher<List<ByteBuffer>>> response = connect();
        int status = response.statusCode();
        if (status == 200) {
          if (outageSince != null) {
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
          outageSince = null;
          networkFailures = 0;
          httpFailures = 0;
          rateLimited = 0;
          refreshed = false;
          boolean stalled = read(response.body());
          if (stopped()) {
            break;
          }
          outageSince = clock.instant();
          err.println(
              "stream ended"
                  + (stalled ? " (no byte for " + STALL_TIMEOUT.toSeconds() + " s)" : "")
                  + "; reconnecting");
          err.flush();
          continue; // at once after a drop
        }
        String body = text(response.body());
        if (status == 401 || status == 403) {
          if (status == 401 && fixedToken == null && !refreshed) {
            refreshed = true;
            token = null; // a revoked token: fetch a new one, once
            continue;
          }
          err.println(
              "error: the platform refused the bearer token (HTTP "
                  + status
                  + ")"
                  + platformMessage(body)
                  + "; check SERVICE_BEARER_TOKEN or SERVICE_API_KEY/SERVICE_API_SECRET");
          err.flush();
          return Outcome.REFUSED;
        }
        if (status == 429) {
          wait = rateLimitWait(response, rateLimited++);
          cause = "HTTP 429" + platformMessage(body);
        } else {
          wait = capped(Duration.ofSeconds(5).multipliedBy(1L << Math.min(httpFailures++, 6)), 320);
          cause = "HTTP " + status + platformMessage(body);
        }
      } catch (TokenRefused e) {
        err.println("error: " + e.getMessage());
        err.flush();
        return Outcome.REFUSED;
      } catch (IOException e) {
        if (stopped()) {
          break;
        }
        wait = capped(Duration.ofMillis(250L * ++networkFailures), 16);
        cause =
            e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      if (outageSince == null) {
        outageSince = clock.instant();
      }
      wait = jitter(wait);
      err.println("stream unavailable (" + cause + "); retrying in " + wait.toMillis() + " ms");
      err.flush();
      try {
        Thread.sleep(wait.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    err.println("stopped listening");
    err.flush();
    return Outcome.STOPPED;
  }

  private boolean stopped() {
    return stopping || Thread.currentThread().isInterrupted();
  }

  private HttpResponse<Flow.Publisher<List<ByteBuffer>>> connect()
      throws IOException, InterruptedException {
    String query = "";
    if (lastByteAt != null) {
      // Minutes since the last byte, rounded up, at most the platform's five.
      long seconds = Duration.between(lastByteAt, clock.instant()).toSeconds();
      long minutes = Math.min(5, Math.max(1, (seconds + 59) / 60));
      query = "?backfill_minutes=" + minutes;
    }
    HttpRequest request =
        HttpRequest.newBuilder(baseUri.resolve("/2/activity/stream" + query))
            .timeout(Duration.ofSeconds(9))
            .header("Authorization", "Bearer " + token())
            .header("User-Agent", "servicehooks-cli")
            .GET()
            .build();
    return http.send(request, HttpResponse.BodyHandlers.ofPublisher());
  }

  /**
   * Reads the stream until it ends, fails, goes silent or the tap is stopped. The body arrives as
   * chunks through a subscriber and this thread polls for them, so an interrupt, {@link #stop()}
   * and silence are all noticed within a quarter second, never stuck in a blocking read.
   *
   * @return whether it ended because no byte came for {@link #STALL_TIMEOUT}
   */
  private boolean read(Flow.Publisher<List<ByteBuffer>> body) {
    Chunks chunks = new Chunks();
    body.subscribe(chunks);
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    long lastByte = System.nanoTime();
    try {
      while (!stopped()) {
        Object item;
        try {
          item = chunks.queue.poll(250, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
        if (item == null) {
          if (System.nanoTime() - lastByte > STALL_TIMEOUT.toNanos()) {
            return true;
          }
          continue;
        }
        if (item == Chunks.END) {
          return false;
        }
        if (item instanceof Throwable failure) {
          err.println("stream dropped (" + failure.getClass().getSimpleName() + ")");
          err.flush();
          return false;
        }
        lastByte = System.nanoTime();
        lastByteAt = clock.instant();
        for (byte b : (byte[]) item) {
          if (b != '\n') {
            if (line.size() < MAX_LINE_BYTES) {
              line.write(b);
            }
            continue;
          }
          byte[] bytes = line.toByteArray();
          line.reset();
          if (bytes.length > 0 && !(bytes.length == 1 && bytes[0] == '\r')) {
            onLine(bytes);
          }
        }
        chunks.next();
      }
      return false;
    } finally {
      chunks.cancel();
    }
  }

  /** Hands the body's chunks to the polling reader, one request at a time (back-pressure). */
  private static final class Chunks implements Flow.Subscriber<List<ByteBuffer>> {
    static final Object END = new Object();
    final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private volatile Flow.Subscription subscription;

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      this.subscription = subscription;
      subscription.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
      int size = 0;
      for (ByteBuffer buffer : buffers) {
        size += buffer.remaining();
      }
      byte[] bytes = new byte[size];
      int at = 0;
      for (ByteBuffer buffer : buffers) {
        int n = buffer.remaining();
        buffer.get(bytes, at, n);
        at += n;
      }
      queue.add(bytes);
    }

    @Override
    public void onError(Throwable throwable) {
      queue.add(throwable);
    }

    @Override
    public void onComplete() {
      queue.add(END);
    }

    void next() {
      Flow.Subscription s = subscription;
      if (s != null) {
        s.request(1);
      }
    }

    void cancel() {
      Flow.Subscription s = subscription;
      if (s != null) {
        s.cancel();
      }
    }
  }

  private void onLine(byte[] bytes) {
    JsonNode root;
    try {
      root = JSON.readTree(bytes);
    } catch (IOException e) {
      err.println("skipped a line that is not JSON (" + bytes.length + " bytes)");
      err.flush();
      return;
    }
    if (root == null) {
      return;
    }
    if (root.has("errors")) {
      for (JsonNode error : root.path("errors")) {
        err.println(
            "stream: "
                + error.path("title").asText("error")
                + (error.hasNonNull("detail") ? ": " + error.get("detail").asText() : ""));
      }
      err.flush();
      return;
    }
    JsonNode data = root.path("data");
    String type = data.path("event_type").asText("");
    if (!events.test(type)) {
      return;
    }
    Instant received = clock.instant();
    Forwarded forwarded = forwardTo == null ? null : forward(bytes);
    if (json) {
      ObjectNode node = JSON.createObjectNode();
      node.put("received_at", received.truncatedTo(ChronoUnit.MILLIS).toString());
      node.set("data", data);
      if (forwarded != null) {
        ObjectNode f = node.putObject("forward");
        if (forwarded.status() > 0) {
          f.put("status", forwarded.status());
        } else {
          f.put("error", forwarded.failure());
        }
        f.put("millis", forwarded.millis());
      }
      out.println(node.toString());
    } else {
      StringBuilder text =
          new StringBuilder()
              .append(received.truncatedTo(ChronoUnit.SECONDS))
              .append("  ")
              .append(type.isEmpty() ? "(no type)" : type)
              .append("  ")
              .append(data.path("event_uuid").asText("-"));
      JsonNode filter = data.path("filter");
      filter
          .fields()
          .forEachRemaining(
              f -> text.append("  ").append(f.getKey()).append('=').append(f.getValue().asText()));
      if (forwarded != null) {
        text.append("  -> ")
            .append(forwarded.status() > 0 ? "HTTP " + forwarded.status() : forwarded.failure())
            .append(" in ")
            .append(forwarded.millis())
            .append(" ms");
      }
      out.println(text);
    }
    out.flush();
  }

  /** The consumer's answer to one forwarded event: its status, or why none came. */
  record Forwarded(int status, String failure, long millis) {}

  private Forwarded forward(byte[] envelope) {
    long start = System.nanoTime();
    try {
      HttpResponse<Void> response =
          http.send(
              HttpRequest.newBuilder(forwardTo)
                  .timeout(Duration.ofSeconds(9))
                  .header("Content-Type", "application/json")
                  .header(
                      WebhookRequest.SIGNATURE_HEADER, WebhookSigner.sign(consumerSecret, envelope))
                  .header("User-Agent", "servicehooks-cli")
                  .POST(HttpRequest.BodyPublishers.ofByteArray(envelope))
                  .build(),
              HttpResponse.BodyHandlers.discarding());
      return new Forwarded(response.statusCode(), null, elapsedMillis(start));
    } catch (IOException e) {
      return new Forwarded(
          0, "failed (" + e.getClass().getSimpleName() + ")", elapsedMillis(start));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Forwarded(0, "interrupted", elapsedMillis(start));
    }
  }

  private static long elapsedMillis(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }

  private String token() throws IOException, InterruptedException {
    if (fixedToken != null) {
      return fixedToken;
    }
    if (token == null) {
      String pair =
          URLEncoder.encode(apiKey, StandardCharsets.UTF_8)
              + ":"
              + URLEncoder.encode(apiSecret, StandardCharsets.UTF_8);
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(baseUri.resolve("/oauth2/token"))
                  .timeout(Duration.ofSeconds(9))
                  .header(
                      "Authorization",
                      "Basic "
                          + Base64.getEncoder()
                              .encodeToString(pair.getBytes(StandardCharsets.UTF_8)))
                  .header("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8")
                  .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials"))
                  .build(),
              HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      JsonNode body = null;
      try {
        body = JSON.readTree(response.body());
      } catch (IOException e) {
        // handled below as a refusal without a token
      }
      String value = body == null ? null : body.path("access_token").asText(null);
      if (response.statusCode() != 200 || value == null) {
        throw new TokenRefused(
            "the platform refused the API key and secret (HTTP "
                + response.statusCode()
                + ")"
                + platformMessage(response.body()));
      }
      token = value;
    }
    return token;
  }

  private Duration rateLimitWait(HttpResponse<?> response, int before) {
    Duration wait = capped(Duration.ofMinutes(1).multipliedBy(1L << Math.min(before, 6)), 3600);
    String reset = response.headers().firstValue("x-rate-limit-reset").orElse(null);
    if (reset != null) {
      try {
        Duration untilReset =
            Duration.between(clock.instant(), Instant.ofEpochSecond(Long.parseLong(reset.trim())));
        if (untilReset.compareTo(wait) > 0 && untilReset.toHours() < 24) {
          wait = untilReset;
        }
      } catch (NumberFormatException e) {
        // not unix seconds: the doubling wait stands
      }
    }
    return wait;
  }

  private static Duration capped(Duration wait, long maxSeconds) {
    return wait.compareTo(Duration.ofSeconds(maxSeconds)) > 0
        ? Duration.ofSeconds(maxSeconds)
        : wait;
  }

  private static Duration jitter(Duration wait) {
    long millis = wait.toMillis();
    return Duration.ofMillis(millis + ThreadLocalRandom.current().nextLong(millis / 10 + 1));
  }

  private static String platformMessage(String body) {
    try {
      JsonNode node = JSON.readTree(body);
      if (node == null) {
        return "";
      }
      String message = node.path("errors").path(0).path("message").asText("");
      if (message.isEmpty()) {
        message = node.path("detail").asText("");
      }
      String issue = node.path("connection_issue").asText("");
      if (!issue.isEmpty()) {
        message = issue + (message.isEmpty() ? "" : ": " + message);
      }
      return message.isEmpty() ? "" : ": " + message;
    } catch (IOException e) {
      return "";
    }
  }

  /** The start of a refusal's body (64 KiB at most), waiting at most 5 s for it. */
  private static String text(Flow.Publisher<List<ByteBuffer>> body) {
    Chunks chunks = new Chunks();
    body.subscribe(chunks);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    try {
      while (bytes.size() < 64 * 1024 && System.nanoTime() < deadline) {
        Object item = chunks.queue.poll(250, TimeUnit.MILLISECONDS);
        if (item == Chunks.END || item instanceof Throwable) {
          break;
        }
        if (item instanceof byte[] chunk) {
          bytes.write(chunk, 0, chunk.length);
          chunks.next();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      chunks.cancel();
    }
    return bytes.toString(StandardCharsets.UTF_8);
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

  /** The API key and secret, or the token, were refused: retrying will not help. */
  static final class TokenRefused extends IOException {
    private static final long serialVersionUID = 1L;

    TokenRefused(String message) {
      super(message);
    }
  }
}
