package io.servicehooks.benchmarks;

import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.stream.ActivityStream;
import io.servicehooks.testkit.TestSigner;
import io.servicehooks.undertow.WebhookServer;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The same events through the two ways in, in one JVM (pin it to one core with {@code taskset -c
 * 0}): the activity stream (a local server writes one chunk per event on one connection, an {@link
 * ActivityStream} reads it into the consumer) and webhooks (each event a signed POST from the JDK
 * client to a {@link WebhookServer}, 16 in flight). The consumer is the same both times: in-memory
 * dedup and one no-op listener. Prints events/s and the process's CPU time per event, both sides
 * (sender and receiver) included, since both run in this process.
 *
 * <pre>
 * taskset -c 0 java -XX:+UseParallelGC -Xms1g -Xmx1g -cp benchmarks/target/benchmarks.jar \
 *     io.servicehooks.benchmarks.StreamVsWebhook [events]
 * </pre>
 */
public final class StreamVsWebhook {

  private static final String SECRET = "benchmark-consumer-secret-0123456789abcdef";

  private StreamVsWebhook() {}

  public static void main(String[] args) throws Exception {
    int events = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    int warmup = Math.max(20_000, events / 5);
    // Warm both paths, then measure each once, alternating.
    stream(1, warmup);
    webhook(2, warmup);
    Result s = stream(3, events);
    Result w = webhook(4, events);
    System.out.printf(
        "%-8s %10s %14s%n%-8s %10.0f %14.1f%n%-8s %10.0f %14.1f%nstream/webhook CPU per event:"
            + " %.2f%n",
        "path",
        "events/s",
        "CPU us/event",
        "stream",
        s.perSecond(),
        s.cpuMicrosPerEvent(),
        "webhook",
        w.perSecond(),
        w.cpuMicrosPerEvent(),
        s.cpuMicrosPerEvent() / w.cpuMicrosPerEvent());
  }

  record Result(int events, long nanos, long cpuNanos) {
    double perSecond() {
      return events / (nanos / 1e9);
    }

    double cpuMicrosPerEvent() {
      return cpuNanos / 1e3 / events;
    }
  }

  private static long cpu() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static WebhookConsumer consumer(CountDownLatch done) {
    return WebhookConsumer.builder()
        .consumerSecrets(SECRET)
        .onAny(event -> done.countDown())
        .build();
  }

  private static Result stream(long seed, int events) throws Exception {
    byte[][] lines = new byte[events][];
    for (int i = 0; i < events; i++) {
      lines[i] = Payloads.envelope(Payloads.eventUuid(seed, i));
    }
    CountDownLatch done = new CountDownLatch(events);
    CountDownLatch connected = new CountDownLatch(1);
    CountDownLatch go = new CountDownLatch(1);
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        WebhookConsumer consumer = consumer(done)) {
      Thread platform =
          new Thread(
              () -> {
                try (Socket socket = server.accept()) {
                  readHeaders(socket.getInputStream());
                  OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 65536);
                  out.write(
                      ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                              + "Transfer-Encoding: chunked\r\n\r\n")
                          .getBytes(StandardCharsets.US_ASCII));
                  out.flush();
                  connected.countDown();
                  go.await();
                  for (byte[] line : lines) {
                    out.write(
                        (Integer.toHexString(line.length + 1) + "\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    out.write(line);
                    out.write("\n\r\n".getBytes(StandardCharsets.US_ASCII));
                  }
                  out.flush();
                  done.await(5, TimeUnit.MINUTES);
                } catch (IOException | InterruptedException e) {
                  // the benchmark ends the connection
                }
              },
              "stream-platform");
      platform.start();
      WebhookClient client =
          WebhookClient.builder()
              .baseUrl(URI.create("http://127.0.0.1:" + server.getLocalPort()))
              .bearerToken("benchmark-token")
              .build();
      try (ActivityStream stream = ActivityStream.builder(consumer, client).build().start()) {
        connected.await(30, TimeUnit.SECONDS);
        long cpu0 = cpu();
        long t0 = System.nanoTime();
        go.countDown();
        if (!done.await(5, TimeUnit.MINUTES)) {
          throw new IllegalStateException("stream: not every event arrived");
        }
        return new Result(events, System.nanoTime() - t0, cpu() - cpu0);
      }
    }
  }

  private static void readHeaders(InputStream in) throws IOException {
    int matched = 0;
    byte[] end = {'\r', '\n', '\r', '\n'};
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("request ended early");
      }
      matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
    }
  }

  private static Result webhook(long seed, int events) throws Exception {
    byte[][] bodies = new byte[events][];
    String[] signatures = new String[events];
    for (int i = 0; i < events; i++) {
      bodies[i] = Payloads.envelope(Payloads.eventUuid(seed, i));
      signatures[i] = TestSigner.sign(SECRET, bodies[i]);
    }
    CountDownLatch done = new CountDownLatch(events);
    WebhookConsumer consumer = consumer(done);
    try (WebhookServer server = WebhookServer.builder(consumer).port(0).build().start()) {
      URI uri = URI.create("http://127.0.0.1:" + server.port() + "/webhooks");
      HttpClient http =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(Duration.ofSeconds(5))
              .build();
      Semaphore inFlight = new Semaphore(16);
      AtomicInteger failed = new AtomicInteger();
      AtomicLong answered = new AtomicLong();
      long cpu0 = cpu();
      long t0 = System.nanoTime();
      for (int i = 0; i < events; i++) {
        inFlight.acquire();
        http.sendAsync(
                HttpRequest.newBuilder(uri)
                    .header("x-service-webhooks-signature", signatures[i])
                    .POST(HttpRequest.BodyPublishers.ofByteArray(bodies[i]))
                    .build(),
                HttpResponse.BodyHandlers.discarding())
            .whenComplete(
                (r, e) -> {
                  if (e != null || r.statusCode() != 200) {
                    failed.incrementAndGet();
                  }
                  answered.incrementAndGet();
                  inFlight.release();
                });
      }
      inFlight.acquire(16);
      if (!done.await(1, TimeUnit.MINUTES) || failed.get() > 0) {
        throw new IllegalStateException("webhook: " + failed.get() + " deliveries failed");
      }
      return new Result(events, System.nanoTime() - t0, cpu() - cpu0);
    }
  }
}
