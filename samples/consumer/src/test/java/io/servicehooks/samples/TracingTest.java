package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.observation.Observation;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.servicehooks.core.PayloadFamily;
import io.servicehooks.core.StoredEvent;
import io.servicehooks.core.observation.DefaultInboxProcessObservationConvention;
import io.servicehooks.core.observation.DefaultInboxStoreObservationConvention;
import io.servicehooks.core.observation.InboxProcessObservationContext;
import io.servicehooks.core.observation.InboxStoreObservationContext;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/**
 * The wiring of {@link Tracing} alone, before any consumer: the bridge's handlers turn observations
 * into spans with their parents, the inbox contexts carry a W3C traceparent from the store to the
 * processing, and the MDC has the ids while a scope is open.
 */
final class TracingTest {

  private static final StoredEvent EVENT =
      new StoredEvent(
          "e1",
          "e1",
          "post.create",
          "post.create",
          PayloadFamily.ACTIVITY,
          null,
          null,
          null,
          "{}",
          "{}");

  @Test
  void fromEnvironment_withoutEndpoint_isNull() {
    assertThat(Tracing.fromEnvironment(Map.of())).isNull();
    assertThat(Tracing.fromEnvironment(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", " "))).isNull();
  }

  @Test
  void fromEnvironment_unknownProtocol_isRefusedNamingTheVariable() {
    assertThatThrownBy(
            () ->
                Tracing.fromEnvironment(
                    Map.of(
                        "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318",
                        "OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("OTEL_EXPORTER_OTLP_PROTOCOL");
  }

  @Test
  void fromEnvironment_describesUrlAndHeaderNames_neverHeaderValues() {
    try (Tracing tracing =
        Tracing.fromEnvironment(
            Map.of(
                "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318",
                "OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20s3cret,x-team=a",
                "OTEL_SERVICE_NAME", "bot"))) {
      assertThat(tracing.toString())
          .contains("http://127.0.0.1:4318/v1/traces", "authorization", "service.name=bot")
          .doesNotContain("s3cret");
    }
  }

  @Test
  void headers_areDecodedAndMalformedListsRefusedWithoutTheirText() {
    assertThat(Tracing.headers("a=b%3Dc, k = v "))
        .containsExactly(Map.entry("a", "b=c"), Map.entry("k", "v"));
    assertThatThrownBy(() -> Tracing.headers("token-without-key"))
        .hasMessageNotContaining("token-without-key");
  }

  @Test
  void fromEnvironment_endpointWithUserInfoAndQuery_describedRedacted() {
    try (Tracing tracing =
        Tracing.fromEnvironment(
            Map.of(
                "OTEL_EXPORTER_OTLP_ENDPOINT",
                "http://svc:PW-never-shown@127.0.0.1:4318/otlp?api_key=KEY-never-shown"))) {
      assertThat(tracing.toString())
          .contains("http://***@127.0.0.1:4318/otlp/v1/traces?***")
          .doesNotContain("PW-never-shown")
          .doesNotContain("KEY-never-shown")
          .doesNotContain("svc");
    }
  }

  @Test
  void fromEnvironment_endpointWithQuery_spansGoToThePathBeforeTheQuery() throws Exception {
    List<String> posted = new java.util.concurrent.CopyOnWriteArrayList<>();
    com.sun.net.httpserver.HttpServer collector =
        com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    collector.createContext(
        "/",
        exchange -> {
          try (exchange) {
            exchange.getRequestBody().readAllBytes();
            posted.add(exchange.getRequestURI().toString());
            exchange.sendResponseHeaders(200, -1);
          }
        });
    collector.start();
    try {
      String endpoint = "http://127.0.0.1:" + collector.getAddress().getPort() + "/otlp?api_key=K1";
      try (Tracing tracing =
          Tracing.fromEnvironment(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint))) {
        Observation.start("one", tracing.observationRegistry()).stop();
      }
      assertThat(posted).containsExactly("/otlp/v1/traces?api_key=K1");
    } finally {
      collector.stop(0);
    }
  }

  @Test
  void headers_badEscape_refusedNamingTheKeyButNoPartOfTheValue() {
    assertThatThrownBy(() -> Tracing.headers("authorization=Bearer%zzSECRET"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("authorization")
        .hasMessageNotContaining("zz")
        .hasMessageNotContaining("SECRET")
        .hasMessageNotContaining("Bearer");
  }

  @Test
  void observations_becomeSpans_childUnderParent_withIdsInMdcWhileScoped() {
    InMemorySpanExporter spans = InMemorySpanExporter.create();
    try (Tracing tracing = Tracing.exportingTo(spans, "test")) {
      Observation parent = Observation.start("parent", tracing.observationRegistry());
      Observation child =
          Observation.createNotStarted("child", tracing.observationRegistry())
              .parentObservation(parent)
              .start();
      String[] mdc = new String[2];
      try (Observation.Scope scope = child.openScope()) {
        mdc[0] = MDC.get("traceId");
        mdc[1] = MDC.get("spanId");
      }
      child.stop();
      parent.stop();
      assertThat(MDC.get("traceId")).isNull();

      List<SpanData> finished = spans.getFinishedSpanItems();
      SpanData p = byName(finished, "parent");
      SpanData c = byName(finished, "child");
      assertThat(c.getTraceId()).isEqualTo(p.getTraceId());
      assertThat(c.getParentSpanId()).isEqualTo(p.getSpanId());
      assertThat(mdc).containsExactly(c.getTraceId(), c.getSpanId());
    }
  }

  @Test
  void inboxContexts_carryTheTraceparent_fromStoreToProcess() {
    InMemorySpanExporter spans = InMemorySpanExporter.create();
    try (Tracing tracing = Tracing.exportingTo(spans, "test")) {
      InboxStoreObservationContext store = new InboxStoreObservationContext("post.create", 1);
      Observation stored =
          Observation.createNotStarted(
                  null,
                  new DefaultInboxStoreObservationConvention(),
                  () -> store,
                  tracing.observationRegistry())
              .start();
      String traceparent = store.traceparent();
      stored.stop();
      assertThat(traceparent).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");

      InboxProcessObservationContext process =
          new InboxProcessObservationContext(EVENT.withTraceparent(traceparent), "post.create");
      Observation.createNotStarted(
              null,
              new DefaultInboxProcessObservationConvention(),
              () -> process,
              tracing.observationRegistry())
          .start()
          .stop();

      SpanData s = byName(spans.getFinishedSpanItems(), "inbox store");
      SpanData p = byName(spans.getFinishedSpanItems(), "inbox process");
      assertThat(s.getKind()).isEqualTo(SpanKind.PRODUCER);
      assertThat(p.getKind()).isEqualTo(SpanKind.CONSUMER);
      assertThat(traceparent).contains(s.getTraceId(), s.getSpanId());
      assertThat(p.getTraceId()).isEqualTo(s.getTraceId());
      assertThat(p.getParentSpanId()).isEqualTo(s.getSpanId());
      assertThat(p.getAttributes().asMap().toString())
          .contains("servicehooks.outcome=success", "servicehooks.event.type=post.create");
    }
  }

  static SpanData byName(List<SpanData> spans, String name) {
    return spans.stream()
        .filter(s -> s.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no span '" + name + "' in " + names(spans)));
  }

  static List<String> names(List<SpanData> spans) {
    return spans.stream().map(SpanData::getName).toList();
  }
}
