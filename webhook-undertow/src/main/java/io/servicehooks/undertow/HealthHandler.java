package io.servicehooks.undertow;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;

/** Answers 200 {@code {"status":"UP"}} while the server serves: {@code Builder.health(path)}. */
final class HealthHandler implements HttpHandler {

  @Override
  public void handleRequest(HttpServerExchange exchange) {
    exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
    exchange.getResponseSender().send("{\"status\":\"UP\"}");
  }
}
