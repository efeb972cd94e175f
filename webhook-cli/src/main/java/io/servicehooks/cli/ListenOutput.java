package io.servicehooks.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.servicehooks.core.WebhookEvent;
import io.servicehooks.core.WebhookListener;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The listener of {@code servicehooks listen}: forwards each event the stream hands it when asked,
 * and prints one line for it (text, or JSON with {@code --json}); an event the local consumer did
 * not take is also reported on standard error. Runs on the stream's one listener thread, so events
 * are printed in the stream's order.
 */
final class ListenOutput implements WebhookListener {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final EventForwarder forwarder;
  private final boolean json;
  private final PrintWriter out;
  private final PrintWriter err;
  private final Clock clock;
  private final Runnable connected;

  // The event printed last: when two --events patterns match one type, the consumer's router
  // calls this listener once per pattern with the same event, and it is printed once.
  private WebhookEvent last;

  /**
   * @param forwarder where to forward each event, or null
   * @param connected told before each event is printed (an event means the stream is connected)
   */
  ListenOutput(
      EventForwarder forwarder,
      boolean json,
      PrintWriter out,
      PrintWriter err,
      Clock clock,
      Runnable connected) {
    this.connected = connected;
    this.forwarder = forwarder;
    this.json = json;
    this.out = out;
    this.err = err;
    this.clock = clock;
  }

  @Override
  public void onEvent(WebhookEvent event) throws Exception {
    if (event == last) {
      return;
    }
    last = event;
    connected.run();
    JsonNode delivery = event.delivery();
    JsonNode data = delivery.has("data") ? delivery.get("data") : event.payload();
    Instant received = clock.instant();
    EventForwarder.Forwarded forwarded =
        forwarder == null ? null : forwarder.forward(JSON.writeValueAsBytes(delivery));
    String type = event.originalType();
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
      event
          .filter()
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
