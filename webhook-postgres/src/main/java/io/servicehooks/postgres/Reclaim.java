package io.servicehooks.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Crash recovery without waiting for the lease: an inbox given an {@link
 * PostgresInbox.Builder#instanceName} leases rows as {@code <name>#<incarnation>}, a new
 * incarnation per start. Only one process runs under a name at a time (the name is the pod's or the
 * service's, unique among live instances), so at start-up every row still leased to an older
 * incarnation of the same name belongs to a process that is dead: one statement makes those rows
 * due now, instead of their waiting for the lease (60 s by default) to end.
 */
final class Reclaim {

  private static final Logger log = LoggerFactory.getLogger(PostgresInbox.class);

  private Reclaim() {}

  /** The lease owner of this process: the name and a fresh incarnation. */
  static String owner(String name, String incarnation) {
    return name + "#" + incarnation;
  }

  /**
   * Makes due now the rows leased to an earlier incarnation of {@code name}.
   *
   * @return how many rows
   */
  static int previousIncarnations(PostgresInbox.Settings s, String name) throws SQLException {
    String prefix = name + "#";
    try (Connection c = s.dataSource.getConnection()) {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      try (PreparedStatement st =
          c.prepareStatement(
              "UPDATE "
                  + s.tables.qualified
                  + " SET status = 'pending', due_at = now(), leased_by = NULL"
                  + " WHERE status = 'running' AND left(leased_by, ?) = ? AND leased_by <> ?")) {
        st.setQueryTimeout(s.timeoutSeconds());
        st.setInt(1, prefix.length());
        st.setString(2, prefix);
        st.setString(3, s.instance);
        int rows = st.executeUpdate();
        if (rows > 0) {
          log.info(
              "Inbox instance {} took back {} rows leased to its previous incarnation (due now,"
                  + " not after the lease)",
              name,
              rows);
        }
        return rows;
      }
    }
  }
}
