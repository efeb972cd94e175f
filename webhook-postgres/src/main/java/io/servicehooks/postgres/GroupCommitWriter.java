package io.servicehooks.postgres;

import io.servicehooks.core.InboxOutcome;
import io.servicehooks.core.StoredEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit: writer threads take the deliveries waiting on one queue, a little more within the
 * commit window, and store them all with one {@code INSERT ... ON CONFLICT DO NOTHING RETURNING}
 * (one transaction). Each delivery's future completes after that commit, with what happened to each
 * of its events; a failed statement fails every delivery in it.
 *
 * <p>Before the insert a writer reserves room with this instance's workers (never waiting); that
 * many of the group's rows are inserted already leased to this instance and handed to the workers
 * from memory after the commit. The rest are inserted pending, for the pollers of every instance.
 * Room reserved for a row that turned out a duplicate, or for a failed statement, is given back.
 */
final class GroupCommitWriter {

  private static final Logger log = LoggerFactory.getLogger(PostgresInbox.class);

  /**
   * About how many characters of parameters one insert carries at most (4 Mi): a few times that in
   * the driver's buffers while it is sent, far below a small heap.
   */
  static final long MAX_STATEMENT_CHARS = 4L * 1024 * 1024;

  /** One delivery waiting to be stored. */
  private record Pending(List<StoredEvent> events, CompletableFuture<List<InboxOutcome>> done) {}

  private final PostgresInbox.Settings s;
  private final Workers workers;
  private final BlockingQueue<Pending> queue;
  private final List<Thread> threads = new ArrayList<>();
  private final Outage outage = new Outage("store");
  private final InboxHealth health;
  private volatile boolean closed;

  GroupCommitWriter(PostgresInbox.Settings s, Workers workers, InboxHealth health) {
    this.s = s;
    this.workers = workers;
    this.health = health;
    this.queue = new ArrayBlockingQueue<>(s.maxQueuedDeliveries);
    for (int i = 0; i < s.writers; i++) {
      Thread t = new Thread(this::run, "servicehooks-inbox-writer-" + (i + 1));
      t.setDaemon(true);
      threads.add(t);
      health.watch(t);
      t.start();
    }
  }

  CompletableFuture<List<InboxOutcome>> submit(List<StoredEvent> events) {
    CompletableFuture<List<InboxOutcome>> done = new CompletableFuture<>();
    if (closed) {
      done.completeExceptionally(new RejectedExecutionException("inbox is closed"));
      return done;
    }
    if (events.isEmpty()) {
      done.complete(List.of());
      return done;
    }
    if (!queue.offer(new Pending(List.copyOf(events), done))) {
      done.completeExceptionally(
          new RejectedExecutionException(
              "inbox store queue is full (" + s.maxQueuedDeliveries + " deliveries)"));
    }
    return done;
  }

  private void run() {
    long window = s.commitWindow.toNanos();
    List<Pending> group = new ArrayList<>();
    while (true) {
      try {
        Pending first = queue.poll(100, TimeUnit.MILLISECONDS);
        if (first == null) {
          if (closed) {
            return;
          }
          continue;
        }
        group.add(first);
        int rows = first.events().size();
        long deadline = System.nanoTime() + window;
        while (rows < s.maxBatchRows) {
          long left = deadline - System.nanoTime();
          Pending next = left > 0 ? queue.poll(left, TimeUnit.NANOSECONDS) : queue.poll();
          if (next == null) {
            break;
          }
          group.add(next);
          rows += next.events().size();
        }
        write(group);
      } catch (InterruptedException e) {
        // close() gave up waiting: what was taken still gets an answer.
        fail(group, e);
        return;
      } catch (Throwable unexpected) {
        // An OutOfMemoryError from a huge group, say: its deliveries are answered 503 (the
        // platform sends them again) and the writer goes on with the next.
        health.failed("writer", unexpected);
        try {
          fail(group, unexpected);
        } catch (Throwable ignored) {
          // the answers are abandoned; each delivery's own time-out answers it 503
        }
      } finally {
        group.clear();
      }
    }
  }

  /**
   * Stores the group in one statement; on a data error, each delivery alone, so one bad row fails
   * only its own.
   */
  private void write(List<Pending> group) {
    try {
      insert(group);
      outage.worked();
    } catch (SQLException e) {
      String state = e.getSQLState();
      boolean dataError = state != null && (state.startsWith("22") || state.startsWith("23"));
      if (dataError && group.size() > 1) {
        for (Pending p : group) {
          write(List.of(p));
        }
        return;
      }
      if (dataError) {
        log.error("Inbox refused a delivery's events: {}", Outage.describe(e));
      } else {
        outage.failed(e);
      }
      fail(group, e);
    }
  }

  private void insert(List<Pending> group) throws SQLException {
    // A key twice in the group (two copies arriving together): the first is inserted, the others
    // are its duplicates, answered after the same commit.
    Map<String, StoredEvent> firsts = new HashMap<>();
    List<StoredEvent> rows = new ArrayList<>();
    // A delivery of several events keeps its body once (a batch body row); -1: in the row itself.
    List<String> bodies = new ArrayList<>();
    List<Integer> bodyOf = new ArrayList<>();
    for (Pending p : group) {
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
    List<int[]> chunks = chunks(rows, bodyOf);
    // The first `room` rows are leased to this instance at insert (the hot path).
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
          insertChunk(c, rows, bodyOf, bodyIds, chunk[0], chunk[1], room, inserted, hotIds);
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
      workers.release(room);
      inserted.clear();
      throw e;
    }
    // Duplicates were not inserted: their room goes back.
    workers.release(room - hotIds.size());
    if (!hotIds.isEmpty()) {
      List<Workers.Claimed> hot = new ArrayList<>(hotIds.size());
      for (int i = 0; i < room; i++) {
        StoredEvent e = rows.get(i);
        Long id = hotIds.get(e.dedupKey());
        if (id != null) {
          hot.add(new Workers.Claimed(id, 1, e, true, leasedAt));
        }
      }
      workers.handOff(hot);
    }
    for (Pending p : group) {
      List<InboxOutcome> outcomes = new ArrayList<>(p.events().size());
      for (StoredEvent e : p.events()) {
        boolean mine = firsts.get(e.dedupKey()) == e && inserted.contains(e.dedupKey());
        outcomes.add(mine ? InboxOutcome.STORED : InboxOutcome.DUPLICATE);
      }
      p.done().complete(outcomes);
    }
    if (inserted.size() > hotIds.size()) {
      workers.wake(); // pending rows: the poller looks now
    }
  }

  private static boolean sameText(String a, String b) {
    return a == b || a.equals(b);
  }

  /**
   * Splits the rows into statements of at most {@code maxBatchRows} rows and about {@link
   * #MAX_STATEMENT_CHARS} characters of parameters, so no delivery, however many events it carries,
   * makes one statement the driver must hold in memory all at once. {@code [from, to)}.
   */
  private List<int[]> chunks(List<StoredEvent> rows, List<Integer> bodyOf) {
    List<int[]> out = new ArrayList<>();
    int from = 0;
    long chars = 0;
    for (int i = 0; i < rows.size(); i++) {
      long size = chars(rows.get(i), bodyOf.get(i) >= 0);
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
      List<StoredEvent> rows,
      List<Integer> bodyOf,
      Long[] bodyIds,
      int from,
      int to,
      int room,
      Set<String> inserted,
      Map<String, Long> hotIds)
      throws SQLException {
    int n = to - from;
    String[][] columns = new String[10][n];
    Long[] bodyId = new Long[n];
    Boolean[] leased = new Boolean[n];
    for (int i = 0; i < n; i++) {
      StoredEvent e = rows.get(from + i);
      int body = bodyOf.get(from + i);
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
      bodyId[i] = body >= 0 ? bodyIds[body] : null;
      leased[i] = from + i < room;
    }
    try (PreparedStatement st = c.prepareStatement(s.tables.insert)) {
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

  private static void fail(List<Pending> group, Throwable cause) {
    for (Pending p : group) {
      p.done().completeExceptionally(cause);
    }
  }

  /** Refuses new stores; the writers store what is queued, until {@code deadline} at most. */
  void close(long deadline) {
    closed = true;
    for (Thread t : threads) {
      long left = deadline - System.nanoTime();
      try {
        if (left > 0) {
          TimeUnit.NANOSECONDS.timedJoin(t, left);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (t.isAlive()) {
        t.interrupt();
      }
    }
    List<Pending> left = new ArrayList<>();
    queue.drainTo(left);
    fail(left, new RejectedExecutionException("inbox closed before this delivery was stored"));
  }
}
