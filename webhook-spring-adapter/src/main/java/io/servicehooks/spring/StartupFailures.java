package io.servicehooks.spring;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.core.env.Environment;

/**
 * The start-up failures of the infrastructure the webhook needs (a database that does not answer, a
 * login it refuses, a missing table, a Redis that does not answer), turned into {@link
 * WebhookSetupException}s: one description naming the property to look at and one action, shown by
 * the {@link WebhookSetupFailureAnalyzer} instead of a hundred-line stack trace. Texts carry the
 * driver's first line and the URL without its query or user part, never a password.
 */
final class StartupFailures {

  static final String DATASOURCE_URL = "spring.datasource.url";
  static final String DATASOURCE_USERNAME = "spring.datasource.username";
  static final String CREATE_SCHEMA = "servicehooks.webhook.inbox.create-schema";
  static final String INBOX_MIGRATIONS =
      "db/migration/servicehooks/V1__inbox.sql and V2__inbox_toast.sql (in the webhook-postgres"
          + " jar; placeholders ${schema} and ${table})";

  private StartupFailures() {}

  /**
   * A failure of the database behind {@code what} (the inbox, the catch-up table).
   *
   * @param createProperty the property that makes start-up create the tables
   * @param ddl the SQL a DBA applies instead
   */
  static WebhookSetupException database(
      String what, String createProperty, String ddl, Throwable failure, Environment env) {
    SQLException sql = sqlCause(failure);
    String state = sql == null || sql.getSQLState() == null ? "" : sql.getSQLState();
    String message = firstLine(sql != null ? sql : failure);
    String url = safeUrl(env.getProperty(DATASOURCE_URL));
    String where = DATASOURCE_URL + (url == null ? "" : "=" + url);
    if (state.startsWith("28")) {
      String user = env.getProperty(DATASOURCE_USERNAME);
      return new WebhookSetupException(
          "The database at "
              + where
              + " refused the login of "
              + DATASOURCE_USERNAME
              + (user == null ? "" : "=" + user)
              + " for "
              + what
              + ": "
              + message,
          "Set "
              + DATASOURCE_USERNAME
              + " and spring.datasource.password to a role the database knows (a password in"
              + " the environment, SPRING_DATASOURCE_PASSWORD, never in a file).");
    }
    if (state.equals("42501")) {
      return new WebhookSetupException(
          "The role of "
              + DATASOURCE_USERNAME
              + " may not create "
              + what
              + " in the database at "
              + where
              + " ("
              + createProperty
              + "=true): "
              + message,
          "Have a DBA apply "
              + ddl
              + " and set "
              + createProperty
              + "=false, or grant that role CREATE on the database.");
    }
    if (state.equals("3D000")) {
      return new WebhookSetupException(
          "The database named in " + where + " does not exist (" + what + "): " + message,
          "Create that database, or correct the database name in " + DATASOURCE_URL + ".");
    }
    if (state.startsWith("08") || sql == null || state.isEmpty()) {
      return new WebhookSetupException(
          "Could not reach the database at " + where + " for " + what + ": " + message,
          "Start PostgreSQL there, or correct "
              + DATASOURCE_URL
              + " (host, port and database); keep spring.datasource.hikari.connection-timeout"
              + " below 5s so that a database that does not answer fails fast.");
    }
    return new WebhookSetupException(
        "The database at " + where + " failed " + what + " [" + state + "]: " + message,
        "See the database's log for SQL state "
            + state
            + "; "
            + createProperty
            + "=false with "
            + ddl
            + " applied by hand avoids start-up DDL.");
  }

  /**
   * With {@code create-schema=false} nothing creates the inbox table, and a missing one left the
   * application "Started" with every delivery answered 503: checked here, once, at start-up.
   */
  static void requireInboxTable(
      DataSource dataSource, String schema, String table, Environment env) {
    boolean exists;
    try (Connection c = dataSource.getConnection();
        PreparedStatement p = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
      p.setQueryTimeout(5);
      p.setString(1, schema + "." + table);
      try (ResultSet r = p.executeQuery()) {
        r.next();
        exists = r.getBoolean(1);
      }
    } catch (SQLException | RuntimeException e) {
      throw database("the inbox table check", CREATE_SCHEMA, INBOX_MIGRATIONS, e, env);
    }
    if (!exists) {
      String url = safeUrl(env.getProperty(DATASOURCE_URL));
      throw new WebhookSetupException(
          "Durable mode's inbox table "
              + schema
              + "."
              + table
              + " does not exist in the database at "
              + DATASOURCE_URL
              + (url == null ? "" : "=" + url)
              + ", and "
              + CREATE_SCHEMA
              + "=false, so nothing creates it: every delivery would be answered 503.",
          "Set "
              + CREATE_SCHEMA
              + "=true (the default) to create it at start-up, or have a DBA apply "
              + INBOX_MIGRATIONS
              + ".");
    }
  }

  /** The deepest {@link SQLException} with an SQL state in the chain, else the first one. */
  static SQLException sqlCause(Throwable failure) {
    SQLException first = null;
    SQLException withState = null;
    for (Throwable t = failure; t != null && t.getCause() != t; t = t.getCause()) {
      if (t instanceof SQLException sql) {
        first = first == null ? sql : first;
        if (sql.getSQLState() != null) {
          withState = sql;
        }
      }
    }
    return withState != null ? withState : first;
  }

  static String firstLine(Throwable t) {
    String message = t.getMessage();
    if (message == null || message.isBlank()) {
      return t.getClass().getSimpleName();
    }
    return message.strip().split("\\R", 2)[0];
  }

  /** The URL without its query (pgjdbc takes {@code password=} there) and user part. */
  static String safeUrl(String url) {
    if (url == null || url.isBlank()) {
      return null;
    }
    String out = url.strip();
    int query = out.indexOf('?');
    if (query >= 0) {
      out = out.substring(0, query);
    }
    int scheme = out.indexOf("://");
    int at = out.indexOf('@');
    if (scheme >= 0 && at > scheme) {
      out = out.substring(0, scheme + 3) + out.substring(at + 1);
    }
    return out;
  }
}
