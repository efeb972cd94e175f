package io.servicehooks.benchmarks;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * load.sh's database chores for the durable servers: {@code drop SCHEMA} after a cell (and a {@code
 * VACUUM} of the catalogs the drop leaves dead rows in), {@code inbox SCHEMA} prints one line
 * {@code pending=N lag_s=S done=N} of the consumer's inbox (read straight from the table, not from
 * the gauges, which refresh every 15 s), {@code watch SCHEMA [SECONDS]} prints such a line every
 * SECONDS (default 5) until killed, {@code checkpoint} runs {@code CHECKPOINT} (a superuser's, or
 * {@code pg_checkpoint}'s) so the next measured run does not pay for the WAL of the runs before it.
 * {@code create-db NAME} and {@code drop-db NAME} create and drop (forcing its sessions out) a
 * database of the harness's own, for a cell run on a fresh database; {@code pgstat [NAME]} prints
 * one line of PostgreSQL's cumulative counters ({@code pg_stat_bgwriter}, {@code pg_stat_wal}, and
 * {@code pg_stat_database} of NAME) for load.sh to take the difference of around a measured run.
 * The URL is {@code DATABASE_URL}.
 */
public final class BenchDatabase {

  private BenchDatabase() {}

  public static void main(String[] args) throws SQLException, InterruptedException {
    String url =
        System.getenv()
            .getOrDefault("DATABASE_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    Properties p = new Properties();
    p.setProperty("connectTimeout", "3");
    p.setProperty("loginTimeout", "3");
    boolean checkpoint = args[0].equals("checkpoint") || args[0].endsWith("-db");
    // A checkpoint writes every dirty buffer: seconds, not milliseconds.
    p.setProperty("socketTimeout", checkpoint || args[0].equals("drop") ? "70" : "8");
    String schema = args.length > 1 ? args[1] : "public";
    if (!schema.matches("[a-z_][a-z0-9_]*")) {
      throw new IllegalArgumentException("schema must be a plain identifier, was " + schema);
    }
    try (Connection c = DriverManager.getConnection(url, p);
        Statement s = c.createStatement()) {
      s.setQueryTimeout(checkpoint ? 60 : 5);
      switch (args[0]) {
        case "checkpoint" -> s.execute("CHECKPOINT");
        case "drop" -> {
          s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
          // Every cell creates and drops a schema: the dead catalog rows that leaves slowed the
          // durable cells round by round (benchmarks/RESULTS.md, session 19) until vacuumed.
          s.setQueryTimeout(60);
          s.execute(
              "VACUUM pg_catalog.pg_attribute, pg_catalog.pg_depend, pg_catalog.pg_class,"
                  + " pg_catalog.pg_index, pg_catalog.pg_type, pg_catalog.pg_attrdef,"
                  + " pg_catalog.pg_constraint");
        }
        case "inbox" -> System.out.println(inbox(s, schema));
        case "create-db" -> s.execute("CREATE DATABASE " + schema);
        case "drop-db" -> s.execute("DROP DATABASE IF EXISTS " + schema + " WITH (FORCE)");
        case "pgstat" -> System.out.println(pgstat(s, schema));
        case "watch" -> {
          // One JVM for the whole cell, a line every few seconds: starting a JVM per sample would
          // take CPU from the server being measured.
          long every = Long.parseLong(args.length > 2 ? args[2] : "5") * 1000;
          long t = 0;
          while (true) {
            try {
              System.out.println(
                  java.time.LocalTime.now().withNano(0) + " t+" + t + "s " + inbox(s, schema));
            } catch (SQLException e) {
              System.out.println("t+" + t + "s no sample: " + e.getMessage());
            }
            System.out.flush();
            Thread.sleep(every);
            t += every / 1000;
          }
        }
        default ->
            throw new IllegalArgumentException(
                "checkpoint, drop, inbox, watch, create-db, drop-db or pgstat, was " + args[0]);
      }
    }
  }

  /**
   * {@code key=value} pairs, all cumulative: checkpoints (timed, requested), buffers written by
   * checkpoints and by backends, WAL records, full-page images, bytes, writes and syncs, and the
   * database's commits, inserted/updated/deleted rows, and blocks read and hit.
   */
  private static String pgstat(Statement s, String database) throws SQLException {
    try (ResultSet r =
        s.executeQuery(
            "SELECT b.checkpoints_timed, b.checkpoints_req, b.buffers_checkpoint,"
                + " b.buffers_backend, b.buffers_backend_fsync, w.wal_records, w.wal_fpi,"
                + " w.wal_bytes, w.wal_write, w.wal_sync, coalesce(d.xact_commit, 0),"
                + " coalesce(d.tup_inserted, 0), coalesce(d.tup_updated, 0),"
                + " coalesce(d.tup_deleted, 0), coalesce(d.blks_read, 0), coalesce(d.blks_hit, 0)"
                + " FROM pg_stat_bgwriter b CROSS JOIN pg_stat_wal w LEFT JOIN pg_stat_database d"
                + " ON d.datname = '"
                + database
                + "'")) {
      r.next();
      String[] names = {
        "ckpt_timed",
        "ckpt_req",
        "buf_ckpt",
        "buf_backend",
        "backend_fsync",
        "wal_records",
        "wal_fpi",
        "wal_bytes",
        "wal_write",
        "wal_sync",
        "commits",
        "ins",
        "upd",
        "del",
        "blks_read",
        "blks_hit"
      };
      StringBuilder out = new StringBuilder();
      for (int i = 0; i < names.length; i++) {
        out.append(i == 0 ? "" : " ").append(names[i]).append('=').append(r.getLong(i + 1));
      }
      return out.toString();
    }
  }

  private static String inbox(Statement s, String schema) throws SQLException {
    try (ResultSet r =
        s.executeQuery(
            "SELECT count(*) FILTER (WHERE status IN ('pending','running')),"
                + " coalesce(extract(epoch FROM now() - min(received_at) FILTER (WHERE status"
                + " IN ('pending','running'))), 0), count(*) FILTER (WHERE status = 'done')"
                + " FROM "
                + schema
                + ".webhook_inbox")) {
      r.next();
      return String.format(
          "pending=%d lag_s=%.3f done=%d", r.getLong(1), r.getDouble(2), r.getLong(3));
    }
  }
}
