package io.servicehooks.postgres;

import io.servicehooks.core.PayloadFamily;
import io.servicehooks.core.StoredEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The poller's statement: takes due rows with {@code FOR UPDATE SKIP LOCKED}, leasing them to this
 * instance, and turns each back into an event; a row that cannot be one becomes a dead letter.
 */
final class DueRows {

  private static final Logger log = LoggerFactory.getLogger(PostgresInbox.class);

  private final PostgresInbox.Settings s;
  private final BodyCache bodies;
  private final Outage marking;

  DueRows(PostgresInbox.Settings s, Outage marking) {
    this.s = s;
    this.marking = marking;
    this.bodies = new BodyCache(s.tables, s.timeoutSeconds());
  }

  /**
   * Takes up to {@code limit} due rows. Each row is turned back into an event on its own: one that
   * cannot be (a family this version does not know, its batch body gone) becomes a dead letter with
   * the reason, and the rows taken with it run.
   */
  List<Workers.Claimed> claim(int limit) throws SQLException {
    List<Workers.Claimed> rows = new ArrayList<>(limit);
    List<Unreadable> unreadable = new ArrayList<>();
    long leasedAt = System.nanoTime();
    try (Connection c = s.dataSource.getConnection()) {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      List<Taken> taken = new ArrayList<>(limit);
      try (PreparedStatement st = c.prepareStatement(s.tables.claim)) {
        st.setQueryTimeout(s.timeoutSeconds());
        st.setInt(1, limit);
        st.setString(2, s.instance);
        st.setLong(3, s.lease.toMillis());
        try (ResultSet r = st.executeQuery()) {
          while (r.next()) {
            String[] text = new String[Tables.EVENT_COLUMN_COUNT];
            for (int i = 0; i < text.length; i++) {
              text[i] = r.getString(3 + i);
            }
            long bodyId = r.getLong(3 + Tables.EVENT_COLUMN_COUNT);
            taken.add(new Taken(r.getLong(1), r.getInt(2), text, r.wasNull() ? null : bodyId));
          }
        }
      }
      Map<Long, String> bodies = this.bodies.resolve(c, taken);
      for (Taken t : taken) {
        try {
          rows.add(new Workers.Claimed(t.id(), t.attempts(), t.decode(bodies), false, leasedAt));
        } catch (RuntimeException e) {
          unreadable.add(new Unreadable(t.id(), t.attempts(), Workers.describe(e)));
        }
      }
      for (Unreadable u : unreadable) {
        deadLetter(c, u);
      }
    }
    return rows;
  }

  /** A taken row as read: its event columns and the batch body it points at, if any. */
  record Taken(long id, int attempts, String[] text, Long bodyId) {

    /** The event, or an exception saying why the row cannot be one. */
    StoredEvent decode(Map<Long, String> bodies) {
      String delivery = text[9];
      if (delivery == null && bodyId != null) {
        delivery = bodies.get(bodyId);
        if (delivery == null) {
          throw new IllegalStateException("its delivery body (id " + bodyId + ") is missing");
        }
      }
      PayloadFamily family;
      try {
        family = PayloadFamily.valueOf(String.valueOf(text[4]));
      } catch (IllegalArgumentException unknown) {
        throw new IllegalArgumentException(
            "family '" + text[4] + "' is not one this version knows");
      }
      return new StoredEvent(
          text[1], text[0], text[2], text[3], family, text[5], text[6], text[7], text[8], delivery,
          text[10]);
    }
  }

  private record Unreadable(long id, int attempts, String reason) {}

  private void deadLetter(Connection c, Unreadable u) {
    String error = "the row cannot be read as an event: " + u.reason();
    if (error.length() > Workers.MAX_ERROR_LENGTH) {
      error = error.substring(0, Workers.MAX_ERROR_LENGTH - 3) + "...";
    }
    try (PreparedStatement st = c.prepareStatement(s.tables.markUnreadable)) {
      st.setQueryTimeout(s.timeoutSeconds());
      st.setString(1, error);
      st.setLong(2, u.id());
      st.setInt(3, u.attempts());
      st.executeUpdate();
      s.meters.processed("dead", 0);
      log.error("Inbox row {} is a dead letter: {}", u.id(), error);
    } catch (SQLException | RuntimeException e) {
      // Still leased: due again when the lease ends, and tried again then.
      marking.failed(e);
    }
  }
}
