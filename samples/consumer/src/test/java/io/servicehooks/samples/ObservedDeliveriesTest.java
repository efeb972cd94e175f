package io.servicehooks.samples;

import static io.servicehooks.samples.TracingTest.byName;
import static io.servicehooks.samples.TracingTest.names;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariDataSource;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.servicehooks.core.Acknowledgement;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.postgres.PostgresInbox;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.stream.ActivityStream;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testsupport.TestDatabase;
import io.servicehooks.undertow.WebhookServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Traces over real parts: the platform simulator delivers to a consumer on Undertow (or over its
 * activity stream), the consumer observes through Micrometer Tracing's OpenTelemetry bridge, and
 * the spans are read from an in-memory exporter. Durable mode runs on a real PostgreSQL, whose row
 * carries the trace from the delivery to the worker.
 */
final class ObservedDeliveriesTest {

  private static final String USER = "2244994945";
  private static final org.slf4j.Logger LISTENER_LOG =
      LoggerFactory.getLogger("servicehooks.test.listener");

  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final Tracing tracing = Tracing.exportingTo(spans, "observed-test");
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final List<AutoCloseable> open = new ArrayList<>();
  private PlatformSimulator platform;

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
    ((Logger) LoggerFactory.getLogger("servicehooks.test.listener")).detachAppender(logs);
    tracing.close();
  }

  private PlatformSimulator platform() {
    platform =
        PlatformSimulator.builder()
            .localMode(true)
            .retrySchedule(List.of(Duration.ofMillis(100)))
            .deliveryTimeout(Duration.ofSeconds(5))
            .build()
            .start();
    open.add(0, platform);
    logs.start();
    ((Logger) LoggerFactory.getLogger("servicehooks.test.listener")).addAppender(logs);
    return platform;
  }

  private WebhookClient client() {
    return WebhookClient.builder()
        .baseUrl(platform.baseUrl())
        .apiCredentials(platform.apiKey(), platform.apiSecret())
        .allowInsecureUrls(true)
        .build();
  }

  private void serve(WebhookConsumer consumer) throws Exception {
    WebhookServer server =
        WebhookServer.builder(consumer).host("127.0.0.1").port(0).build().start();
    open.add(0, server);
    open.add(0, consumer);
    client().ensureRegistered("http://127.0.0.1:" + server.port() + "/webhooks");
  }

  private static String post(String id) {
    return Events.activity(id, "post.create", Map.of("user_id", USER), null, Map.of("id", id));
  }

  private SpanData awaitSpan(String name) {
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> spans.getFinishedSpanItems().stream().anyMatch(s -> s.getName().equals(name)));
    return byName(spans.getFinishedSpanItems(), name);
  }

  /** Every span finished so far: name, trace, span and parent ids, for a failure's message. */
  private String dump() {
    StringBuilder out = new StringBuilder();
    for (SpanData s : spans.getFinishedSpanItems()) {
      out.append('\n')
          .append(s.getName())
          .append(' ')
          .append(s.getTraceId())
          .append(' ')
          .append(s.getSpanId())
          .append(" <- ")
          .append(s.getParentSpanId());
    }
    return out.toString();
  }

  private ILoggingEvent listenerLine(String id) {
    return logs.list.stream()
        .filter(e -> e.getFormattedMessage().equals("saw " + id))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void synchronous_deliveryThenListener_oneTrace_listenerLogLineCarriesItsIds() throws Exception {
    platform();
    serve(
        WebhookConsumer.builder()
            .consumerSecrets(platform.consumerSecret())
            .observationRegistry(tracing.observationRegistry())
            .on("post.create", event -> LISTENER_LOG.info("saw {}", event.id()))
            .build());

    platform.deliver(post("11"));

    SpanData listener = awaitSpan("listener post.create");
    SpanData delivery = awaitSpan("webhook delivery");
    assertThat(listener.getTraceId()).isEqualTo(delivery.getTraceId());
    assertThat(listener.getParentSpanId()).isEqualTo(delivery.getSpanId());
    assertThat(delivery.getAttributes().asMap().toString())
        .contains(
            "servicehooks.outcome=accepted",
            "servicehooks.acknowledgement=synchronous",
            "servicehooks.event.type=post.create",
            "servicehooks.source=webhook");
    assertThat(listener.getAttributes().asMap().toString())
        .contains("servicehooks.event.id=11", "servicehooks.listener=post.create");
    assertThat(listenerLine("11").getMDCPropertyMap())
        .containsEntry("traceId", listener.getTraceId())
        .containsEntry("spanId", listener.getSpanId());
  }

  @Test
  void durable_deliveryStoredThenProcessedByTheWorker_oneTraceThroughTheRow() throws Exception {
    platform();
    try (TestDatabase.Schema schema = TestDatabase.schemaToBeCreated()) {
      HikariDataSource pool = TestDatabase.pool(6);
      open.add(pool);
      PostgresInbox inbox =
          PostgresInbox.builder()
              .dataSource(pool)
              .schema(schema.name)
              .createSchema(true)
              .pollInterval(Duration.ofMillis(50))
              .build();
      serve(
          WebhookConsumer.builder()
              .consumerSecrets(platform.consumerSecret())
              .acknowledgement(Acknowledgement.DURABLE)
              .inbox(inbox)
              .observationRegistry(tracing.observationRegistry())
              .on("post.create", event -> LISTENER_LOG.info("saw {}", event.id()))
              .build());

      platform.deliver(post("21"));

      SpanData listener = awaitSpan("listener post.create");
      SpanData delivery = awaitSpan("webhook delivery");
      SpanData store = awaitSpan("inbox store");
      SpanData process = awaitSpan("inbox process");
      assertThat(List.of(store, process, listener))
          .as(names(spans.getFinishedSpanItems()).toString())
          .allSatisfy(s -> assertThat(s.getTraceId()).isEqualTo(delivery.getTraceId()));
      assertThat(store.getParentSpanId()).isEqualTo(delivery.getSpanId());
      assertThat(store.getKind()).isEqualTo(SpanKind.PRODUCER);
      assertThat(process.getParentSpanId()).isEqualTo(store.getSpanId());
      assertThat(process.getKind()).isEqualTo(SpanKind.CONSUMER);
      assertThat(listener.getParentSpanId()).isEqualTo(process.getSpanId());
      assertThat(delivery.getAttributes().asMap().toString())
          .contains("servicehooks.acknowledgement=durable", "servicehooks.outcome=accepted");
      // The trace went through the row, not through memory: the column holds the store span.
      assertThat(
              schema.number(
                  "SELECT count(*) FROM "
                      + schema.table()
                      + " WHERE traceparent = '00-"
                      + store.getTraceId()
                      + "-"
                      + store.getSpanId()
                      + "-"
                      + store.getSpanContext().getTraceFlags().asHex()
                      + "'"))
          .isEqualTo(1);
      assertThat(listenerLine("21").getMDCPropertyMap())
          .containsEntry("traceId", delivery.getTraceId());
    }
  }

  @Test
  void stream_eventThenDeliveryThenListener_oneTrace() throws Exception {
    platform();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(platform.consumerSecret())
            .observationRegistry(tracing.observationRegistry())
            .on("post.create", event -> LISTENER_LOG.info("saw {}", event.id()))
            .build();
    open.add(0, consumer);
    ActivityStream stream =
        ActivityStream.builder(consumer, client())
            .observationRegistry(tracing.observationRegistry())
            .build();
    open.add(0, stream);
    stream.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> !platform.openStreams().isEmpty());

    platform.deliverToStream(post("31"));

    SpanData listener = awaitSpan("listener post.create");
    SpanData delivery = awaitSpan("stream delivery");
    SpanData event = awaitSpan("stream event");
    assertThat(delivery.getParentSpanId()).as(dump()).isEqualTo(event.getSpanId());
    assertThat(listener.getParentSpanId()).as(dump()).isEqualTo(delivery.getSpanId());
    assertThat(listener.getTraceId()).isEqualTo(event.getTraceId());
    assertThat(event.getAttributes().asMap().toString())
        .contains("servicehooks.outcome=taken", "servicehooks.stream.connection=1");
    assertThat(delivery.getAttributes().asMap().toString()).contains("servicehooks.source=stream");
    assertThat(listenerLine("31").getMDCPropertyMap()).containsEntry("traceId", event.getTraceId());
  }
}
