package io.servicehooks.samples;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Set;

/**
 * The registry behind the standalone consumer's {@code /metrics}: the JVM and process meters a
 * dashboard shows beside the webhook's (Spring Boot adds the same ones itself), and histogram
 * buckets on the timers that an answer-time panel or alert takes quantiles of ({@code
 * ops/grafana/servicehooks.json}). The library registers plain timers and leaves buckets to the
 * application, as Micrometer advises.
 */
final class ConsumerRegistry {

  /**
   * Timers published with {@link #BUCKETS}: a delivery's answer, a store call, an inbox attempt.
   */
  static final Set<String> HISTOGRAMS =
      Set.of(
          "webhook.delivery.latency",
          "webhook.dedup.store",
          "webhook.inbox.processing",
          "webhook.kafka.send");

  /** From a millisecond to the platform's 10 s answer budget. */
  static final Duration[] BUCKETS = {
    Duration.ofMillis(1),
    Duration.ofMillis(2),
    Duration.ofMillis(5),
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofMillis(2500),
    Duration.ofSeconds(5),
    Duration.ofSeconds(10)
  };

  private ConsumerRegistry() {}

  /**
   * A Prometheus registry with the JVM meters bound; closing it unbinds the GC listener. The {@code
   * filters} are configured first, before any meter: Micrometer applies a filter only to meters
   * registered after it.
   */
  static PrometheusMeterRegistry create(MeterFilter... filters) {
    JvmGcMetrics gc = new JvmGcMetrics();
    PrometheusMeterRegistry registry =
        new PrometheusMeterRegistry(PrometheusConfig.DEFAULT) {
          @Override
          public void close() {
            gc.close();
            super.close();
          }
        };
    for (MeterFilter filter : filters) {
      registry.config().meterFilter(filter);
    }
    registry.config().meterFilter(buckets());
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    return registry;
  }

  private static MeterFilter buckets() {
    return new MeterFilter() {
      @Override
      public DistributionStatisticConfig configure(
          Meter.Id id, DistributionStatisticConfig config) {
        if (!HISTOGRAMS.contains(id.getName())) {
          return config;
        }
        double[] nanos = new double[BUCKETS.length];
        for (int i = 0; i < BUCKETS.length; i++) {
          nanos[i] = BUCKETS[i].toNanos();
        }
        return DistributionStatisticConfig.builder()
            .serviceLevelObjectives(nanos)
            .build()
            .merge(config);
      }
    };
  }
}
