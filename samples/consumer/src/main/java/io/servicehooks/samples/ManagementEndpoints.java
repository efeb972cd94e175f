package io.servicehooks.samples;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.kafka.KafkaBrokerCheck;
import io.servicehooks.postgres.PostgresInbox;
import io.servicehooks.stream.ActivityStream;
import io.undertow.Handlers;
import io.undertow.Undertow;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.server.handlers.PathHandler;
import io.undertow.util.Headers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The standalone consumer's {@code /health}, {@code /metrics} and probes, and the small Undertow
 * that serves them on a management port of their own (or, in stream mode, on {@code PORT}).
 */
final class ManagementEndpoints {

  private final PrometheusMeterRegistry registry;
  private final PostgresInbox inbox; // null: not durable
  private final Probes probes;
  private final KafkaBrokerCheck brokers; // null: no Kafka
  private volatile ActivityStream stream; // null: webhook only, or not started yet
  private volatile WebhookConsumer webhook; // null: no webhook served (stream mode)

  ManagementEndpoints(PrometheusMeterRegistry registry, DataSource database, PostgresInbox inbox) {
    this(registry, database, inbox, null);
  }

  /** With {@code brokers} not null, health and readiness are DOWN while no Kafka broker answers. */
  ManagementEndpoints(
      PrometheusMeterRegistry registry,
      DataSource database,
      PostgresInbox inbox,
      KafkaBrokerCheck brokers) {
    this.registry = registry;
    this.inbox = inbox;
    this.brokers = brokers;
    this.probes = new Probes(database, brokers, System::nanoTime);
  }

  /** The stream whose health {@code /health} reports, once it started. */
  void stream(ActivityStream stream) {
    this.stream = stream;
  }

  /** The consumer whose last CRC answer {@code /health} shows: it serves a webhook. */
  void crcAnswers(WebhookConsumer consumer) {
    this.webhook = consumer;
  }

  Probes probes() {
    return probes;
  }

  /**
   * {@code /health}: DOWN (503) when the durable inbox has a problem, no Kafka broker answers, or
   * the stream has been down too long or was refused, UP otherwise.
   */
  HttpHandler health() {
    return exchange -> {
      if (brokers != null && exchange.isInIoThread()) {
        exchange.dispatch(health()); // the broker check may wait for its time-out
        return;
      }
      ActivityStream s = stream;
      exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
      // Durable mode: DOWN when an inbox thread is gone or its loops keep failing, so an
      // orchestrator replaces an instance that answers 200 but no longer runs what it stored.
      Optional<String> problem = inbox == null ? Optional.empty() : inbox.problem();
      if (problem.isPresent()) {
        exchange.setStatusCode(503);
        exchange
            .getResponseSender()
            .send("{\"status\":\"DOWN\",\"inbox\":\"" + jsonText(problem.get()) + "\"}");
        return;
      }
      Optional<String> kafka = brokers == null ? Optional.empty() : brokers.problem();
      if (kafka.isPresent()) {
        exchange.setStatusCode(503);
        exchange
            .getResponseSender()
            .send("{\"status\":\"DOWN\",\"kafka\":\"" + jsonText(kafka.get()) + "\"}");
        return;
      }
      if (s != null && !s.healthy()) {
        // Down 60 s or refused: an orchestrator should see it (and restart or alert).
        exchange.setStatusCode(503);
        exchange.getResponseSender().send("{\"status\":\"DOWN\",\"stream\":\"" + s.state() + "\"}");
        return;
      }
      exchange.getResponseSender().send("{\"status\":\"UP\"" + crcDetail() + "}");
    };
  }

  /**
   * {@code ,"crc_last_answered":"<instant>"} (null before the first check) when a webhook is
   * served: a webhook the platform switched off after failed checks gets no CRC check either.
   */
  private String crcDetail() {
    WebhookConsumer w = webhook;
    if (w == null) {
      return "";
    }
    return ",\"crc_last_answered\":" + w.lastCrcAnswered().map(t -> "\"" + t + "\"").orElse("null");
  }

  /** {@code /metrics}: the registry's Prometheus text, scraped on a worker thread. */
  HttpHandler metrics() {
    return exchange -> {
      if (exchange.isInIoThread()) {
        exchange.dispatch(() -> scrape(exchange));
        return;
      }
      scrape(exchange);
    };
  }

  /**
   * The management listener: health and metrics only, everything else 404 with the same body as the
   * webhook server's. One IO thread and two workers (the scrape runs on a worker) are plenty for
   * probes and a scraper, and take nothing from the webhook's threads.
   */
  Undertow server(String host, int port) {
    PathHandler paths =
        Handlers.path(ManagementEndpoints::notFound)
            .addExactPath("/health", health())
            .addExactPath("/health/live", probes.live())
            .addExactPath("/health/ready", probes.ready())
            .addExactPath("/metrics", metrics());
    return Undertow.builder()
        .setIoThreads(1)
        .setWorkerThreads(2)
        .addHttpListener(port, host)
        .setHandler(paths)
        .build();
  }

  /** As {@code WebhookServer.start()} does for the webhook port: a bind failure names where. */
  static void start(Undertow management, String host, int port) {
    try {
      management.start();
    } catch (RuntimeException e) {
      management.stop();
      String where = "http://" + host + ":" + port;
      for (Throwable c = e; c != null; c = c.getCause()) {
        if (c instanceof IOException io) {
          throw new UncheckedIOException(
              "cannot bind " + where + " for /health and /metrics: " + io.getMessage(), io);
        }
      }
      throw e;
    }
  }

  static int boundPort(Undertow undertow) {
    return ((InetSocketAddress) undertow.getListenerInfo().get(0).getAddress()).getPort();
  }

  private void scrape(HttpServerExchange exchange) {
    exchange
        .getResponseHeaders()
        .put(Headers.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
    exchange.getResponseSender().send(registry.scrape());
  }

  private static void notFound(HttpServerExchange exchange) {
    exchange.setStatusCode(404);
    exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
    exchange
        .getResponseSender()
        .send("{\"error\":\"not_found\",\"message\":\"nothing is served at this path\"}");
  }

  /** {@code text} as the inside of a JSON string: quotes, backslashes and controls escaped. */
  private static String jsonText(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (char c : text.toCharArray()) {
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
