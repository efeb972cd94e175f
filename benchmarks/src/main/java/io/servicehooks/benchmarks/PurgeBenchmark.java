package io.servicehooks.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.servicehooks.postgres.PostgresInbox;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Whether the inbox's retention purge keeps up with the insert rate. Two phases on a schema of its
 * own, against {@code DATABASE_URL} (default the local test database):
 *
 * <ol>
 *   <li><b>ceiling</b>: {@code BACKLOG} done rows (about 1.5 KB each, as a 1.5 KB delivery's row)
 *       older than the retention are preloaded, then {@code INSTANCES} inboxes purge them; the rows
 *       per second until none is left is the purge's ceiling.
 *   <li><b>steady</b>: done rows are inserted at {@code RATE} per second for {@code SECONDS}, each
 *       due for purging {@code RETENTION_S} seconds later, while the inboxes purge every {@code
 *       INTERVAL_S} seconds. It keeps up when the number of done rows stays near {@code RATE *
 *       (RETENTION_S + INTERVAL_S)} instead of growing.
 * </ol>
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.servicehooks.benchmarks.PurgeBenchmark
 * RATE=5000 SECONDS=120 BACKLOG=1000000 INSTANCES=2 java -cp ... PurgeBenchmark
 * </pre>
 *
 * The rows are inserted straight into the table (no HTTP, no listeners): what is measured is the
 * purge against a table growing at the given rate.
 */
public final class PurgeBenchmark {

  private PurgeBenchmark() {}

  public static void main(String[] args) throws Exception {
    String url =
        System.getenv()
            .getOrDefault("DATABASE_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    int rate = env("RATE", 5_000);
    int seconds = env("SECONDS", 120);
    int backlog = env("BACKLOG", 1_000_000);
    int instances = env("INSTANCES", 2);
    int retentionS = env("RETENTION_S", 10);
    int intervalS = env("INTERVAL_S", 10);
    String schema =
        "purge_bench_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    try (HikariDataSource pool = pool(url, 4 + 2 * instances)) {
      try (Connection c = pool.getConnection();
          Statement s = c.createStatement()) {
        s.execute("CREATE SCHEMA " + schema);
      }
      try {
        PostgresInbox.builder().dataSource(pool).schema(schema).createSchema(true).build().close();
        String table = schema + ".webhook_inbox";
        System.out.printf(
            "purge benchmark: schema %s, %d instance(s), backlog %,d, then %,d rows/s for %d s"
                + " (retention %d s, purge every %d s)%n",
            schema, instances, backlog, rate, seconds, retentionS, intervalS);

        // Phase 1: the ceiling.
        long t0 = System.nanoTime();
        for (int done = 0; done < backlog; done += 10_000) {
          insertDone(pool, table, Math.min(10_000, backlog - done), "now() - interval '1 day'");
        }
        vacuum(pool, table);
        System.out.printf(
            "  preloaded %,d rows in %.1f s%n", backlog, (System.nanoTime() - t0) / 1e9);
        List<PostgresInbox> inboxes =
            start(pool, schema, Duration.ofHours(1), Duration.ofSeconds(1), instances);
        long p0 = System.nanoTime();
        long left;
        do {
          Thread.sleep(500);
          left = count(pool, "SELECT count(*) FROM " + table + " WHERE status = 'done'");
        } while (left > 0);
        double ceilingSeconds = (System.nanoTime() - p0) / 1e9;
        inboxes.forEach(PostgresInbox::close);
        System.out.printf(
            "  ceiling: %,d rows purged in %.1f s by %d instance(s): %,.0f rows/s (includes up to"
                + " 1 s until the first run)%n",
            backlog, ceilingSeconds, instances, backlog / ceilingSeconds);

        // Phase 2: steady inserts.
        inboxes =
            start(
                pool,
                schema,
                Duration.ofSeconds(retentionS),
                Duration.ofSeconds(intervalS),
                instances);
        long start = System.nanoTime();
        long inserted = 0;
        long maxDone = 0;
        long nextReport = start;
        int perTick = Math.max(1, rate / 10);
        for (int tick = 0; tick < seconds * 10; tick++) {
          long due = start + tick * 100_000_000L;
          long wait = due - System.nanoTime();
          if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
          }
          insertDone(pool, table, perTick, "now()");
          inserted += perTick;
          if (System.nanoTime() >= nextReport) {
            long doneRows = count(pool, "SELECT count(*) FROM " + table + " WHERE status = 'done'");
            maxDone = Math.max(maxDone, doneRows);
            System.out.printf(
                "  t+%3.0fs inserted %,9d  done rows in table %,8d%n",
                (System.nanoTime() - start) / 1e9, inserted, doneRows);
            nextReport += 10_000_000_000L;
          }
        }
        double took = (System.nanoTime() - start) / 1e9;
        long finalDone = count(pool, "SELECT count(*) FROM " + table + " WHERE status = 'done'");
        inboxes.forEach(PostgresInbox::close);
        long bound = (long) rate * (retentionS + intervalS);
        System.out.printf(
            "  steady: %,d rows at %,.0f rows/s over %.0f s; done rows at most %,d, at the end %,d"
                + " (bound for keeping up: about %,d): %s%n",
            inserted,
            inserted / took,
            took,
            maxDone,
            finalDone,
            bound,
            maxDone <= bound * 1.5 ? "KEEPS UP" : "FALLS BEHIND");
      } finally {
        try (Connection c = pool.getConnection();
            Statement s = c.createStatement()) {
          s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
      }
    }
  }

  private static List<PostgresInbox> start(
      HikariDataSource pool, String schema, Duration retention, Duration interval, int n) {
    List<PostgresInbox> inboxes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      PostgresInbox inbox =
          PostgresInbox.builder()
              .dataSource(pool)
              .schema(schema)
              .retention(retention)
              .purgeInterval(interval)
              .workers(1)
              .writers(1)
              .build();
      inbox.start(event -> {});
      inboxes.add(inbox);
    }
    return inboxes;
  }

  /** {@code n} done rows with a 1.5 KB delivery and a 700-byte payload, done at {@code doneAt}. */
  private static void insertDone(HikariDataSource pool, String table, int n, String doneAt)
      throws SQLException {
    try (Connection c = pool.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "INSERT INTO "
                    + table
                    + " (dedup_key, event_id, event_type, original_type, family, filter_json,"
                    + " payload_json, delivery_json, status, attempts, done_at)"
                    + " SELECT 'e:' || g || ':' || md5(random()::text), 'ev' || g, 'post.create',"
                    + " 'post.create', 'ACTIVITY', '{\"user_id\":\"2244994945\"}',"
                    + " repeat(md5(random()::text), 22), repeat(md5(random()::text), 47), 'done', 1, "
                    + doneAt
                    + " FROM generate_series(1, ?) g")) {
      s.setQueryTimeout(30);
      s.setInt(1, n);
      s.executeUpdate();
    }
  }

  private static void vacuum(HikariDataSource pool, String table) throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute("VACUUM ANALYZE " + table);
    }
  }

  private static long count(HikariDataSource pool, String sql) throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery(sql)) {
      r.next();
      return r.getLong(1);
    }
  }

  private static HikariDataSource pool(String url, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(size);
    config.setConnectionTimeout(3_000);
    config.addDataSourceProperty("connectTimeout", "3");
    config.addDataSourceProperty("socketTimeout", "60");
    return new HikariDataSource(config);
  }

  private static int env(String name, int fallback) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? fallback : Integer.parseInt(v.strip());
  }
}
