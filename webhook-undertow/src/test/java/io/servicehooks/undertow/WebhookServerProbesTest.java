package io.servicehooks.undertow;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.servicehooks.core.WebhookConsumer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A plain-Java bot's {@link WebhookServer} serves optional {@code /health} and {@code /metrics},
 * and one INFO line at start names what serves where, the acknowledgement mode and the dedup store.
 */
final class WebhookServerProbesTest {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  @Test
  void healthAndMetrics_servedBesideTheWebhook_andNamedInTheStartLine() throws Exception {
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    Logger logger = (Logger) LoggerFactory.getLogger(WebhookServer.class);
    logger.addAppender(logs);
    ch.qos.logback.classic.Level level = logger.getLevel();
    logger.setLevel(ch.qos.logback.classic.Level.INFO);
    AtomicInteger scrapes = new AtomicInteger();
    WebhookConsumer consumer =
        WebhookConsumer.builder().consumerSecrets("a-secret-never-logged").build();
    try (WebhookServer server =
        WebhookServer.builder(consumer)
            .host("127.0.0.1")
            .port(0)
            .health("/health")
            .metrics(
                "/metrics", () -> "webhook_scrapes_total " + scrapes.incrementAndGet() + ".0\n")
            .build()
            .start()) {
      String base = "http://127.0.0.1:" + server.port();

      HttpResponse<String> health = get(base + "/health");
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.body()).isEqualTo("{\"status\":\"UP\"}");
      HttpResponse<String> metrics = get(base + "/metrics");
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.headers().firstValue("content-type"))
          .hasValue("text/plain; version=0.0.4; charset=utf-8");
      assertThat(metrics.body()).isEqualTo("webhook_scrapes_total 1.0\n");

      assertThat(logs.list)
          .extracting(ILoggingEvent::getFormattedMessage)
          .filteredOn(line -> line.startsWith("Serving webhooks at"))
          .singleElement()
          .satisfies(
              line ->
                  assertThat(line)
                      .startsWith(
                          "Serving webhooks at http://127.0.0.1:"
                              + server.port()
                              + "/webhooks (also /health, /metrics) with WebhookConsumer[")
                      .contains("acknowledgement=SYNCHRONOUS")
                      .contains("dedup=InMemoryDeduplicator,")
                      .doesNotContain("a-secret-never-logged"));
    } finally {
      logger.detachAppender(logs);
      logger.setLevel(level);
    }
  }

  @Test
  void consumerToString_namesAcknowledgementAndDedupStore() {
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets("s")
            .deduplicator(io.servicehooks.core.Deduplicator.none())
            .acknowledgement(io.servicehooks.core.Acknowledgement.ASYNCHRONOUS)
            .build();
    try {
      assertThat(consumer.toString())
          .contains("acknowledgement=ASYNCHRONOUS")
          .contains("dedup=NoDeduplicator");
    } finally {
      consumer.close();
    }
  }

  private static HttpResponse<String> get(String url) throws Exception {
    return CLIENT.send(
        HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
