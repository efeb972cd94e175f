package io.servicehooks.stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.core.internal.LogText;
import io.servicehooks.stream.ActivityStream.Cause;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one line of the stream is: a keep-alive, an error object from the platform (logged, and
 * maybe the end of the connection), or an event for the consumer (trimmed). Error objects are
 * logged on the {@link ActivityStream} logger, where users look for the stream's lines.
 *
 * @param end why the connection ends because of this line, or null
 * @param event the event's bytes, or null when the line is not one
 */
record StreamLine(Cause end, byte[] event) {

  /** A line that asks nothing: a keep-alive, or an error that was logged and needs nothing more. */
  static final StreamLine NOTHING = new StreamLine(null, null);

  private static final Logger log = LoggerFactory.getLogger(ActivityStream.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  // An event line opens with this key; read once per line, so made once here.
  private static final byte[] DATA_KEY = "\"data\"".getBytes(StandardCharsets.US_ASCII);

  /** Reads one line (without its {@code '\n'}). */
  static StreamLine of(byte[] bytes) {
    int first = 0;
    int end = bytes.length;
    while (first < end && isSpace(bytes[first])) {
      first++;
    }
    while (end > first && isSpace(bytes[end - 1])) {
      end--;
    }
    if (first == end) {
      return NOTHING; // keep-alive
    }
    if (!startsWithData(bytes, first, end)) {
      Cause error = errorObject(bytes, first, end);
      if (error == Cause.IGNORED) {
        return NOTHING;
      }
      if (error != null) {
        return new StreamLine(error, null);
      }
    }
    byte[] event =
        first == 0 && end == bytes.length ? bytes : Arrays.copyOfRange(bytes, first, end);
    return new StreamLine(null, event);
  }

  /**
   * An error object from the platform: logged with its title and handled by its kind. Returns the
   * cause to end the connection with, {@link Cause#IGNORED} to go on, or null when the line is an
   * event after all (or not JSON: the consumer refuses it as malformed).
   */
  private static Cause errorObject(byte[] bytes, int first, int end) {
    JsonNode node;
    try {
      node = JSON.readTree(bytes, first, end - first);
    } catch (IOException notJson) {
      return null; // the consumer refuses it as malformed
    }
    if (node == null || !node.isObject() || node.has("data")) {
      return null;
    }
    JsonNode errors = node.path("errors");
    List<JsonNode> items = errors.isArray() && errors.size() > 0 ? list(errors) : List.of(node);
    Cause stop = null;
    for (JsonNode error : items) {
      String title = error.path("title").asText("");
      String kind = error.path("disconnect_type").asText(error.path("connection_issue").asText(""));
      String detail = error.path("detail").asText(error.path("message").asText(""));
      if (title.isEmpty() && kind.isEmpty()) {
        return null; // not an error object: the consumer decides
      }
      // The platform's text, escaped and cut: a title or detail cannot forge or flood lines.
      log.warn(
          "Activity stream error from the platform: {}{}{}",
          LogText.of(title),
          kind.isEmpty() ? "" : " (" + LogText.of(kind) + ")",
          detail.isEmpty() ? "" : ": " + LogText.of(detail));
      String all = (title + " " + kind).toLowerCase(Locale.ROOT);
      if (all.contains("toomanyconnections")) {
        stop = Cause.TOO_MANY_CONNECTIONS;
        log.warn(
            "Another connection of this app holds the activity stream: end it with `servicehooks"
                + " connections kill ID` (or --all) if it is a leftover");
      } else if (all.contains("disconnect") && stop == null) {
        stop = Cause.DISCONNECT_MESSAGE;
      }
    }
    // An error that is not about the connection was logged and the stream goes on; it is not an
    // event either, so it never reaches the consumer.
    return stop == null ? Cause.IGNORED : stop;
  }

  private static List<JsonNode> list(JsonNode array) {
    List<JsonNode> out = new ArrayList<>(array.size());
    array.forEach(out::add);
    return out;
  }

  private static boolean startsWithData(byte[] b, int first, int end) {
    int i = first;
    if (i >= end || b[i] != '{') {
      return false;
    }
    i++;
    while (i < end && isSpace(b[i])) {
      i++;
    }
    if (end - i < DATA_KEY.length) {
      return false;
    }
    for (int k = 0; k < DATA_KEY.length; k++) {
      if (b[i + k] != DATA_KEY[k]) {
        return false;
      }
    }
    return true;
  }

  private static boolean isSpace(byte b) {
    return b == ' ' || b == '\r' || b == '\t' || b == '\n';
  }
}
