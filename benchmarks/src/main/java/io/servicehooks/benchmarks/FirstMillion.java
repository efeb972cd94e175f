package io.servicehooks.benchmarks;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.ThreadMXBean;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookResponse;
import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.LongAdder;

/**
 * The consumer's part of {@code benchmarks/stream.sh}'s first million events, in one fresh JVM:
 * stream lines handed to {@link WebhookConsumer#handleFromOwnConnection} one after another on one
 * thread, each a new event, with the in-memory dedup, a Prometheus registry and a listener that
 * only counts. No connection and no log line, so what it measures is the delivery's own path with
 * the JIT compiling it on the same core: the process's CPU per event (compilation included), the
 * wall time per event in each quarter, and the bytes this thread allocated per event. Run it pinned
 * to one core, as the stream harness pins the consumer; with a JFR recording of {@code
 * jdk.Compilation} events, {@code benchmarks/stream/compilations.py RECORDING} says what C2
 * compiled:
 *
 * <pre>
 * taskset -c 0 java -XX:StartFlightRecording=filename=/tmp/first.jfr,settings=benchmarks/stream/compilations.jfc \
 *     -cp benchmarks/target/benchmarks.jar io.servicehooks.benchmarks.FirstMillion [events] [rounds]
 * python3 benchmarks/stream/compilations.py /tmp/first.jfr
 * </pre>
 *
 * A second round in the same JVM (a new consumer, the code already compiled) gives the warm cost.
 * Timing varies with the host from one JVM to the next; the bytes allocated per event do not.
 */
public final class FirstMillion {

  private FirstMillion() {}

  public static void main(String[] args) {
    int events = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 1;
    byte[][] lines = new byte[events][];
    for (int i = 0; i < events; i++) {
      lines[i] = Payloads.streamLine(Long.toString(1_876_000_000_000_000_000L + i));
    }
    OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    ThreadMXBean thread = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    int quarter = Math.max(1, events / 4);
    for (int round = 1; round <= rounds; round++) {
      LongAdder handled = new LongAdder();
      WebhookConsumer consumer =
          WebhookConsumer.builder()
              .consumerSecrets(Payloads.SECRET)
              .meterRegistry(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
              .onAny(event -> handled.increment())
              .build();
      long allocated = thread.getCurrentThreadAllocatedBytes();
      long cpu = os.getProcessCpuTime();
      long start = System.nanoTime();
      long mark = start;
      StringBuilder quarters = new StringBuilder();
      for (int i = 0; i < events; i++) {
        WebhookResponse response = consumer.handleFromOwnConnection(lines[i]).join();
        if (response.status() != 200) {
          throw new IllegalStateException("event " + i + " answered " + response.status());
        }
        if ((i + 1) % quarter == 0) {
          long now = System.nanoTime();
          quarters.append(quarters.length() == 0 ? "" : " · ").append((now - mark) / quarter);
          mark = now;
        }
      }
      long wall = System.nanoTime() - start;
      long cpuPerEvent = (os.getProcessCpuTime() - cpu) / events;
      long bytesPerEvent = (thread.getCurrentThreadAllocatedBytes() - allocated) / events;
      consumer.close();
      if (handled.sum() != events) {
        throw new IllegalStateException(handled.sum() + " of " + events + " events handled");
      }
      System.out.printf(
          "round %d: %,d events, %,d ns CPU per event (process), %,d ns wall; by quarter %s ns;"
              + " %,d bytes allocated per event%n",
          round, events, cpuPerEvent, wall / events, quarters, bytesPerEvent);
    }
  }
}
