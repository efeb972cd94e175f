package io.servicehooks.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code /2/connections}: lists the app's open activity streams and ends them, one, several or all.
 * The spec shows no shapes; the simulator answers {@code {"data":[{"endpoint_id","connected_at",
 * "endpoint","backfill_minutes"}],"meta":{"result_count"}}} and, for a delete, {@code
 * {"data":{"killed_connections":n}}}.
 */
final class ConnectionsResource {

  private final StreamHub hub;

  ConnectionsResource(StreamHub hub) {
    this.hub = hub;
  }

  /** Routes {@code /2/connections} ({@code parts.length == 2}) and {@code /2/connections/{x}}. */
  SimResponse handle(ApiRequest request, String[] parts) {
    String method = request.method();
    if (parts.length == 2) {
      return switch (method) {
        case "GET" -> list();
        case "DELETE" -> deleteNamed(request);
        default -> Api.methodNotAllowed();
      };
    }
    if (parts.length == 3 && method.equals("DELETE")) {
      return parts[2].equals("all") ? killed(hub.killAll()) : deleteOne(parts[2]);
    }
    return parts.length == 3 ? Api.methodNotAllowed() : Api.notFound();
  }

  private SimResponse list() {
    hub.forgetGone();
    List<OpenStream> streams = hub.openStreams();
    ObjectNode body = Json.object();
    ArrayNode data = body.putArray("data");
    for (OpenStream stream : streams) {
      ObjectNode connection = data.addObject();
      connection.put("endpoint_id", stream.endpointId());
      connection.put("connected_at", RegisteredWebhook.TIMESTAMP.format(stream.connectedAt()));
      connection.put("endpoint", StreamHandler.PATH);
      connection.put("backfill_minutes", stream.backfillMinutes());
    }
    body.putObject("meta").put("result_count", streams.size());
    return SimResponse.ok(body);
  }

  private SimResponse deleteOne(String endpointId) {
    if (!hub.kill(endpointId)) {
      return notFound(endpointId);
    }
    ObjectNode body = Json.object();
    ObjectNode data = body.putObject("data");
    data.put("endpoint_id", endpointId);
    data.put("deleted", true);
    data.put("killed_connections", 1);
    return SimResponse.ok(body);
  }

  private SimResponse deleteNamed(ApiRequest request) {
    JsonNode body = Json.parseOrNull(request.body());
    JsonNode ids = body == null ? null : body.get("endpoint_ids");
    if (ids == null || !ids.isArray() || ids.isEmpty()) {
      return SimResponse.problem(
          400,
          "Invalid Request",
          "The body must be {\"endpoint_ids\":[...]}; DELETE /2/connections/all ends every one",
          "invalid-request");
    }
    int killed = 0;
    List<String> unknown = new ArrayList<>();
    for (JsonNode id : ids) {
      if (hub.kill(id.asText())) {
        killed++;
      } else {
        unknown.add(id.asText());
      }
    }
    SimResponse answer = killed(killed);
    if (unknown.isEmpty()) {
      return answer;
    }
    ObjectNode withErrors = (ObjectNode) Json.parseOrNull(answer.body());
    ArrayNode errors = withErrors.putArray("errors");
    unknown.forEach(
        id -> errors.addObject().put("detail", "No open connection with endpoint_id " + id));
    return SimResponse.ok(withErrors);
  }

  private static SimResponse killed(int count) {
    ObjectNode body = Json.object();
    body.putObject("data").put("killed_connections", count);
    return SimResponse.ok(body);
  }

  private static SimResponse notFound(String endpointId) {
    return SimResponse.problem(
        404,
        "Not Found Error",
        "No open connection with endpoint_id " + endpointId,
        "resource-not-found");
  }
}
