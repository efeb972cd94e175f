package io.servicehooks.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.function.Predicate;

/**
 * What {@code servicehooks listen} does with each line of the stream: reports the platform's error
 * objects, drops events the filter does not match, forwards the rest when asked, and prints one
 * line per event (text, or JSON with {@code --json}).
 */
final class StreamLines {

  private final Predicate<String> events;
  private final EventForwarder forwarder;
  private final boolean json;
  private final PrintWriter out;
  private final PrintWriter err;
  private final Clock clock;

  /**
   * @param forwarder where to forward each event, or null
   */
  StreamLines(
      Predicate<String> events,
      EventForwarder forwarder,
      boolean json,
      PrintWriter out,
      PrintWriter err,
      Clock clock) {
    this.events = events;
    this.forwarder = forwarder;
    this.json = json;
    this.out = out;
    this.err = err;
    this.clock = clock;
  }

  void onLine(byte[] bytes) {
    JsonNode root;
    try {
      root = StreamTap.JSON.readTree(bytes);
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
                + Printable.of(
                    error.path("title").asText("error")
                        + (error.hasNonNull("detail") ? ": " + error.get("detail").asText() : "")));
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
    EventForwarder.Forwarded forwarded = forwarder == null ? null : forwarder.forward(bytes);
    if (json) {
      ObjectNode node = StreamTap.JSON.createObjectNode();
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
        f.put("attempts", forwarded.attempts());
      }
      out.println(node.toString());
    } else {
      StringBuilder text =
          new StringBuilder()
              .append(received.truncatedTo(ChronoUnit.SECONDS))
              .append("  ")
              .append(type.isEmpty() ? "(no type)" : Printable.of(type))
              .append("  ")
              .append(Printable.of(data.path("event_uuid").asText("-")));
      JsonNode filter = data.path("filter");
      filter
          .fields()
          .forEachRemaining(
              f ->
                  text.append("  ")
                      .append(Printable.of(f.getKey()))
                      .append('=')
                      .append(Printable.of(f.getValue().asText())));
      if (forwarded != null) {
        text.append("  -> ")
            .append(forwarded.outcome())
            .append(" in ")
            .append(forwarded.millis())
            .append(" ms");
        if (forwarded.attempts() > 1) {
          text.append(" after ").append(forwarded.attempts()).append(" attempts");
        }
      }
      out.println(text);
    }
    out.flush();
    if (forwarded != null && !forwarded.delivered()) {
      err.println(
          "event "
              + Printable.of(data.path("event_uuid").asText("-"))
              + " was not delivered to "
              + forwarder.forwardTo()
              + " ("
              + forwarded.outcome()
              + " after "
              + forwarded.attempts()
              + (forwarded.attempts() == 1 ? " attempt" : " attempts")
              + "); the stream does not send it again unless a backfill repeats it");
      err.flush();
    }
  }
}
