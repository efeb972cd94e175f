package io.servicehooks.samples;

import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.EventPublishingContextWrapper;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.micrometer.tracing.otel.bridge.Slf4JEventListener;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.ContextStorage;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporterBuilder;
import io.opentelemetry.exporter.otlp.trace.OtlpGrpcSpanExporter;
import io.opentelemetry.exporter.otlp.trace.OtlpGrpcSpanExporterBuilder;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The standalone consumer's traces: an OpenTelemetry SDK exporting over OTLP, bridged to the
 * consumer's Micrometer observations by Micrometer Tracing, as Spring Boot wires it (a propagating
 * sender and receiver handler, so the durable inbox's rows carry the trace; the trace and span ids
 * in the SLF4J MDC as {@code traceId} and {@code spanId} while an observation's scope is open).
 *
 * <p>Made from the environment only when {@code OTEL_EXPORTER_OTLP_ENDPOINT} is set, with the
 * OpenTelemetry specification's meaning: the base URL, to which {@code /v1/traces} is added for
 * {@code http/protobuf} (the default {@code OTEL_EXPORTER_OTLP_PROTOCOL}), used as is for {@code
 * grpc}. {@code OTEL_EXPORTER_OTLP_HEADERS} ({@code key=value,...}, values percent-encoded) and
 * {@code OTEL_SERVICE_NAME} (default {@code servicehooks-consumer}) are read too; no other OTEL
 * variable is.
 */
final class Tracing implements AutoCloseable {

  static final String DEFAULT_SERVICE_NAME = "servicehooks-consumer";

  // OpenTelemetry's context storage takes wrappers only before it is first used, once per JVM: the
  // MDC listener is added once and serves every Tracing of the process.
  private static final AtomicBoolean MDC_WIRED = new AtomicBoolean();
  private static final Slf4JEventListener MDC = new Slf4JEventListener();

  private final OpenTelemetrySdk sdk;
  private final ObservationRegistry registry;
  private final String description;

  private Tracing(SpanProcessor processor, String serviceName, String description) {
    wireMdc();
    Resource resource =
        Resource.getDefault()
            .merge(
                Resource.create(
                    Attributes.of(AttributeKey.stringKey("service.name"), serviceName)));
    SdkTracerProvider provider =
        SdkTracerProvider.builder().setResource(resource).addSpanProcessor(processor).build();
    ContextPropagators propagators =
        ContextPropagators.create(W3CTraceContextPropagator.getInstance());
    this.sdk =
        OpenTelemetrySdk.builder().setTracerProvider(provider).setPropagators(propagators).build();
    io.opentelemetry.api.trace.Tracer otel = sdk.getTracer("io.servicehooks");
    OtelTracer tracer = new OtelTracer(otel, new OtelCurrentTraceContext(), MDC::onEvent);
    OtelPropagator propagator = new OtelPropagator(propagators, otel);
    this.registry = ObservationRegistry.create();
    registry
        .observationConfig()
        .observationHandler(
            new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                new DefaultTracingObservationHandler(tracer)));
    this.description = description + ", service.name=" + serviceName;
  }

  private static void wireMdc() {
    if (MDC_WIRED.compareAndSet(false, true)) {
      ContextStorage.addWrapper(new EventPublishingContextWrapper(MDC::onEvent));
    }
  }

  /**
   * Traces exported over OTLP as the environment says, or {@code null} when {@code
   * OTEL_EXPORTER_OTLP_ENDPOINT} is unset or blank.
   *
   * @throws IllegalArgumentException for a protocol other than {@code http/protobuf} or {@code
   *     grpc}, an endpoint that is not an absolute URL, or a malformed header list; the message
   *     never holds a header value, the endpoint's user information or its query
   */
  static Tracing fromEnvironment(Map<String, String> env) {
    String endpoint = ConsumerVariables.OTEL_EXPORTER_OTLP_ENDPOINT.value(env);
    if (endpoint == null) {
      return null;
    }
    String protocol =
        ConsumerVariables.OTEL_EXPORTER_OTLP_PROTOCOL
            .rawOr(env, "http/protobuf")
            .strip()
            .toLowerCase(Locale.ROOT);
    Map<String, String> headers = headers(ConsumerVariables.OTEL_EXPORTER_OTLP_HEADERS.raw(env));
    String serviceName = ConsumerVariables.OTEL_SERVICE_NAME.value(env);
    if (serviceName == null) {
      serviceName = DEFAULT_SERVICE_NAME;
    }
    SpanExporter exporter;
    String url;
    switch (protocol) {
      case "http/protobuf":
        url = withTracesPath(endpoint);
        break;
      case "grpc":
        url = endpointUri(endpoint).toString();
        break;
      default:
        throw new IllegalArgumentException(
            "OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or grpc, not '" + protocol + "'");
    }
    try {
      if (protocol.equals("grpc")) {
        OtlpGrpcSpanExporterBuilder grpc = OtlpGrpcSpanExporter.builder().setEndpoint(url);
        headers.forEach(grpc::addHeader);
        exporter = grpc.build();
      } else {
        OtlpHttpSpanExporterBuilder http = OtlpHttpSpanExporter.builder().setEndpoint(url);
        headers.forEach(http::addHeader);
        exporter = http.build();
      }
    } catch (IllegalArgumentException refused) {
      // The exporter's message quotes the URL whole, user information and query included.
      throw new IllegalArgumentException(
          "OTEL_EXPORTER_OTLP_ENDPOINT " + redacted(url) + " is refused by the OTLP exporter");
    }
    // The URL without its user information and query, and header names only: credentials hide
    // in all three.
    return new Tracing(
        BatchSpanProcessor.builder(exporter).build(),
        serviceName,
        "OTLP "
            + protocol
            + " to "
            + redacted(url)
            + (headers.isEmpty() ? "" : " with headers " + headers.keySet()));
  }

  /** Traces handed to {@code exporter} as each span ends (tests read them from memory). */
  static Tracing exportingTo(SpanExporter exporter, String serviceName) {
    return new Tracing(SimpleSpanProcessor.create(exporter), serviceName, "exporter " + exporter);
  }

  /** {@code key=value,key2=value2}, values percent-encoded, as the specification writes them. */
  static Map<String, String> headers(String list) {
    Map<String, String> headers = new java.util.LinkedHashMap<>();
    if (list == null || list.isBlank()) {
      return headers;
    }
    for (String pair : list.split(",")) {
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        // Never the value itself: it may be a credential.
        throw new IllegalArgumentException(
            "OTEL_EXPORTER_OTLP_HEADERS must be key=value pairs separated by commas");
      }
      String key = pair.substring(0, eq).strip();
      String value;
      try {
        value = URLDecoder.decode(pair.substring(eq + 1).strip(), StandardCharsets.UTF_8);
      } catch (IllegalArgumentException badEscape) {
        // The decoder's message quotes the value: never pass it on.
        throw new IllegalArgumentException(
            "OTEL_EXPORTER_OTLP_HEADERS: the value of header '"
                + key
                + "' has a malformed percent escape (write % as %25)");
      }
      headers.put(key, value);
    }
    return headers;
  }

  /**
   * The OTLP/HTTP traces URL of a base endpoint, as the specification adds it: {@code v1/traces}
   * appended to the path, before any query (a collector may take its key in the query).
   */
  static String withTracesPath(String endpoint) {
    URI uri = endpointUri(endpoint);
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    String withTraces = (path.endsWith("/") ? path : path + "/") + "v1/traces";
    StringBuilder url = new StringBuilder().append(uri.getScheme()).append("://");
    if (uri.getRawAuthority() != null) {
      url.append(uri.getRawAuthority());
    }
    url.append(withTraces);
    if (uri.getRawQuery() != null) {
      url.append('?').append(uri.getRawQuery());
    }
    return url.toString();
  }

  /** {@code url} for a log line: user information and query shown as {@code ***}. */
  static String redacted(String url) {
    URI uri = endpointUri(url);
    StringBuilder shown = new StringBuilder().append(uri.getScheme()).append("://");
    if (uri.getRawUserInfo() != null) {
      shown.append("***@");
    }
    shown.append(uri.getHost() == null ? "(no host)" : uri.getHost());
    if (uri.getPort() != -1) {
      shown.append(':').append(uri.getPort());
    }
    shown.append(uri.getRawPath() == null ? "" : uri.getRawPath());
    if (uri.getRawQuery() != null) {
      shown.append("?***");
    }
    return shown.toString();
  }

  private static URI endpointUri(String endpoint) {
    URI uri;
    try {
      uri = new URI(endpoint.strip());
    } catch (URISyntaxException e) {
      // The text may hold a password: say what is wrong, not what it is.
      throw new IllegalArgumentException(
          "OTEL_EXPORTER_OTLP_ENDPOINT is not a URL (" + e.getReason() + ")");
    }
    if (uri.getScheme() == null || uri.getRawAuthority() == null) {
      throw new IllegalArgumentException(
          "OTEL_EXPORTER_OTLP_ENDPOINT must be an absolute http(s) URL such as"
              + " http://collector:4318");
    }
    return uri;
  }

  /** The registry to hand the consumer (and the activity stream). */
  ObservationRegistry observationRegistry() {
    return registry;
  }

  /** Exports the spans still buffered (bounded: 10 s) and shuts the SDK down. */
  @Override
  public void close() {
    sdk.getSdkTracerProvider().shutdown().join(10, TimeUnit.SECONDS);
  }

  @Override
  public String toString() {
    return "Tracing[" + description + "]";
  }
}
