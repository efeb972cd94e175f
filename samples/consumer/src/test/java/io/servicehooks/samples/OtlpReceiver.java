package io.servicehooks.samples;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.zip.GZIPInputStream;

/**
 * A small OTLP/HTTP trace receiver for tests: answers {@code POST /v1/traces} with 200 and an empty
 * {@code ExportTraceServiceResponse}, and keeps each decoded span with its resource's {@code
 * service.name}. Anything else, or a body that is not {@code application/x-protobuf}, is answered
 * 415 or 404 and counted as refused.
 */
final class OtlpReceiver implements AutoCloseable {

  /** One received span, ids in lower-case hex as logs and the W3C header write them. */
  record ReceivedSpan(
      String serviceName,
      String name,
      String traceId,
      String spanId,
      String parentSpanId,
      List<KeyValue> attributes) {

    String attribute(String key) {
      for (KeyValue kv : attributes) {
        if (kv.getKey().equals(key)) {
          return kv.getValue().getStringValue();
        }
      }
      return null;
    }
  }

  private final HttpServer server;
  private final List<ReceivedSpan> spans = new CopyOnWriteArrayList<>();
  private final List<String> refused = new CopyOnWriteArrayList<>();

  OtlpReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(Executors.newSingleThreadExecutor());
    server.createContext(
        "/",
        exchange -> {
          try (exchange) {
            String type = exchange.getRequestHeaders().getFirst("Content-Type");
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
              body = in.readAllBytes();
            }
            if (!exchange.getRequestMethod().equals("POST")
                || !exchange.getRequestURI().getPath().equals("/v1/traces")) {
              refused.add(exchange.getRequestMethod() + " " + exchange.getRequestURI());
              exchange.sendResponseHeaders(404, -1);
              return;
            }
            if (type == null || !type.startsWith("application/x-protobuf")) {
              refused.add("content type " + type);
              exchange.sendResponseHeaders(415, -1);
              return;
            }
            if ("gzip".equals(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
              body = new GZIPInputStream(new java.io.ByteArrayInputStream(body)).readAllBytes();
            }
            keep(ExportTraceServiceRequest.parseFrom(body));
            exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, -1); // an empty response message: no body at all
          }
        });
    server.start();
  }

  private void keep(ExportTraceServiceRequest request) {
    HexFormat hex = HexFormat.of();
    List<ReceivedSpan> received = new ArrayList<>();
    for (ResourceSpans rs : request.getResourceSpansList()) {
      String service = serviceName(rs.getResource());
      for (ScopeSpans ss : rs.getScopeSpansList()) {
        for (Span s : ss.getSpansList()) {
          received.add(
              new ReceivedSpan(
                  service,
                  s.getName(),
                  hex.formatHex(s.getTraceId().toByteArray()),
                  hex.formatHex(s.getSpanId().toByteArray()),
                  hex.formatHex(s.getParentSpanId().toByteArray()),
                  s.getAttributesList()));
        }
      }
    }
    spans.addAll(received);
  }

  private static String serviceName(Resource resource) {
    for (KeyValue kv : resource.getAttributesList()) {
      if (kv.getKey().equals("service.name")) {
        return kv.getValue().getStringValue();
      }
    }
    return null;
  }

  /** The base URL to give as {@code OTEL_EXPORTER_OTLP_ENDPOINT}. */
  String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  List<ReceivedSpan> spans() {
    return List.copyOf(spans);
  }

  List<String> refused() {
    return List.copyOf(refused);
  }

  @Override
  public void close() {
    server.stop(0);
    ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
  }
}
