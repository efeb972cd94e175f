package io.servicehooks.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.servicehooks.registration.ReplayJob;
import io.servicehooks.registration.StreamConnection;
import io.servicehooks.registration.Subscription;
import io.servicehooks.registration.Webhook;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Prints results as a readable table, or with {@code --json} as JSON in the platform's field names.
 */
final class Output {

  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private final PrintWriter out;
  final boolean json;

  Output(PrintWriter out, boolean json) {
    this.out = out;
    this.json = json;
  }

  void webhooks(List<Webhook> webhooks) {
    if (json) {
      ArrayNode array = JSON.createArrayNode();
      webhooks.forEach(w -> array.add(toJson(w)));
      print(array);
      return;
    }
    if (webhooks.isEmpty()) {
      line("No webhooks registered.");
      return;
    }
    List<List<String>> rows = new ArrayList<>();
    for (Webhook w : webhooks) {
      rows.add(List.of(w.id(), w.url(), Boolean.toString(w.valid()), text(w.createdAt())));
    }
    table(List.of("ID", "URL", "VALID", "CREATED_AT"), rows);
  }

  void webhook(Webhook webhook) {
    if (json) {
      print(toJson(webhook));
    } else {
      webhooks(List.of(webhook));
    }
  }

  void validity(String id, boolean valid) {
    if (json) {
      print(JSON.createObjectNode().put("id", id).put("valid", valid));
    } else {
      line(
          "Webhook "
              + id
              + " is "
              + (valid ? "valid" : "NOT valid: it receives no events until a check passes")
              + ".");
    }
  }

  void deleted(String kind, String id, boolean deleted) {
    if (json) {
      print(JSON.createObjectNode().put("id", id).put("deleted", deleted));
    } else {
      line(kind + " " + id + (deleted ? " deleted." : " was not deleted."));
    }
  }

  void replayJob(ReplayJob job) {
    if (json) {
      ObjectNode node = JSON.createObjectNode().put("job_id", job.jobId());
      putInstant(node, "created_at", job.createdAt());
      print(node);
    } else {
      table(List.of("JOB_ID", "CREATED_AT"), List.of(List.of(job.jobId(), text(job.createdAt()))));
      line("Completion arrives at the webhook as a replay_job_status delivery.");
    }
  }

  void subscriptions(List<Subscription> subscriptions) {
    if (json) {
      ArrayNode array = JSON.createArrayNode();
      subscriptions.forEach(s -> array.add(toJson(s)));
      print(array);
      return;
    }
    if (subscriptions.isEmpty()) {
      line("No activity subscriptions.");
      return;
    }
    List<List<String>> rows = new ArrayList<>();
    for (Subscription s : subscriptions) {
      String filter =
          s.filter().entrySet().stream()
              .map(e -> e.getKey() + "=" + e.getValue())
              .collect(Collectors.joining(","));
      rows.add(
          List.of(
              s.id(),
              text(s.eventType()),
              filter,
              text(s.tag()),
              text(s.webhookId()),
              text(s.createdAt())));
    }
    table(List.of("ID", "EVENT_TYPE", "FILTER", "TAG", "WEBHOOK_ID", "CREATED_AT"), rows);
  }

  void subscription(Subscription subscription) {
    if (json) {
      print(toJson(subscription));
    } else {
      subscriptions(List.of(subscription));
    }
  }

  void sent(int status, String body) {
    if (json) {
      print(JSON.createObjectNode().put("status", status).put("body", body));
    } else {
      line("HTTP " + status);
      if (!body.isEmpty()) {
        line(Printable.of(body));
      }
    }
  }

  /** The inbox results (statistics, rows, the outcome of an action), in the same format. */
  InboxOutput inbox() {
    return new InboxOutput(this);
  }

  static ObjectNode toJson(Webhook w) {
    ObjectNode node =
        JSON.createObjectNode().put("id", w.id()).put("url", w.url()).put("valid", w.valid());
    putInstant(node, "created_at", w.createdAt());
    return node;
  }

  static ObjectNode toJson(Subscription s) {
    ObjectNode node = JSON.createObjectNode().put("id", s.id());
    if (s.eventType() != null) {
      node.put("event_type", s.eventType());
    }
    ObjectNode filter = node.putObject("filter");
    s.filter().forEach(filter::put);
    if (s.tag() != null) {
      node.put("tag", s.tag());
    }
    if (s.webhookId() != null) {
      node.put("webhook_id", s.webhookId());
    }
    putInstant(node, "created_at", s.createdAt());
    return node;
  }

  /** The open stream connections: their id, connect time and every other field as given. */
  void connections(List<StreamConnection> connections) {
    if (json) {
      ArrayNode array = JSON.createArrayNode();
      for (StreamConnection c : connections) {
        ObjectNode node = array.addObject();
        node.put("endpoint_id", c.endpointId());
        putInstant(node, "connected_at", c.connectedAt());
        c.fields().forEach(node::put);
      }
      print(array);
      return;
    }
    if (connections.isEmpty()) {
      line("No open stream connections.");
      return;
    }
    List<List<String>> rows = new ArrayList<>();
    for (StreamConnection c : connections) {
      String other =
          c.fields().entrySet().stream()
              .filter(e -> !e.getKey().equals("endpoint_id") && !e.getKey().equals("connected_at"))
              .map(e -> e.getKey() + "=" + e.getValue())
              .collect(Collectors.joining(","));
      rows.add(List.of(c.endpointId(), text(c.connectedAt()), other.isEmpty() ? "-" : other));
    }
    table(List.of("ENDPOINT_ID", "CONNECTED_AT", "DETAILS"), rows);
  }

  /** The outcome of a connections kill; {@code count} -1 when the platform did not say. */
  void killed(String what, int count) {
    if (json) {
      ObjectNode node = JSON.createObjectNode().put("killed", what);
      if (count >= 0) {
        node.put("killed_connections", count);
      }
      print(node);
    } else if (count < 0) {
      line("Ended " + what + ".");
    } else {
      line("Ended " + what + ": " + count + " connection" + (count == 1 ? "" : "s") + ".");
    }
  }

  static void putInstant(ObjectNode node, String field, Instant value) {
    if (value != null) {
      node.put(field, value.toString());
    }
  }

  static String text(Object value) {
    return value == null ? "-" : value.toString();
  }

  void table(List<String> header, List<List<String>> rows) {
    int[] widths = new int[header.size()];
    for (int i = 0; i < widths.length; i++) {
      widths[i] = header.get(i).length();
      for (List<String> row : rows) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    line(formatRow(header, widths));
    for (List<String> row : rows) {
      line(formatRow(row, widths));
    }
  }

  private static String formatRow(List<String> cells, int[] widths) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < cells.size(); i++) {
      if (i > 0) {
        sb.append("  ");
      }
      sb.append(cells.get(i));
      if (i < cells.size() - 1) {
        sb.append(" ".repeat(widths[i] - cells.get(i).length()));
      }
    }
    return sb.toString();
  }

  void print(JsonNode node) {
    try {
      line(JSON.writeValueAsString(node));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON", e);
    }
  }

  void line(String text) {
    out.println(text);
    out.flush();
  }
}
