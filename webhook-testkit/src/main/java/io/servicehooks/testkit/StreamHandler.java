package io.servicehooks.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves {@code GET /2/activity/stream}: checks the bearer token, plays a queued {@link
 * StreamFault}, then holds a chunked answer open and writes one event per line, keep-alives and the
 * simulated faults of an open stream.
 */
final class StreamHandler implements HttpHandler {

  static final String PATH = "/2/activity/stream";

  private static final Logger log = LoggerFactory.getLogger(StreamHandler.class);
  private static final DateTimeFormatter STREAM_TIME =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss'Z'")
          .withResolverStyle(ResolverStyle.STRICT);

  private final Api api;
  private final StreamHub hub;
  private final SimClock clock;

  StreamHandler(Api api, StreamHub hub, SimClock clock) {
    this.api = api;
    this.hub = hub;
    this.clock = clock;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    ApiRequest request =
        new ApiRequest(
            exchange.getRequestMethod(),
            exchange.getRequestURI().getPath(),
            exchange.getRequestURI().getRawQuery(),
            exchange.getRequestHeaders(),
            new byte[0]);
    if (!request.path().equals(PATH)) {
      answer(
          exchange,
          SimResponse.problem(404, "Not Found Error", "No such endpoint", "resource-not-found"));
      return;
    }
    if (!request.method().equals("GET")) {
      answer(
          exchange,
          SimResponse.problem(
              405, "Method Not Allowed", "Method not allowed for this endpoint", "about:blank"));
      return;
    }
    StreamFault fault = hub.pollFault();
    if (fault != null) {
      log.debug("stream connect meets {}", fault);
      answer(exchange, refusal(fault));
      return;
    }
    SimResponse unauthorized = api.authenticate(request);
    if (unauthorized != null) {
      answer(exchange, unauthorized);
      return;
    }
    Window window;
    try {
      window = window(request.query(), clock.now());
    } catch (IllegalArgumentException e) {
      answer(
          exchange, SimResponse.problem(400, "Invalid Request", e.getMessage(), "invalid-request"));
      return;
    }
    StreamHub.Opened opened = hub.open(window.minutes, window.from, window.to);
    if (opened == null) {
      log.info("stream connect refused: TooManyConnections (limit {})", hub.connectionLimit());
      answer(exchange, StreamHub.tooManyConnections(hub.connectionLimit()));
      return;
    }
    StreamSession connection = opened.connection();
    log.info(
        "stream {} connected (backfill {} event(s))",
        connection.endpointId,
        opened.backfill().size());
    boolean clean = false;
    try {
      exchange.getResponseHeaders().set("content-type", "application/json");
      exchange.sendResponseHeaders(200, 0);
      OutputStream out = exchange.getResponseBody();
      connection.serve(out, opened.backfill(), hub::realTimeKeepAlive);
      clean = true;
      log.info("stream {} ended by the server", connection.endpointId);
    } catch (StreamSession.Dropped e) {
      log.info("stream {} dropped (simulated fault)", connection.endpointId);
      // Escapes to the JDK server, which then closes the socket without ending the chunked body.
      throw e;
    } catch (IOException e) {
      log.info("stream {} closed by the client", connection.endpointId);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      hub.closed(connection);
      if (clean) {
        exchange.close();
      }
    }
  }

  private SimResponse refusal(StreamFault fault) {
    switch (fault.kind()) {
      case RATE_LIMITED:
        if (fault.reset() == null) {
          return SimResponse.problem(429, "Too Many Requests", "Too Many Requests", "about:blank")
              .withHeaders(Map.of("x-rate-limit-remaining", "0", "x-rate-limit-limit", "50"));
        }
        return api.rateLimited(fault.reset());
      case FORBIDDEN:
        return SimResponse.problem(
            403,
            "Client Forbidden",
            "This app is not permitted to use the activity stream (simulated fault).",
            "client-forbidden");
      case SERVER_ERROR:
        return api.failure(fault.status());
      default:
        return StreamHub.tooManyConnections(hub.connectionLimit());
    }
  }

  /** The backfill asked for by the query: minutes and the production-time bounds. */
  record Window(int minutes, Instant from, Instant to) {}

  static Window window(String rawQuery, Instant now) {
    Map<String, String> query = query(rawQuery);
    int minutes = 0;
    String backfill = query.get("backfill_minutes");
    if (backfill != null) {
      try {
        minutes = Integer.parseInt(backfill);
      } catch (NumberFormatException e) {
        minutes = -1;
      }
      if (minutes < 0 || minutes > StreamHub.MAX_BACKFILL_MINUTES) {
        throw new IllegalArgumentException(
            "backfill_minutes must be an integer from 0 to "
                + StreamHub.MAX_BACKFILL_MINUTES
                + " but was "
                + backfill);
      }
    }
    Instant start = time(query, "start_time");
    Instant end = time(query, "end_time");
    if (start != null && end != null && start.isAfter(end)) {
      throw new IllegalArgumentException("start_time must not be after end_time");
    }
    Instant reach = now.minusSeconds(60L * StreamHub.MAX_BACKFILL_MINUTES);
    Instant from = null;
    if (minutes > 0) {
      from = now.minusSeconds(60L * minutes);
    }
    if (start != null) {
      // start_time alone asks for backfill too, never beyond the platform's five minutes.
      Instant bounded = start.isBefore(reach) ? reach : start;
      from = from == null || bounded.isAfter(from) ? bounded : from;
    }
    return new Window(minutes, from, end);
  }

  private static Instant time(Map<String, String> query, String name) {
    String text = query.get(name);
    if (text == null) {
      return null;
    }
    try {
      return LocalDateTime.parse(text, STREAM_TIME).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          name + " must be formatted YYYY-MM-DDTHH:mm:ssZ but was " + text);
    }
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> values = new HashMap<>();
    if (raw == null || raw.isEmpty()) {
      return values;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        continue;
      }
      try {
        values.putIfAbsent(
            URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        // A malformed escape: the parameter counts as absent.
      }
    }
    return values;
  }

  private static void answer(HttpExchange exchange, SimResponse response) throws IOException {
    try {
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
    } finally {
      exchange.close();
    }
  }
}
