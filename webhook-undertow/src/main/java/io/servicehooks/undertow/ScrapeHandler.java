package io.servicehooks.undertow;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import java.util.function.Supplier;

/**
 * Answers with the text a scrape gives, as Prometheus's text format, running the scrape on a worker
 * thread: {@code Builder.metrics(path, scrape)}.
 */
final class ScrapeHandler implements HttpHandler {

  private final Supplier<String> scrape;

  ScrapeHandler(Supplier<String> scrape) {
    this.scrape = scrape;
  }

  @Override
  public void handleRequest(HttpServerExchange exchange) {
    if (exchange.isInIoThread()) {
      exchange.dispatch(this::send);
    } else {
      send(exchange);
    }
  }

  private void send(HttpServerExchange exchange) {
    exchange
        .getResponseHeaders()
        .put(Headers.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
    exchange.getResponseSender().send(scrape.get());
  }
}
