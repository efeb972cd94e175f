package io.servicehooks.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The simulator's control endpoint under {@code /_sim/}, for driving a running simulator from a
 * shell ({@code servicehooks trigger}, curl): produce events, play faults, move the clock, look at
 * what happened. Plain JSON, no authentication: it is meant for a simulator on 127.0.0.1. The
 * routes are documented in {@code docs/simulator.md}.
 *
 * <p>Having no authentication, it must not be reachable from a web page open in the developer's
 * browser: such a page can send a cross-origin POST (a "simple" request needs no CORS pre-flight
 * when its type is {@code text/plain}) or rebind a name it controls to 127.0.0.1. So every call is
 * refused with 403 unless its {@code Host} names a loopback address (or the address the simulator
 * was bound to) and any {@code Origin} it carries is the simulator's own; and a call with a body
 * must say {@code Content-Type: application/json} (415 otherwise), which a browser cannot send
 * cross-origin without a pre-flight this endpoint never answers.
 */
final class ControlHandler implements HttpHandler {

  static final String PREFIX = "/_sim/";
  static final String DEFAULT_USER_ID = "2244994945";

  private static final Logger log = LoggerFactory.getLogger(ControlHandler.class);
  private static final int MAX_BODY_BYTES = 1 << 20;
  private static final int MAX_COUNT = 1000;

  private final PlatformSimulator simulator;
  private final String boundHost;

  ControlHandler(PlatformSimulator simulator, String boundHost) {
    this.simulator = simulator;
    this.boundHost = boundHost;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    SimResponse response;
    try {
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readNBytes(MAX_BODY_BYTES + 1);
      }
      String refusal = ControlGuard.refusal(exchange.getRequestHeaders(), boundHost);
      if (refusal != null) {
        response = error(403, refusal);
      } else if (!ControlGuard.acceptsBody(
          exchange.getRequestMethod(), exchange.getRequestHeaders())) {
        response = error(415, "send the call with Content-Type: application/json");
      } else if (body.length > MAX_BODY_BYTES) {
        response = error(413, "body over " + MAX_BODY_BYTES + " bytes");
      } else {
        response =
            route(
                exchange.getRequestMethod(),
                exchange.getRequestURI().getPath().substring(PREFIX.length()),
                exchange.getRequestURI().getRawQuery(),
                body);
      }
    } catch (IllegalArgumentException e) {
      response = error(400, e.getMessage());
    } catch (RuntimeException e) {
      log.warn("control call {} failed", exchange.getRequestURI().getRawPath(), e);
      response = error(500, "simulator error: " + e.getClass().getSimpleName());
    }
    try {
      response.headers().forEach((k, v) -> exchange.getResponseHeaders().set(k, v));
      byte[] out = response.body();
      exchange.sendResponseHeaders(response.status(), out.length == 0 ? -1 : out.length);
      if (out.length > 0) {
        try (OutputStream stream = exchange.getResponseBody()) {
          stream.write(out);
        }
      }
    } finally {
      exchange.close();
    }
  }

  private SimResponse route(String method, String path, String query, byte[] body) {
    JsonNode json = body.length == 0 ? Json.object() : Json.parseOrNull(body);
    boolean post = method.equals("POST");
    switch (path) {
      case "state":
        return method.equals("GET") ? state() : methodNotAllowed();
      case "attempts":
        return method.equals("GET") ? attempts() : methodNotAllowed();
      case "deliver":
        return post ? deliverRaw(query, body) : methodNotAllowed();
      case "posts":
        if (method.equals("GET")) {
          return postsBy(query);
        }
        break;
      default:
        break;
    }
    if (json == null || !json.isObject()) {
      return error(400, "the body must be a JSON object (or empty)");
    }
    if (!post && !(method.equals("PUT") && path.equals("stream/keep-alive"))) {
      return methodNotAllowed();
    }
    switch (path) {
      case "trigger":
        return trigger(json);
      case "users":
        simulator.addUser(
            required(json, "id"),
            required(json, "username"),
            Json.text(json, "name") != null ? Json.text(json, "name") : required(json, "username"));
        return ok(Json.object().put("id", json.get("id").asText()));
      case "posts":
        return ok(
            Json.object()
                .put(
                    "id",
                    simulator.createPost(required(json, "author_id"), required(json, "text"))));
      case "dms":
        return ok(
            Json.object()
                .put(
                    "dm_event_id",
                    simulator.sendDm(
                        required(json, "sender_id"),
                        required(json, "recipient_id"),
                        required(json, "text"))));
      case "advance":
        Duration by = Duration.ofSeconds(integer(json, "seconds", 0, 0, 48 * 3600));
        simulator.advance(by);
        return ok(Json.object().put("now", simulator.now().toString()));
      case "stream/keep-alive":
        Duration every = Duration.ofMillis(integer(json, "millis", -1, 1, 3_600_000));
        simulator.streamKeepAlive(every);
        return ok(Json.object().put("keep_alive_millis", every.toMillis()));
      case "faults/stream/drop":
        return streams(simulator.dropStreams());
      case "faults/stream/stall":
        return streams(simulator.stallStreams());
      case "faults/stream/disconnect":
        return streams(simulator.disconnectStreams());
      case "faults/stream/rate-limit":
        return queue(
            json,
            json.path("without_reset").asBoolean(false)
                ? StreamFault.rateLimitedWithoutReset()
                : StreamFault.rateLimited(
                    simulator.now().plusSeconds(integer(json, "reset_in_seconds", 60, 0, 86_400))));
      case "faults/stream/forbidden":
        return queue(json, StreamFault.forbidden());
      case "faults/stream/unavailable":
        return queue(json, StreamFault.serverError(integer(json, "status", 503, 500, 599)));
      case "faults/stream/too-many-connections":
        return queue(json, StreamFault.tooManyConnections());
      case "faults/webhook/invalidate":
        return invalidate(json);
      case "faults/token/revoke":
        simulator.revokeToken();
        return ok(Json.object().put("revoked", true));
      default:
        return error(404, "no control route " + PREFIX + path + "; see docs/simulator.md");
    }
  }

  private SimResponse trigger(JsonNode json) {
    String type = Json.text(json, "type");
    if (type == null) {
      throw new IllegalArgumentException("type is required, e.g. {\"type\":\"post.create\"}");
    }
    int count = integer(json, "count", 1, 1, MAX_COUNT);
    String userId = Json.text(json, "user_id");
    if (userId == null) {
      userId = DEFAULT_USER_ID;
    }
    boolean duplicate = json.path("duplicate").asBoolean(false);
    String to = Json.text(json, "to");
    boolean streamOnly = "stream".equals(to);
    if (to != null && !streamOnly && !"all".equals(to)) {
      throw new IllegalArgumentException("to must be all (webhooks and streams) or stream");
    }
    int copies = duplicate ? 2 : 1;
    ArrayNode uuids = Json.MAPPER.createArrayNode();
    int deliveries = 0;
    simulator.forgetGoneStreams();
    int streams = simulator.openStreams().size();
    for (int i = 0; i < count; i++) {
      String event = Events.sample(type, userId);
      simulator.rememberSamplePost(event);
      uuids.add(
          Json.parseOrNull(event.getBytes(StandardCharsets.UTF_8)).path("data").path("event_uuid"));
      if (streamOnly) {
        simulator.deliverToStream(event, copies);
      } else {
        deliveries += simulator.deliver(event, copies);
      }
    }
    String noDeliveries = streamOnly ? null : simulator.whyNoWebhookDeliveries();
    log.info(
        "triggered {} {} event(s){}: {} webhook deliveries{}, {} open stream(s)",
        count,
        type,
        duplicate ? " twice each" : "",
        deliveries,
        noDeliveries == null ? "" : " (" + noDeliveries + ")",
        streams);
    ObjectNode data = Json.object();
    if (noDeliveries != null) {
      data.put("no_webhook_deliveries", noDeliveries);
    }
    data.put("event_type", type);
    data.set("event_uuids", uuids);
    data.put("copies", copies);
    data.put("webhook_deliveries", deliveries);
    data.put("streams", streams);
    return ok(data);
  }

  private SimResponse deliverRaw(String query, byte[] body) {
    if (Json.parseOrNull(body) == null) {
      return error(400, "the body must be the event's JSON");
    }
    boolean streamOnly = query != null && query.contains("to=stream");
    simulator.forgetGoneStreams();
    ObjectNode data = Json.object();
    if (streamOnly) {
      data.put("streams", simulator.deliverToStream(new String(body, StandardCharsets.UTF_8)));
    } else {
      data.put("webhook_deliveries", simulator.deliver(body));
      data.put("streams", simulator.openStreams().size());
    }
    return ok(data);
  }

  private SimResponse invalidate(JsonNode json) {
    String id = Json.text(json, "webhook_id");
    ArrayNode invalidated = Json.MAPPER.createArrayNode();
    for (RegisteredWebhook webhook : simulator.webhooks()) {
      if ((id == null || webhook.id.equals(id)) && simulator.invalidateWebhook(webhook.id)) {
        invalidated.add(webhook.id);
      }
    }
    if (id != null && invalidated.isEmpty()) {
      return error(404, "no webhook " + id);
    }
    ObjectNode data = Json.object();
    data.set("invalidated", invalidated);
    return ok(data);
  }

  private SimResponse queue(JsonNode json, StreamFault fault) {
    int count = integer(json, "count", 1, 1, MAX_COUNT);
    StreamFault[] faults = new StreamFault[count];
    java.util.Arrays.fill(faults, fault);
    simulator.enqueueStreamFault(faults);
    return ok(Json.object().put("queued", count).put("fault", fault.toString()));
  }

  private SimResponse state() {
    ObjectNode data = Json.object();
    data.put("now", simulator.now().toString());
    ArrayNode webhooks = data.putArray("webhooks");
    simulator.webhooks().forEach(w -> webhooks.add(w.toJson()));
    List<DeliveryAttempt> all = simulator.attempts();
    ObjectNode attempts = data.putObject("attempts");
    long ok = all.stream().filter(DeliveryAttempt::succeeded).count();
    attempts.put("total", all.size());
    attempts.put("succeeded", ok);
    attempts.put("failed", all.size() - ok);
    attempts.put("retries", all.stream().filter(a -> a.attempt() > 1).count());
    data.put("dropped", simulator.droppedEvents());
    simulator.forgetGoneStreams();
    ArrayNode streams = data.putArray("streams");
    for (OpenStream stream : simulator.openStreams()) {
      streams
          .addObject()
          .put("endpoint_id", stream.endpointId())
          .put("connected_at", stream.connectedAt().toString())
          .put("backfill_minutes", stream.backfillMinutes())
          .put("stalled", stream.stalled());
    }
    return ok(data);
  }

  private SimResponse attempts() {
    ArrayNode list = Json.MAPPER.createArrayNode();
    for (DeliveryAttempt attempt : simulator.attempts()) {
      ObjectNode node = list.addObject();
      node.put("webhook_id", attempt.webhookId());
      node.put("delivery_id", attempt.deliveryId());
      node.put("attempt", attempt.attempt());
      node.put("status", attempt.status());
      if (attempt.failure() != null) {
        node.put("failure", attempt.failure());
      }
      node.put("time", attempt.time().toString());
      JsonNode event = Json.parseOrNull(attempt.body().getBytes(StandardCharsets.UTF_8));
      if (event != null && event.path("data").has("event_uuid")) {
        node.put("event_uuid", event.path("data").path("event_uuid").asText());
      }
    }
    ObjectNode body = Json.object();
    body.set("data", list);
    return SimResponse.ok(body);
  }

  private SimResponse postsBy(String query) {
    String author = OAuthEndpoints.firstValues(OAuthSignature.pairs(query)).get("author_id");
    if (author == null) {
      throw new IllegalArgumentException("author_id is required, e.g. /_sim/posts?author_id=42");
    }
    ArrayNode posts = Json.MAPPER.createArrayNode();
    for (SimulatedPost post : simulator.postsBy(author)) {
      ObjectNode node = posts.addObject();
      node.put("id", post.id());
      node.put("text", post.text());
      node.put("created_at", post.createdAt().toString());
      if (post.inReplyToPostId() != null) {
        node.put("in_reply_to_post_id", post.inReplyToPostId());
      }
      if (post.quotedPostId() != null) {
        node.put("quoted_post_id", post.quotedPostId());
      }
    }
    ObjectNode data = Json.object();
    data.set("posts", posts);
    return ok(data);
  }

  private static String required(JsonNode json, String field) {
    String value = Json.text(json, field);
    if (value == null) {
      throw new IllegalArgumentException(field + " is required");
    }
    return value;
  }

  private static int integer(JsonNode json, String field, int fallback, int min, int max) {
    JsonNode value = json.get(field);
    if (value == null || value.isNull()) {
      if (fallback < min) {
        throw new IllegalArgumentException(field + " is required");
      }
      return fallback;
    }
    if (!value.canConvertToInt() || !value.isIntegralNumber()) {
      throw new IllegalArgumentException(field + " must be a whole number");
    }
    int number = value.asInt();
    if (number < min || number > max) {
      throw new IllegalArgumentException(
          field + " must be " + min + ".." + max + " but was " + number);
    }
    return number;
  }

  private static SimResponse streams(int count) {
    return ok(Json.object().put("streams", count));
  }

  private static SimResponse ok(ObjectNode data) {
    ObjectNode body = Json.object();
    body.set("data", data);
    return SimResponse.ok(body);
  }

  private static SimResponse methodNotAllowed() {
    return error(405, "method not allowed for this control route");
  }

  private static SimResponse error(int status, String detail) {
    ObjectNode body = Json.object();
    body.put("error", detail);
    return SimResponse.json(status, body, "application/json");
  }
}
