package io.servicehooks.benchmarks;

import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.TestSigner;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The soak's driver and sampler ({@code benchmarks/soak.sh} starts the servers): a steady rate of
 * deliveries to each pair of consumers, 10% of them a copy of an earlier event sent to the other
 * instance of the pair, and every 10 s one CSV line of RSS, heap after a full GC, threads and open
 * files per process, the inbox's pending rows and lag, Redis memory and the p99 answer time. At the
 * end it says whether the soak held: after warm-up, heap after GC and RSS grow less than 1 MiB per
 * 10 minutes (least-squares slope), the lag stays under 1 s and no answer is an error (a 500 {@code
 * listener_failed} from the 1% failing listeners is the expected answer, not an error).
 *
 * <p>Environment: {@code SOAK_TARGETS} (name=url,... in pairs: redis-a, redis-b, durable-a,
 * durable-b), {@code SOAK_PIDS} (name=pid,...), {@code SOAK_MINUTES}, {@code SOAK_WARMUP_MINUTES},
 * {@code SOAK_RATE} (deliveries per second per pair), {@code SOAK_CSV}, {@code
 * SERVICE_CONSUMER_SECRET}, {@code DATABASE_URL} and {@code DATABASE_SCHEMA} (the durable pair's
 * inbox), {@code SOAK_REDIS_PORT}.
 *
 * <p>One class on purpose: a single-run benchmark program whose driver, sampler and verdict share
 * the run's clock, counters and CSV columns; split, each part would only pass those around.
 */
public final class Soak {

  private static final Pattern USED = Pattern.compile("used (\\d+)K");
  private static final long SAMPLE_SECONDS = 10;

  private Soak() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> env = System.getenv();
    List<String[]> targets = pairs(env.get("SOAK_TARGETS"));
    List<String[]> pids = pairs(env.get("SOAK_PIDS"));
    double minutes = Double.parseDouble(env.getOrDefault("SOAK_MINUTES", "30"));
    double warmup = Double.parseDouble(env.getOrDefault("SOAK_WARMUP_MINUTES", "" + minutes / 3));
    int rate = Integer.parseInt(env.getOrDefault("SOAK_RATE", "50"));
    String secret = env.get("SERVICE_CONSUMER_SECRET");
    Path csv = Path.of(env.getOrDefault("SOAK_CSV", "benchmarks/results/soak.csv"));
    HttpClient client =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(2))
            .executor(Executors.newFixedThreadPool(8))
            .build();
    ConcurrentLinkedQueue<Long> window = new ConcurrentLinkedQueue<>();
    AtomicLong sent = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    AtomicLong listenerFailed = new AtomicLong();
    Random random = new Random(22);
    long[] seq = {0};
    ScheduledExecutorService feeder = Executors.newSingleThreadScheduledExecutor();
    feeder.scheduleAtFixedRate(
        () -> {
          for (int pair = 0; pair + 1 < targets.size(); pair += 2) {
            long n = seq[0]++;
            boolean copy = n > 100 && random.nextInt(10) == 0;
            long event = copy ? n - 1 - random.nextInt((int) Math.min(n - 1, 1000)) : n;
            String id = "soak-" + pair + "-" + event;
            String url = targets.get(pair + (int) ((n + (copy ? 1 : 0)) % 2))[1];
            String body =
                Events.activity(
                    id,
                    "post.create",
                    Map.of("user_id", "2244994945"),
                    null,
                    Map.of("id", String.valueOf(event), "text", "soak " + event));
            HttpRequest request =
                HttpRequest.newBuilder(URI.create(url))
                    .timeout(Duration.ofSeconds(10))
                    .header(TestSigner.SIGNATURE_HEADER, TestSigner.sign(secret, body))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                    .build();
            long began = System.nanoTime();
            sent.incrementAndGet();
            client
                .sendAsync(request, HttpResponse.BodyHandlers.ofString())
                .whenComplete(
                    (r, failure) -> {
                      window.add((System.nanoTime() - began) / 1_000);
                      if (failure != null) {
                        errors.incrementAndGet();
                      } else if (r.statusCode() == 500 && r.body().contains("listener_failed")) {
                        listenerFailed.incrementAndGet();
                      } else if (r.statusCode() != 200) {
                        errors.incrementAndGet();
                      }
                    });
          }
        },
        0,
        1_000_000L / rate,
        TimeUnit.MICROSECONDS);

    List<double[]> rows = new ArrayList<>();
    List<String> header = new ArrayList<>(List.of("seconds"));
    for (String[] p : pids) {
      header.addAll(
          List.of(
              p[0] + "_rss_mib",
              p[0] + "_heap_after_gc_mib",
              p[0] + "_threads",
              p[0] + "_open_files"));
    }
    header.addAll(
        List.of(
            "inbox_pending",
            "inbox_lag_ms",
            "redis_used_mib",
            "p99_ms",
            "sent",
            "errors",
            "listener_failed"));
    Files.createDirectories(csv.toAbsolutePath().getParent());
    long start = System.nanoTime();
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(csv))) {
      out.println(String.join(",", header));
      long end = start + (long) (minutes * 60e9);
      long next = start + SAMPLE_SECONDS * 1_000_000_000L;
      while (System.nanoTime() < end) {
        long wait = next - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait); // the sampling period itself
        }
        next += SAMPLE_SECONDS * 1_000_000_000L;
        List<Double> row = new ArrayList<>();
        row.add((System.nanoTime() - start) / 1e9);
        for (String[] p : pids) {
          row.add(statusKb(p[1], "VmRSS") / 1024.0);
          row.add(heapAfterGcKb(p[1]) / 1024.0);
          row.add((double) statusKb(p[1], "Threads"));
          String[] fds = Path.of("/proc", p[1], "fd").toFile().list();
          row.add(fds == null ? -1.0 : fds.length);
        }
        double[] inbox =
            inbox(env.get("DATABASE_URL"), env.getOrDefault("DATABASE_SCHEMA", "soak"));
        row.add(inbox[0]);
        row.add(inbox[1]);
        row.add(redisUsedBytes(env.getOrDefault("SOAK_REDIS_PORT", "6379")) / 1048576.0);
        List<Long> latencies = new ArrayList<>();
        Long l;
        while ((l = window.poll()) != null) {
          latencies.add(l);
        }
        latencies.sort(null);
        row.add(
            latencies.isEmpty()
                ? 0
                : latencies.get((int) Math.min(latencies.size() - 1, latencies.size() * 0.99))
                    / 1000.0);
        row.add((double) sent.get());
        row.add((double) errors.get());
        row.add((double) listenerFailed.get());
        double[] values = row.stream().mapToDouble(Double::doubleValue).toArray();
        rows.add(values);
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < values.length; i++) {
          line.append(i == 0 ? "" : ",").append(String.format("%.2f", values[i]));
        }
        out.println(line);
        out.flush();
        System.out.println(line);
      }
    }
    feeder.shutdownNow();
    System.exit(verdict(header, rows, warmup * 60, errors.get()) ? 0 : 1);
  }

  /** Prints the figures after warm-up and whether the soak held. */
  private static boolean verdict(
      List<String> header, List<double[]> rows, double warmupS, long errors) {
    List<double[]> after = rows.stream().filter(r -> r[0] >= warmupS).toList();
    boolean held = errors == 0;
    StringBuilder report = new StringBuilder();
    for (int c = 1; c < header.size(); c++) {
      String name = header.get(c);
      if (name.endsWith("_rss_mib") || name.endsWith("_heap_after_gc_mib")) {
        double perTenMinutes = slope(after, c) * 600;
        boolean ok = perTenMinutes < 1.0;
        held &= ok;
        report.append(
            String.format(
                "%s: %+.2f MiB per 10 min %s%n", name, perTenMinutes, ok ? "ok" : "GROWS"));
      }
    }
    int lagColumn = header.indexOf("inbox_lag_ms");
    double maxLag = after.stream().mapToDouble(r -> r[lagColumn]).max().orElse(0);
    double maxP99 = after.stream().mapToDouble(r -> r[header.indexOf("p99_ms")]).max().orElse(0);
    held &= maxLag < 1000;
    report.append(
        String.format(
            "inbox lag after warm-up: max %.0f ms %s%np99 answer after warm-up: max %.1f ms%n"
                + "error answers: %d%nsamples after warm-up: %d%nSOAK %s%n",
            maxLag,
            maxLag < 1000 ? "ok" : "TOO HIGH",
            maxP99,
            errors,
            after.size(),
            held ? "HELD" : "FAILED"));
    System.out.print(report);
    return held;
  }

  /** Least-squares slope of column {@code c} against seconds, per second. */
  private static double slope(List<double[]> rows, int c) {
    int n = rows.size();
    if (n < 2) {
      return 0;
    }
    double mx = rows.stream().mapToDouble(r -> r[0]).average().orElse(0);
    double my = rows.stream().mapToDouble(r -> r[c]).average().orElse(0);
    double num = 0;
    double den = 0;
    for (double[] r : rows) {
      num += (r[0] - mx) * (r[c] - my);
      den += (r[0] - mx) * (r[0] - mx);
    }
    return den == 0 ? 0 : num / den;
  }

  private static List<String[]> pairs(String spec) {
    return Arrays.stream(spec.split(",")).map(s -> s.split("=", 2)).toList();
  }

  private static long statusKb(String pid, String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", pid, "status"))) {
        if (line.startsWith(field + ":")) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException e) {
      return -1;
    }
    return -1;
  }

  /** Heap in use right after a full GC ({@code jcmd GC.run}, then {@code GC.heap_info}), in KiB. */
  private static long heapAfterGcKb(String pid) {
    try {
      run("jcmd", pid, "GC.run");
      long used = 0;
      for (String line : run("jcmd", pid, "GC.heap_info").split("\n")) {
        if (line.contains("Metaspace") || line.contains("class space")) {
          continue;
        }
        if (line.contains("generation") || line.contains("heap")) {
          Matcher m = USED.matcher(line);
          if (m.find()) {
            used += Long.parseLong(m.group(1));
          }
        }
      }
      return used;
    } catch (IOException e) {
      return -1;
    }
  }

  private static double[] inbox(String url, String schema) {
    if (url == null) {
      return new double[] {0, 0};
    }
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.setQueryTimeout(5);
      try (ResultSet r =
          s.executeQuery(
              "SELECT count(*) FILTER (WHERE status IN ('pending', 'running')),"
                  + " COALESCE(EXTRACT(EPOCH FROM now() - min(received_at) FILTER (WHERE status IN"
                  + " ('pending', 'running') AND attempts = 0)) * 1000, 0) FROM "
                  + schema
                  + ".webhook_inbox")) {
        r.next();
        return new double[] {r.getLong(1), r.getDouble(2)};
      }
    } catch (Exception e) {
      return new double[] {-1, -1};
    }
  }

  private static long redisUsedBytes(String port) {
    try {
      for (String line : run("redis-cli", "-p", port, "info", "memory").split("\r?\n")) {
        if (line.startsWith("used_memory:")) {
          return Long.parseLong(line.substring("used_memory:".length()).strip());
        }
      }
    } catch (IOException e) {
      return -1;
    }
    return -1;
  }

  private static String run(String... command) throws IOException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor(30, TimeUnit.SECONDS);
      return out;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }
}
