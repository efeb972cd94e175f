package io.servicehooks.stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.core.internal.LogText;
import io.servicehooks.stream.ActivityStream.Cause;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletionException;

/**
 * What the stream's log lines say about a failed connect or an ended connection: the platform's
 * problem body in one line, a failure's root cause, why a connection ended, what a refusal means,
 * and the rate limit's reset time. Pure functions.
 */
final class StreamMessages {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_ERROR_BODY = 4096;

  private StreamMessages() {}

  /**
   * The refusal line when the token request ({@code POST /oauth2/token}) answered 401 or 403: the
   * API key and secret were refused, so no bearer token was had and the stream was never asked.
   *
   * @param problem the answer's {@link #problem}, or empty
   */
  static String refusedToken(int status, String problem) {
    return "POST /oauth2/token answered HTTP "
        + status
        + problem
        + ": the platform refused the API key and secret, so no bearer token could be fetched"
        + " (check SERVICE_API_KEY and SERVICE_API_SECRET)";
  }

  /**
   * The refusal line when the stream ({@code GET /2/activity/stream}) answered 401 or 403 to the
   * bearer token: 401, the token is not valid; 403, it is, but the app may not open the stream.
   *
   * @param problem the answer's {@link #problem}, or empty
   */
  static String refusedStream(int status, String problem) {
    return "GET /2/activity/stream answered HTTP "
        + status
        + problem
        + ": "
        + (status == 401
            ? "the bearer token is not valid (revoked, expired or wrong): check SERVICE_BEARER_TOKEN, or SERVICE_API_KEY and SERVICE_API_SECRET"
            : "the platform accepted the bearer token but refused the app the activity stream"
                + " (its access level, or the endpoint is not enabled for it)");
  }

  /** Why a connection ended, for the outage line. */
  static String describeEnd(Cause cause, Duration stallTimeout) {
    return switch (cause) {
      case STALLED -> "no complete line for " + seconds(stallTimeout) + " (stalled connection)";
      case DISCONNECT_MESSAGE -> "the platform ended the connection with a disconnect message";
      case TOO_MANY_CONNECTIONS -> "the platform ended the connection: too many connections";
      case NOT_TAKEN -> "an event could not be taken by the consumer";
      default -> "the connection dropped";
    };
  }

  /** {@code 20 s}, or {@code 1500 ms} when not whole seconds. */
  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }

  /** The wait until {@code x-rate-limit-reset} (epoch seconds), or null when absent or past. */
  static Duration untilReset(HttpResponse<?> response, Instant now) {
    Optional<String> reset = response.headers().firstValue("x-rate-limit-reset");
    if (reset.isEmpty()) {
      return null;
    }
    try {
      long epoch = Long.parseLong(reset.get().trim());
      Duration until = Duration.between(now, Instant.ofEpochSecond(epoch));
      return until.isNegative() ? null : until;
    } catch (NumberFormatException | DateTimeException e) {
      return null;
    }
  }

  /** The first 4 KiB of an error body, as UTF-8; closes it. */
  static String readBounded(InputStream body) {
    try (InputStream in = body) {
      byte[] bytes = in.readNBytes(MAX_ERROR_BODY);
      return new String(bytes, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /** {@code " (title: detail)"} of a problem body, escaped and cut, or empty. */
  static String problem(String body) {
    try {
      JsonNode node = JSON.readTree(body);
      if (node == null || !node.isObject()) {
        return "";
      }
      JsonNode error = node.path("errors").path(0);
      String title = node.path("title").asText(error.path("title").asText(""));
      String issue = node.path("connection_issue").asText("");
      String detail =
          node.path("detail").asText(error.path("message").asText(error.path("detail").asText("")));
      String head = (title + " " + issue).strip();
      String text =
          head.isEmpty() ? detail.strip() : detail.isEmpty() ? head : head + ": " + detail.strip();
      return text.isEmpty() ? "" : " (" + LogText.of(text) + ")";
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }

  /**
   * The root cause's class and message, escaped and cut (a parser's message may quote what the far
   * side sent).
   */
  static String describe(Throwable e) {
    Throwable root = e;
    while (root instanceof CompletionException && root.getCause() != null) {
      root = root.getCause();
    }
    String message = root.getMessage();
    return root.getClass().getSimpleName() + (message == null ? "" : ": " + LogText.of(message));
  }

  /** Text the platform or a request controls, safe for one log line (see {@link LogText}). */
  static String safe(String text) {
    return LogText.of(text);
  }
}
