package io.servicehooks.undertow;

import io.servicehooks.core.WebhookResponse;
import io.undertow.server.DefaultResponseListener;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The embedded server's own refusals, with the same JSON error body as the consumer's: 404 {@code
 * not_found} at any path nothing is served at, 503 {@code shutting_down} once closing.
 */
final class ServerRefusals {

  private static final WebhookResponse NOT_FOUND =
      jsonError(404, "{\"error\":\"not_found\",\"message\":\"nothing is served at this path\"}");
  private static final WebhookResponse SHUTTING_DOWN =
      jsonError(503, "{\"error\":\"shutting_down\",\"message\":\"server is shutting down\"}");

  private ServerRefusals() {}

  /** Answers 404 {@code not_found}: the fallback of the server's path handler. */
  static final HttpHandler NOT_FOUND_HANDLER =
      exchange -> ExchangeAnswers.send(exchange, NOT_FOUND);

  /**
   * Gives the graceful-shutdown handler's bare 503 the JSON body: that handler has no hook for a
   * body, and Undertow calls a default response listener only for an exchange ended without a
   * response.
   */
  static DefaultResponseListener shuttingDown(BooleanSupplier closed) {
    return exchange ->
        closed.getAsBoolean() && exchange.getStatusCode() == 503 && sendShuttingDown(exchange);
  }

  private static boolean sendShuttingDown(HttpServerExchange exchange) {
    if (!exchange.isResponseChannelAvailable()) {
      return false;
    }
    ExchangeAnswers.send(exchange, SHUTTING_DOWN);
    return true;
  }

  private static WebhookResponse jsonError(int status, String json) {
    return new WebhookResponse(
        status, Map.of("Content-Type", "application/json"), json.getBytes(StandardCharsets.UTF_8));
  }
}
