package io.servicehooks.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.servicehooks.postgres.InboxEntry;
import io.servicehooks.postgres.InboxStats;
import java.util.ArrayList;
import java.util.List;

/**
 * Prints the results of {@code servicehooks inbox} (statistics, rows, the outcome of an action) in
 * the format of the {@link Output} it comes from: a table, or JSON with {@code --json}.
 */
final class InboxOutput {

  private final Output output;

  InboxOutput(Output output) {
    this.output = output;
  }

  void stats(InboxStats stats) {
    double lagSeconds = stats.lag().toMillis() / 1000.0;
    if (output.json) {
      output.print(
          Output.JSON
              .createObjectNode()
              .put("pending", stats.pending())
              .put("running", stats.running())
              .put("done", stats.done())
              .put("dead", stats.dead())
              .put("lag_seconds", lagSeconds));
      return;
    }
    output.table(
        List.of("PENDING", "RUNNING", "DONE", "DEAD", "LAG"),
        List.of(
            List.of(
                Long.toString(stats.pending()),
                Long.toString(stats.running()),
                Long.toString(stats.done()),
                Long.toString(stats.dead()),
                String.format(java.util.Locale.ROOT, "%.1fs", lagSeconds))));
  }

  void entries(List<InboxEntry> entries) {
    if (output.json) {
      ArrayNode array = Output.JSON.createArrayNode();
      entries.forEach(e -> array.add(toJson(e)));
      output.print(array);
      return;
    }
    if (entries.isEmpty()) {
      output.line("No inbox rows in that status.");
      return;
    }
    List<List<String>> rows = new ArrayList<>();
    for (InboxEntry e : entries) {
      rows.add(
          List.of(
              Long.toString(e.id()),
              e.eventId(),
              e.type(),
              e.status().sqlName(),
              Integer.toString(e.attempts()),
              Output.text(e.receivedAt()),
              Output.text(e.dueAt()),
              e.lastError().orElse("-")));
    }
    output.table(
        List.of(
            "ID", "EVENT_ID", "TYPE", "STATUS", "ATTEMPTS", "RECEIVED_AT", "DUE_AT", "LAST_ERROR"),
        rows);
  }

  void retried(long id) {
    if (output.json) {
      output.print(Output.JSON.createObjectNode().put("id", id).put("retried", true));
    } else {
      output.line("Inbox row " + id + " is due now, with a fresh set of attempts.");
    }
  }

  void discarded(long id) {
    if (output.json) {
      output.print(Output.JSON.createObjectNode().put("id", id).put("discarded", true));
    } else {
      output.line(
          "Inbox row " + id + " is discarded (done; a copy of its event is still a duplicate).");
    }
  }

  void retriedAll(int count) {
    if (output.json) {
      output.print(Output.JSON.createObjectNode().put("retried", count));
    } else {
      output.line(count + " dead letter" + (count == 1 ? " is" : "s are") + " due now.");
    }
  }

  void purged(int count) {
    if (output.json) {
      output.print(Output.JSON.createObjectNode().put("purged", count));
    } else {
      output.line(
          "Purged " + count + " done row" + (count == 1 ? "" : "s") + " past the retention.");
    }
  }

  static ObjectNode toJson(InboxEntry e) {
    ObjectNode node =
        Output.JSON
            .createObjectNode()
            .put("id", e.id())
            .put("event_id", e.eventId())
            .put("type", e.type())
            .put("status", e.status().sqlName())
            .put("attempts", e.attempts());
    Output.putInstant(node, "received_at", e.receivedAt());
    Output.putInstant(node, "due_at", e.dueAt());
    Output.putInstant(node, "done_at", e.doneAt().orElse(null));
    node.put("last_error", e.lastError().orElse(null));
    return node;
  }
}
