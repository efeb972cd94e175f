package io.servicehooks.samples;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.undertow.WebhookServer;
import io.undertow.server.HttpHandler;
import io.undertow.util.Headers;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone consumer: a {@link WebhookServer} with {@code GET /health}, Prometheus text at
 * {@code GET /metrics}, and one INFO line per handled event, written once all the event's listeners
 * have finished. {@link ConsumerMain} runs it from the command line; the demo and the tests start
 * it in-process.
 */
public final class StandaloneConsumer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger("servicehooks.consumer");

  private final PrometheusMeterRegistry registry;
  private final WebhookServer server;

  private StandaloneConsumer(PrometheusMeterRegistry registry, WebhookServer server) {
    this.registry = registry;
    this.server = server;
  }

  /**
   * Starts serving.
   *
   * @param settings where and how to serve
   * @param customizer adds the caller's own listeners to the consumer (the demo's, a test's)
   */
  public static StandaloneConsumer start(
      Settings settings, Consumer<WebhookConsumer.Builder> customizer) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    WebhookConsumer.Builder builder =
        WebhookConsumer.builder()
            .consumerSecrets(settings.consumerSecrets())
            .meterRegistry(registry)
            .listenersNonBlocking(settings.inlineListeners());
    customizer.accept(builder);
    if (settings.logEvents()) {
      // Registered after the caller's listeners (they run in registration order), so the line
      // means every listener of the event has finished; logback flushes it before the listener
      // returns, so in synchronous mode it is on stdout before the 200 is sent (CrashIT relies
      // on this).
      builder.onAny(event -> log.info("Handled {} event {}", event.type(), event.id()));
    }
    HttpHandler health =
        exchange -> {
          exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
          exchange.getResponseSender().send("{\"status\":\"UP\"}");
        };
    HttpHandler metrics =
        exchange -> {
          if (exchange.isInIoThread()) {
            exchange.dispatch(() -> scrape(registry, exchange));
            return;
          }
          scrape(registry, exchange);
        };
    WebhookServer.Builder server =
        WebhookServer.builder(builder.build())
            .host(settings.host())
            .port(settings.port())
            .path(settings.path())
            .route("/health", health)
            .route("/metrics", metrics);
    if (settings.ioThreads() > 0) {
      server.ioThreads(settings.ioThreads());
    }
    if (settings.workerThreads() > 0) {
      server.workerThreads(settings.workerThreads());
    }
    return new StandaloneConsumer(registry, server.build().start());
  }

  private static void scrape(
      PrometheusMeterRegistry registry, io.undertow.server.HttpServerExchange exchange) {
    exchange
        .getResponseHeaders()
        .put(Headers.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
    exchange.getResponseSender().send(registry.scrape());
  }

  /** The port actually bound. */
  public int port() {
    return server.port();
  }

  /** The Prometheus text of the current meters. */
  public String scrape() {
    return registry.scrape();
  }

  /** Finishes in-flight deliveries, then stops. */
  @Override
  public void close() {
    server.close();
    registry.close();
    log.info("Stopped");
  }

  /**
   * What the consumer needs to run. The secrets are never printed: {@link #toString()} leaves them
   * out.
   *
   * @param consumerSecrets consumer secrets, first current
   * @param host the address to bind
   * @param port the port (0 for any free one)
   * @param path the webhook path
   * @param inlineListeners run listeners on the IO thread (they must not block)
   * @param logEvents log one INFO line per handled event
   * @param ioThreads Undertow IO threads, 0 for the default
   * @param workerThreads Undertow worker threads, 0 for the default
   */
  public record Settings(
      List<String> consumerSecrets,
      String host,
      int port,
      String path,
      boolean inlineListeners,
      boolean logEvents,
      int ioThreads,
      int workerThreads) {

    @Override
    public String toString() {
      return "Settings[secrets="
          + consumerSecrets.size()
          + ", host="
          + host
          + ", port="
          + port
          + ", path="
          + path
          + ", inlineListeners="
          + inlineListeners
          + ", logEvents="
          + logEvents
          + ", ioThreads="
          + ioThreads
          + ", workerThreads="
          + workerThreads
          + "]";
    }
  }
}
