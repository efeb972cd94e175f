package io.servicehooks.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Turns the raw measurements of {@code benchmarks/load.sh} (a TSV, one line per wrk measurement)
 * into the markdown table: the median over rounds of requests/s, p50 and p99 for every server,
 * workload and connection count, then the headline ratios against their targets.
 *
 * <p>{@code java -cp benchmarks.jar io.servicehooks.benchmarks.LoadReport raw.tsv [title lines...]}
 */
public final class LoadReport {

  /** One wrk measurement. */
  record Row(
      int round,
      String server,
      String workload,
      int connections,
      double rps,
      double p50Us,
      double p99Us,
      long errors,
      long wrapped,
      double cpuUs,
      double storeCpuUs,
      double jitUs,
      double coreStealPct) {}

  private LoadReport() {}

  public static void main(String[] args) throws IOException {
    List<Row> rows = new ArrayList<>();
    for (String line : Files.readAllLines(Path.of(args[0]))) {
      if (line.isBlank() || line.startsWith("round")) {
        continue;
      }
      String[] f = line.split("\t");
      rows.add(
          new Row(
              Integer.parseInt(f[0]),
              f[1],
              f[2],
              Integer.parseInt(f[3]),
              Double.parseDouble(f[4]),
              Double.parseDouble(f[5]),
              Double.parseDouble(f[6]),
              Long.parseLong(f[7]),
              Long.parseLong(f[8]),
              f.length > 9 ? number(f[9]) : Double.NaN,
              f.length > 10 ? number(f[10]) : Double.NaN,
              f.length > 12 ? number(f[12]) : Double.NaN,
              f.length > 14 ? number(f[14]) : Double.NaN));
    }
    StringBuilder out = new StringBuilder();
    for (int i = 1; i < args.length; i++) {
      out.append(args[i]).append('\n');
    }
    Map<String, Cell> cells = new LinkedHashMap<>();
    for (Row r : rows) {
      cells
          .computeIfAbsent(
              r.workload() + "|" + r.connections() + "|" + r.server(),
              k -> new Cell(r.server(), r.workload(), r.connections()))
          .add(r);
    }
    out.append(
        "\n| workload | conns | server | req/s (median) | server CPU µs/req (median) | store CPU µs/req | p50 ms | p99 ms | rounds | req/s per round | CPU µs/req per round | of it JIT, per round | server core stolen, % per round | errors | pool wrapped |\n");
    out.append("|---|---:|---|---:|---:|---:|---:|---:|---:|---|---|---|---|---:|---:|\n");
    for (Cell c : cells.values()) {
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %s | %,.0f | %s | %s | %.2f | %.2f | %d | %s | %s | %s | %s | %d | %s |%n",
              c.workload,
              c.connections,
              label(c.server),
              c.rps(),
              oneDecimal(c.cpu()),
              oneDecimal(c.storeCpu()),
              c.p50() / 1000,
              c.p99() / 1000,
              c.rows.size(),
              c.perRound(),
              c.perRound(Row::cpuUs),
              c.perRound(Row::jitUs),
              c.perRound(Row::coreStealPct),
              c.errors(),
              c.wrapped() > 0 ? "yes" : "no"));
    }
    out.append("\nHeadline ratios (medians; `new` workload, 64 connections unless said):\n\n");
    out.append("| ratio | value | target |\n|---|---:|---|\n");
    ratio(out, cells, "(d) inline / (b) req/s", "new", "d-inline", "b", false, ">= 1.0");
    ratio(
        out,
        cells,
        "(d) worker, no-op listener handed off / (b) req/s",
        "new",
        "d-noop",
        "b",
        false,
        ">= 1.2");
    ratio(
        out,
        cells,
        "(d) worker, no-op listener handed off / (c) req/s",
        "new",
        "d-noop",
        "c",
        false,
        ">= 1.8");
    ratio(out, cells, "(d) inline / (c) req/s", "new", "d-inline", "c", false, "");
    ratio(out, cells, "(e) / (c) req/s", "new", "e", "c", false, ">= 0.95");
    ratio(
        out, cells, "(d) inline / (b) req/s, 16 connections", "new|16", "d-inline", "b", false, "");
    ratio(
        out,
        cells,
        "(d) worker, handed off / (b) req/s, 16 connections",
        "new|16",
        "d-noop",
        "b",
        false,
        "");
    ratio(out, cells, "(b) / (a) req/s", "new", "b", "a", false, "(reference ~0.52)");
    ratio(
        out,
        cells,
        "(d) worker, handed off / (a) req/s",
        "new",
        "d-noop",
        "a",
        false,
        "(reference ~0.43)");
    ratio(out, cells, "CRC (d) / (a) req/s", "crc", "d-worker", "a", false, ">= 0.95");
    ratio(out, cells, "p99 (d) inline / (b)", "new", "d-inline", "b", true, "<= 1.2");
    ratio(out, cells, "p99 (d) worker, handed off / (b)", "new", "d-noop", "b", true, "<= 1.2");
    ratio(out, cells, "p99 (d) inline / (b), 16 connections", "new|16", "d-inline", "b", true, "");
    ratio(out, cells, "10% dup: (d) inline / (b) req/s", "dup10", "d-inline", "b", false, "");
    ratio(
        out,
        cells,
        "10% dup: (d) worker, handed off / (b) req/s",
        "dup10",
        "d-noop",
        "b",
        false,
        "");
    ratio(out, cells, "d-redis / d-noop req/s", "new", "d-redis", "d-noop", false, ">= 0.6");
    ratio(out, cells, "10% dup: d-redis / d-noop req/s", "dup10", "d-redis", "d-noop", false, "");
    ratio(out, cells, "p99 d-redis / d-noop", "new", "d-redis", "d-noop", true, "");
    ratio(
        out,
        cells,
        "d-worker-redis / d-worker req/s (Redis against in memory)",
        "new",
        "d-worker-redis",
        "d-worker",
        false,
        ">= 0.6");
    ratio(
        out,
        cells,
        "d-worker-redis-prev / d-worker req/s (the earlier build)",
        "new",
        "d-worker-redis-prev",
        "d-worker",
        false,
        ">= 0.6");
    ratio(
        out,
        cells,
        "d-worker-redis / b-redis req/s",
        "new",
        "d-worker-redis",
        "b-redis",
        false,
        "");
    ratio(
        out,
        cells,
        "d-worker-durable / b-durable req/s",
        "new",
        "d-worker-durable",
        "b-durable",
        false,
        ">= 1.5");
    ratio(out, cells, "d-durable / b-durable req/s", "new", "d-durable", "b-durable", false, "");
    ratio(
        out,
        cells,
        "d-kafka / b-kafka req/s (the edge against a hand-written one)",
        "new",
        "d-kafka",
        "b-kafka",
        false,
        ">= 1.0");
    ratio(out, cells, "p99 d-kafka / b-kafka", "new", "d-kafka", "b-kafka", true, "");
    ratio(
        out,
        cells,
        "d-kafka / d-worker req/s (Kafka against in memory)",
        "new",
        "d-kafka",
        "d-worker",
        false,
        "");
    cpu(out, cells, "d-kafka", "d-worker");
    cpu(out, cells, "b-kafka", "d-worker");
    System.out.print(out);
  }

  private static void ratio(
      StringBuilder out,
      Map<String, Cell> cells,
      String name,
      String workload,
      String top,
      String bottom,
      boolean p99,
      String target) {
    String at =
        workload.contains("|") ? workload : workload + "|64"; // "new|16" picks 16 connections
    Cell t = cells.get(at + "|" + top);
    Cell b = cells.get(at + "|" + bottom);
    String value;
    if (t == null || b == null) {
      value = "n/a";
    } else {
      double v = p99 ? t.p99() / b.p99() : t.rps() / b.rps();
      String check =
          target.startsWith(">=")
              ? (v >= Double.parseDouble(target.substring(3)) ? " ✓" : " ✗")
              : target.startsWith("<=")
                  ? (v <= Double.parseDouble(target.substring(3)) ? " ✓" : " ✗")
                  : "";
      value = String.format(Locale.ROOT, "%.2f%s", v, check);
      // The same ratio round by round (each round measures both servers, alternating): its spread.
      StringBuilder rounds = new StringBuilder();
      double lo = Double.MAX_VALUE;
      double hi = -Double.MAX_VALUE;
      for (Row tr : t.rows) {
        for (Row br : b.rows) {
          if (br.round() == tr.round()) {
            double r = p99 ? tr.p99Us() / br.p99Us() : tr.rps() / br.rps();
            lo = Math.min(lo, r);
            hi = Math.max(hi, r);
            rounds.append(rounds.length() == 0 ? "" : ", ").append(fmt2(r));
          }
        }
      }
      if (t.rows.size() > 1 && rounds.length() > 0) {
        value += " (rounds " + rounds + "; " + fmt2(lo) + "-" + fmt2(hi) + ")";
      }
    }
    out.append("| ")
        .append(name)
        .append(" | ")
        .append(value)
        .append(" | ")
        .append(target)
        .append(" |\n");
  }

  /**
   * One line: the CPU per delivery of {@code top} beside {@code bottom}'s ({@code new}, 64
   * connections), the server's and the store's, and what {@code top} adds.
   */
  private static void cpu(StringBuilder out, Map<String, Cell> cells, String top, String bottom) {
    Cell t = cells.get("new|64|" + top);
    Cell b = cells.get("new|64|" + bottom);
    if (t == null || b == null) {
      return;
    }
    double store = Double.isNaN(t.storeCpu()) ? 0 : t.storeCpu();
    out.append(
        String.format(
            Locale.ROOT,
            "| CPU per delivery, %s beside %s | %s µs server + %s µs broker against %s µs (%s µs"
                + " more) | |%n",
            top,
            bottom,
            oneDecimal(t.cpu()),
            oneDecimal(t.storeCpu()),
            oneDecimal(b.cpu()),
            oneDecimal(t.cpu() + store - b.cpu())));
  }

  private static String fmt2(double v) {
    return String.format(Locale.ROOT, "%.2f", v);
  }

  private static String oneDecimal(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f", v);
  }

  private static double number(String s) {
    try {
      return Double.parseDouble(s);
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }

  private static String label(String server) {
    String base = server.contains("@") ? server.substring(0, server.indexOf('@')) : server;
    String name =
        switch (base) {
          case "a" -> "(a) raw Undertow";
          case "b" -> "(b) hand-written Undertow";
          case "c" -> "(c) hand-written Spring Boot";
          case "d-inline" -> "(d) consumer jar, inline";
          case "d-worker" -> "(d) consumer jar, worker";
          case "d-noop" -> "(d) consumer, worker, no-op listener";
          case "d-redis" -> "(d) consumer, worker, no-op listener, dedup on Redis";
          case "d-worker-redis" -> "(d) consumer jar, worker, dedup on Redis";
          case "d-worker-durable" -> "(d) consumer jar, worker, durable inbox";
          case "d-worker-redis-prev" ->
              "(d) consumer jar (PREV_CONSUMER_JAR), worker, dedup on Redis";
          case "d-worker-durable-prev" -> "(d) consumer jar (PREV_CONSUMER_JAR), durable inbox";
          case "b-redis" -> "(b-redis) hand-written Undertow + Lettuce SET NX / SET";
          case "b-durable" -> "(b-durable) hand-written Undertow + HikariCP INSERT";
          case "d-kafka" -> "(d) consumer jar, worker, Kafka hand-off";
          case "b-kafka" -> "(b-kafka) hand-written Undertow + producer.send().get()";
          case "e" -> "(e) spring-bot sample";
          default -> base;
        };
    return server.contains("@") ? name + " " + server.substring(server.indexOf('@')) : name;
  }

  /** The rounds of one server, workload and connection count. */
  private static final class Cell {
    final String server;
    final String workload;
    final int connections;
    final List<Row> rows = new ArrayList<>();

    Cell(String server, String workload, int connections) {
      this.server = server;
      this.workload = workload;
      this.connections = connections;
    }

    void add(Row r) {
      rows.add(r);
    }

    double rps() {
      return median(rows.stream().mapToDouble(Row::rps).toArray());
    }

    double p50() {
      return median(rows.stream().mapToDouble(Row::p50Us).toArray());
    }

    double p99() {
      return median(rows.stream().mapToDouble(Row::p99Us).toArray());
    }

    double cpu() {
      return median(rows.stream().mapToDouble(Row::cpuUs).filter(v -> !Double.isNaN(v)).toArray());
    }

    double storeCpu() {
      return median(
          rows.stream().mapToDouble(Row::storeCpuUs).filter(v -> !Double.isNaN(v)).toArray());
    }

    /** One figure per round, one decimal; "-" where the raw file has none (written before it). */
    String perRound(ToDoubleFunction<Row> figure) {
      StringBuilder s = new StringBuilder();
      for (Row r : rows) {
        s.append(s.length() == 0 ? "" : ", ").append(oneDecimal(figure.applyAsDouble(r)));
      }
      return s.toString();
    }

    long errors() {
      return rows.stream().mapToLong(Row::errors).sum();
    }

    long wrapped() {
      return rows.stream().mapToLong(Row::wrapped).sum();
    }

    String perRound() {
      StringBuilder s = new StringBuilder();
      for (Row r : rows) {
        s.append(s.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%,.0f", r.rps()));
      }
      return s.toString();
    }

    private static double median(double[] v) {
      java.util.Arrays.sort(v);
      int n = v.length;
      if (n == 0) {
        return Double.NaN;
      }
      return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
  }
}
