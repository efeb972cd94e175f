package io.servicehooks.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the versioned SQL under {@code db/migration/servicehooks/} (Flyway's layout and
 * placeholder syntax), in one transaction under an advisory lock so instances starting together do
 * not race, and records each applied version in {@code <table>_schema_version} beside the inbox.
 */
final class Migrations {

  private static final Logger log = LoggerFactory.getLogger(PostgresInbox.class);

  /** Every version shipped, in order; a new one is appended, never edited. */
  static final List<String> SCRIPTS =
      List.of(
          "V1__inbox.sql",
          "V2__inbox_toast.sql",
          "V3__inbox_bodies.sql",
          "V4__inbox_traceparent.sql",
          "V5__inbox_owner.sql");

  static final String LOCATION = "db/migration/servicehooks/";

  private Migrations() {}

  static void apply(Connection c, Tables tables, int timeoutSeconds) throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false);
    try (Statement s = c.createStatement()) {
      s.setQueryTimeout(timeoutSeconds);
      s.execute(
          "SELECT pg_advisory_xact_lock(hashtext('servicehooks-migrate:"
              + tables.qualified
              + "'))");
      // CREATE SCHEMA IF NOT EXISTS needs CREATE on the database even when the schema exists:
      // a DBA-made schema must not need that.
      try (ResultSet r =
          s.executeQuery("SELECT to_regnamespace('" + tables.schema + "') IS NOT NULL")) {
        r.next();
        if (!r.getBoolean(1)) {
          s.execute("CREATE SCHEMA IF NOT EXISTS " + tables.schema);
        }
      }
      String versions = tables.qualified + "_schema_version";
      s.execute(
          "CREATE TABLE IF NOT EXISTS "
              + versions
              + " (version integer PRIMARY KEY, script text NOT NULL,"
              + " applied_at timestamptz NOT NULL DEFAULT now())");
      int current;
      try (ResultSet r = s.executeQuery("SELECT coalesce(max(version), 0) FROM " + versions)) {
        r.next();
        current = r.getInt(1);
      }
      for (String script : SCRIPTS) {
        int version = version(script);
        if (version <= current) {
          continue;
        }
        for (String statement : statements(load(script), tables)) {
          s.execute(statement);
        }
        try (PreparedStatement p =
            c.prepareStatement("INSERT INTO " + versions + " (version, script) VALUES (?, ?)")) {
          p.setInt(1, version);
          p.setString(2, script);
          p.executeUpdate();
        }
        log.info("Applied inbox schema {} to {}", script, tables.qualified);
      }
      c.commit();
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(autoCommit);
    }
  }

  static int version(String script) {
    return Integer.parseInt(script.substring(1, script.indexOf("__")));
  }

  static String load(String script) {
    try (InputStream in =
        Migrations.class.getClassLoader().getResourceAsStream(LOCATION + script)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + LOCATION + script);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The script's statements with the placeholders filled in. The scripts are ours: no dollar
   * quotes, no semicolons inside literals, comments only on lines of their own.
   */
  static List<String> statements(String sql, Tables tables) {
    StringBuilder text = new StringBuilder();
    for (String line : sql.split("\n")) {
      if (!line.strip().startsWith("--")) {
        text.append(line).append('\n');
      }
    }
    String filled =
        text.toString().replace("${schema}", tables.schema).replace("${table}", tables.table);
    List<String> out = new ArrayList<>();
    for (String part : filled.split(";")) {
      if (!part.isBlank()) {
        out.add(part.strip());
      }
    }
    return out;
  }
}
