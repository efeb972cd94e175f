package io.servicehooks.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes back the rows of lease owners that are gone, with one statement ({@link Tables#takeBack}):
 * the recorded owners whose advisory lock no session holds are deleted, and the rows they were
 * running become due at once. Each gone owner is deleted by the statement that finds it, so it is
 * found once in the whole fleet, and logged once: one WARN naming it and how many rows it held.
 */
final class Orphans {

  private static final Logger log = LoggerFactory.getLogger(PostgresInbox.class);

  /** Longest owner token logged; a label comes from configuration, not from the code. */
  private static final int MAX_LOGGED = 300;

  private final PostgresInbox.Settings s;

  Orphans(PostgresInbox.Settings s) {
    this.s = s;
  }

  /**
   * Runs the statement on {@code c}, the session that holds this process's own lock (its own token
   * is left out: a session's locks are re-entrant for itself).
   *
   * @return how many rows became due
   */
  long takeBack(Connection c) throws SQLException {
    long total = 0;
    try (PreparedStatement st = c.prepareStatement(s.tables.takeBack)) {
      st.setQueryTimeout(s.timeoutSeconds());
      st.setString(1, s.instance);
      st.setLong(2, s.lease.toMillis());
      try (ResultSet r = st.executeQuery()) {
        while (r.next()) {
          String owner = printable(r.getString(1));
          long rows = r.getLong(2);
          total += rows;
          if (rows > 0) {
            log.warn(
                "Inbox owner {} is gone (its database session ended: the process was killed,"
                    + " crashed or cut off): the {} rows it held are due now, not when their lease"
                    + " ends; one that was running when it died runs again",
                owner,
                rows);
          } else {
            log.info("Inbox owner {} is gone; it held no running rows", owner);
          }
        }
      }
    }
    return total;
  }

  /** Control characters replaced, cut to {@link #MAX_LOGGED}. */
  static String printable(String text) {
    String clean = String.valueOf(text).replaceAll("\\p{Cntrl}", "?");
    return clean.length() <= MAX_LOGGED ? clean : clean.substring(0, MAX_LOGGED - 3) + "...";
  }
}
