package io.servicehooks.postgres;

import io.servicehooks.core.InboxOutcome;
import io.servicehooks.core.StoredEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store step: one group of deliveries written in one transaction, {@code INSERT ... ON CONFLICT
 * (dedup_key) DO NOTHING RETURNING}, then each delivery's future completed with what happened to
 * each of its events. Rows go in in the order of their dedup keys, one order for every instance
 * (the insert takes them from its arrays in the arrays' order), so two instances storing the same
 * events never wait on each other.
 *
 * <p>Before the insert it reserves room with this instance's workers (never waiting); that many of
 * the group's rows are inserted already leased to this instance. The rest are inserted pending, for
 * the pollers of every instance. After the transaction it tells the workers, once, what became of
 * the reservation ({@link Workers#inserted} with the rows inserted leased, or {@link
 * Workers#notInserted}); what that means for their room is theirs to count.
 */
final class GroupInsert {

  /**
   * About how many characters of parameters one insert carries at most (4 Mi): a few times that in
   * the driver's buffers while it is sent, far below a small heap.
   */
  static final long MAX_STATEMENT_CHARS = 4L * 1024 * 1024;

  private static final Logger log = LoggerFactory.getLogger(PostgresInbox.class);

  private final PostgresInbox.Settings s;
  private final Workers workers;

  /**
   * Whether the server takes lz4 when the insert asks for it ({@link Tables#insertLz4}): null until
   * a group has asked. Two writers asking at once get the same answer.
   */
  private volatile Boolean lz4;

  GroupInsert(PostgresInbox.Settings s, Workers workers) {
    this.s = s;
    this.workers = workers;
  }

  /**
   * Stores the group and completes each delivery's future; throws, completing none, when the
   * transaction failed. The first group asks for lz4; a server that refuses the setting (SQL state
   * 42704 on PostgreSQL 13 and older, 22023 when built without lz4) has the group stored again
   * without asking, and is never asked again.
   */
  void insert(List<GroupCommitWriter.Pending> group) throws SQLException {
    Boolean known = lz4;
    try {
      insert(group, Boolean.FALSE.equals(known) ? s.tables.insert : s.tables.insertLz4);
      if (known == null) {
        lz4 = Boolean.TRUE;
      }
    } catch (SQLException e) {
      String state = String.valueOf(e.getSQLState());
      if (known != null || !(state.equals("42704") || state.equals("22023"))) {
        throw e;
      }
      lz4 = Boolean.FALSE;
      log.info(
          "PostgreSQL takes no lz4 for {} (SQL state {}): its JSON columns are compressed as the"
              + " server's default_toast_compression says",
          s.tables,
          state);
      insert(group, s.tables.insert);
    }
  }

  private void insert(List<GroupCommitWriter.Pending> group, String insert) throws SQLException {
    // A key twice in the group (two copies arriving together): the first is inserted, the others
    // are its duplicates, answered after the same commit.
    Map<String, StoredEvent> firsts = new HashMap<>();
    List<StoredEvent> rows = new ArrayList<>();
    // A delivery of several events keeps its body once (a batch body row); -1: in the row itself.
    List<String> bodies = new ArrayList<>();
    List<Integer> bodyOf = new ArrayList<>();
    for (GroupCommitWriter.Pending p : group) {
      int body = -1;
      String shared = p.events().size() > 1 ? p.events().get(0).deliveryJson() : null;
      for (StoredEvent e : p.events()) {
        if (firsts.putIfAbsent(e.dedupKey(), e) != null) {
          continue;
        }
        rows.add(e);
        if (shared != null && sameText(shared, e.deliveryJson())) {
          if (body < 0) {
            body = bodies.size();
            bodies.add(shared);
          }
          bodyOf.add(body);
        } else {
          bodyOf.add(-1);
        }
      }
    }
    int n = rows.size();
    int[] order = keyOrder(rows);
    List<int[]> chunks = chunks(rows, bodyOf, order);
    // The first `room` rows to arrive are leased to this instance at insert (the hot path).
    int room = workers.reserve(n);
    Set<String> inserted = new HashSet<>();
    Map<String, Long> hotIds = new HashMap<>();
    long leasedAt = System.nanoTime();
    try (Connection c = s.dataSource.getConnection()) {
      boolean oneStatement = chunks.size() == 1 && bodies.isEmpty();
      // One statement commits alone; bodies or several statements share one transaction, so the
      // delivery is stored whole or not at all.
      if (c.getAutoCommit() != oneStatement) {
        c.setAutoCommit(oneStatement);
      }
      try {
        Long[] bodyIds = insertBodies(c, bodies);
        leasedAt = System.nanoTime();
        for (int[] chunk : chunks) {
          insertChunk(
              c, insert, rows, bodyOf, order, bodyIds, chunk[0], chunk[1], room, inserted, hotIds);
        }
        if (bodyIds.length > 0) {
          try (PreparedStatement st = c.prepareStatement(s.tables.dropUnusedBodies)) {
            st.setQueryTimeout(s.timeoutSeconds());
            st.setArray(1, c.createArrayOf("bigint", bodyIds));
            st.executeUpdate();
          }
        }
        if (!oneStatement) {
          c.commit();
        }
      } catch (SQLException | RuntimeException | Error e) {
        if (!oneStatement) {
          rollbackQuietly(c);
        }
        throw e;
      }
    } catch (SQLException | RuntimeException | Error e) {
      // Leased rows of a statement that committed after all are due again when the lease ends.
      workers.notInserted(room);
      inserted.clear();
      throw e;
    }
    List<Workers.Claimed> hot = new ArrayList<>(hotIds.size());
    for (int i = 0; i < room; i++) {
      StoredEvent e = rows.get(i);
      Long id = hotIds.get(e.dedupKey());
      if (id != null) {
        hot.add(new Workers.Claimed(id, 1, e, true, leasedAt));
      }
    }
    // Duplicates were not inserted; pending rows are for the poller, which looks now.
    workers.inserted(room, hot, inserted.size() > hotIds.size());
    for (GroupCommitWriter.Pending p : group) {
      List<InboxOutcome> outcomes = new ArrayList<>(p.events().size());
      for (StoredEvent e : p.events()) {
        boolean mine = firsts.get(e.dedupKey()) == e && inserted.contains(e.dedupKey());
        outcomes.add(mine ? InboxOutcome.STORED : InboxOutcome.DUPLICATE);
      }
      p.done().complete(outcomes);
    }
  }

  /**
   * The rows' indexes in the order of their dedup keys: the order every instance inserts them in.
   * An insert waits on a key another transaction inserted and has not committed; two instances
   * storing the same events (a platform retry to the other instance) in their own arrival orders
   * would each wait on the other, and PostgreSQL would abort one of them as a deadlock. Inserting
   * in one order everywhere, across the statements of a group too, leaves only one waiting, on a
   * transaction that does not wait on it.
   */
  private static int[] keyOrder(List<StoredEvent> rows) {
    return IntStream.range(0, rows.size())
        .boxed()
        .sorted(Comparator.comparing(i -> rows.get(i).dedupKey()))
        .mapToInt(Integer::intValue)
        .toArray();
  }

  private static boolean sameText(String a, String b) {
    return a == b || a.equals(b);
  }

  /**
   * Splits the rows into statements of at most {@code maxBatchRows} rows and about {@link
   * #MAX_STATEMENT_CHARS} characters of parameters, so no delivery, however many events it carries,
   * makes one statement the driver must hold in memory all at once. {@code [from, to)} of {@code
   * order}.
   */
  private List<int[]> chunks(List<StoredEvent> rows, List<Integer> bodyOf, int[] order) {
    List<int[]> out = new ArrayList<>();
    int from = 0;
    long chars = 0;
    for (int i = 0; i < rows.size(); i++) {
      long size = chars(rows.get(order[i]), bodyOf.get(order[i]) >= 0);
      if (i > from && (i - from >= s.maxBatchRows || chars + size > MAX_STATEMENT_CHARS)) {
        out.add(new int[] {from, i});
        from = i;
        chars = 0;
      }
      chars += size;
    }
    if (from < rows.size() || out.isEmpty()) {
      out.add(new int[] {from, rows.size()});
    }
    return out;
  }

  private static long chars(StoredEvent e, boolean bodyApart) {
    long n = 64L + e.dedupKey().length() + e.id().length() + e.type().length();
    n += e.originalType().length() + length(e.forUserId()) + length(e.tag());
    n += length(e.filterJson()) + length(e.payloadJson());
    return bodyApart ? n : n + e.deliveryJson().length();
  }

  private static int length(String s) {
    return s == null ? 0 : s.length();
  }

  private Long[] insertBodies(Connection c, List<String> bodies) throws SQLException {
    Long[] ids = new Long[bodies.size()];
    if (ids.length == 0) {
      return ids;
    }
    try (PreparedStatement st = c.prepareStatement(s.tables.insertBody)) {
      st.setQueryTimeout(s.timeoutSeconds());
      for (int i = 0; i < ids.length; i++) {
        st.setString(1, bodies.get(i));
        try (ResultSet r = st.executeQuery()) {
          r.next();
          ids[i] = r.getLong(1);
        }
      }
    }
    return ids;
  }

  private void insertChunk(
      Connection c,
      String insert,
      List<StoredEvent> rows,
      List<Integer> bodyOf,
      int[] order,
      Long[] bodyIds,
      int from,
      int to,
      int room,
      Set<String> inserted,
      Map<String, Long> hotIds)
      throws SQLException {
    int n = to - from;
    String[][] columns = new String[Tables.EVENT_COLUMN_COUNT][n];
    Long[] bodyId = new Long[n];
    Boolean[] leased = new Boolean[n];
    for (int i = 0; i < n; i++) {
      int row = order[from + i];
      StoredEvent e = rows.get(row);
      int body = bodyOf.get(row);
      columns[0][i] = e.dedupKey();
      columns[1][i] = e.id();
      columns[2][i] = e.type();
      columns[3][i] = e.originalType();
      columns[4][i] = e.family().name();
      columns[5][i] = e.forUserId();
      columns[6][i] = e.tag();
      columns[7][i] = e.filterJson();
      columns[8][i] = e.payloadJson();
      columns[9][i] = body >= 0 ? null : e.deliveryJson();
      columns[10][i] = e.traceparent();
      bodyId[i] = body >= 0 ? bodyIds[body] : null;
      leased[i] = row < room;
    }
    try (PreparedStatement st = c.prepareStatement(insert)) {
      st.setQueryTimeout(s.timeoutSeconds());
      st.setString(1, s.instance);
      st.setLong(2, s.lease.toMillis());
      for (int col = 0; col < columns.length; col++) {
        st.setArray(col + 3, c.createArrayOf("text", columns[col]));
      }
      st.setArray(columns.length + 3, c.createArrayOf("bigint", bodyId));
      st.setArray(columns.length + 4, c.createArrayOf("boolean", leased));
      try (ResultSet r = st.executeQuery()) {
        while (r.next()) {
          String key = r.getString(2);
          inserted.add(key);
          if (r.getInt(3) > 0) {
            hotIds.put(key, r.getLong(1));
          }
        }
      }
    }
  }

  private static void rollbackQuietly(Connection c) {
    try {
      c.rollback();
    } catch (SQLException | RuntimeException ignored) {
      // the connection is broken; the pool discards it and the transaction is gone with it
    }
  }
}
