package io.servicehooks.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this process is alive as PostgreSQL sees it, and what becomes of the rows of processes
 * that are not.
 *
 * <p>Each inbox has an owner token, {@code <label>/<16 hex digits>} (the label is the {@link
 * PostgresInbox.Builder#instanceName} or {@code pid@host}), drawn once per process: every row it
 * leases, at insert or by the poller, carries it in {@code leased_by}. On one connection of its
 * own, taken from the DataSource and kept for the inbox's life, it holds a session-level advisory
 * lock on the token's 64-bit hash and records the token in {@code <table>_owner}. PostgreSQL
 * releases a session's locks when the session ends, and the session ends with the process: kill -9
 * or an out-of-memory kill closes the socket, and the server ends the backend at once. So an owner
 * whose lock no session holds is gone, and its rows may run elsewhere now instead of when their
 * lease ends. Every {@link #CHECK_INTERVAL}, the first time at start, this thread checks its own
 * session and runs {@link Orphans}: one statement that finds the recorded owners whose lock is
 * free, deletes them and makes their running rows due. The rule covers every row an owner holds:
 * the ones its workers run, and the ones leased at insert or taken by its poller that wait in its
 * memory (up to {@code writers * maxBatchRows} under load), which a dead process never runs.
 *
 * <p>States, written by this class alone ({@link #tick} on its thread, {@link #close}, {@link
 * #crash}):
 *
 * <ul>
 *   <li><b>none</b> (at start, and after a failure): no session. The inbox leases nothing: the
 *       poller takes no row and the writers store every row pending, since a row leased now would
 *       carry a token no session vouches for. A tick opens a session and takes the lock: then
 *       <b>held</b>. The key held by another session (a hash shared with a live owner's token, or a
 *       pooler that shares server sessions): stays none, logged, tried again. The owner table
 *       missing or not writable: <b>lease-only</b>.
 *   <li><b>held</b>: leasing allowed. Each tick checks that the session is still the one that took
 *       the lock (the same backend pid; a pooler in transaction mode would hand out another, and
 *       the lock would then vouch for no one), then sweeps; but not within {@link #RESTART_GRACE}
 *       of taking the lock again after losing a session, or of the server's start: a database
 *       restart ends every instance's session at once, and the first instance back must not take
 *       the rows of the others, alive and about to take their locks again. A failure drops the
 *       session (aborted, so a pool never hands it out again still holding the lock): none. If the
 *       server ended the session, other instances may take back the rows it held meanwhile; a done
 *       mark of such a row still lands unless another instance took it already, and then it runs
 *       twice, as after a lease that ended.
 *   <li><b>lease-only</b>: the schema predates the owner table (V5 not applied). Leasing allowed,
 *       no sweep: a dead owner's rows wait for their lease, as in earlier versions; one ERROR says
 *       so. It tries again every minute, so applying V5 ends it.
 *   <li><b>closed</b>: the lock released and the session given back; nothing is leased.
 * </ul>
 *
 * <p>A paused process (SIGSTOP, a frozen container, a long GC pause) keeps its socket, so its
 * session and its lock: none of its rows runs elsewhere while it lives, until their lease ends. The
 * lease is still what frees a row whose owner lives but whose listener never returns, and the rows
 * of an owner whose host vanished without closing its socket (power loss, a partition): the server
 * ends such a session once its TCP keep-alive probes go unanswered, which this session sets to
 * about 25 s, and the lease bounds the rest. It also covers instances of an earlier version, which
 * hold no lock.
 */
final class OwnerLock {

  private static final Logger log = LoggerFactory.getLogger(PostgresInbox.class);

  /** How often the session is checked and gone owners are looked for. */
  static final Duration CHECK_INTERVAL = Duration.ofSeconds(2);

  /**
   * How long an instance that just had to take its lock again, or that finds the server just
   * started, waits before it takes back anyone's rows. A database restart (or failover) ends every
   * instance's session at once; the live ones take their locks again within a check or two, and the
   * first one back must not take the others' rows meanwhile: they are still running them.
   */
  static final Duration RESTART_GRACE = Duration.ofSeconds(10);

  /**
   * How long a read on the lock's session may wait: longer than a short network cut (TCP delivers
   * the answer once the link is back, and the lock is kept), shorter than the lease.
   */
  private static final int NETWORK_TIMEOUT_MILLIS = 30_000;

  /**
   * Server-side TCP keep-alive for the lock's session (idle seconds, interval, probes): a host that
   * vanished without closing its socket loses its lock after about 25 s instead of the operating
   * system's two hours. Ignored on a Unix-domain socket.
   */
  private static final String KEEPALIVES =
      "SELECT set_config('tcp_keepalives_idle', '10', false),"
          + " set_config('tcp_keepalives_interval', '5', false),"
          + " set_config('tcp_keepalives_count', '3', false)";

  /** How often a lease-only inbox looks for the owner table again. */
  private static final long LEASE_ONLY_RETRY_NANOS = TimeUnit.MINUTES.toNanos(1);

  private enum State {
    NONE,
    HELD,
    LEASE_ONLY,
    CLOSED
  }

  private final PostgresInbox.Settings s;
  private final Orphans orphans;
  private final InboxHealth health;
  private final Outage outage =
      new Outage(
          "owner lock",
          "this instance leases no rows (they are stored pending and other instances run them),"
              + " and gone instances' rows wait for another instance or their lease");
  private volatile State state = State.NONE;
  private ScheduledExecutorService thread;
  private Runnable due = () -> {};
  private Connection session;
  private volatile int backendPid;
  private boolean refusedLogged;
  private boolean leaseOnlyLogged;
  private long leaseOnlySince;
  private boolean hadSession;
  private long sweepNotBefore = System.nanoTime();

  OwnerLock(PostgresInbox.Settings s, InboxHealth health) {
    this.s = s;
    this.health = health;
    this.orphans = new Orphans(s);
  }

  /**
   * Starts the thread; its first tick runs at once. {@code due} is told when rows became due (the
   * poller then looks at once).
   */
  void start(Runnable due) {
    this.due = due;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "servicehooks-inbox-owner");
              t.setDaemon(true);
              health.watch(t);
              return t;
            });
    thread.scheduleWithFixedDelay(this::tick, 0, CHECK_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Whether this instance may lease rows now: its lock is held (or the schema has no owners). */
  boolean mayLease() {
    State now = state;
    return now == State.HELD || now == State.LEASE_ONLY;
  }

  /** One check: the lock taken or checked, then the sweep. Never throws. */
  void tick() {
    try {
      if (state == State.CLOSED) {
        return;
      }
      boolean mayLeaseBefore = mayLease();
      if (state != State.HELD) {
        take();
      }
      long rows = 0;
      if (state == State.HELD) {
        if (!sameSession()) {
          return;
        }
        if (System.nanoTime() - sweepNotBefore >= 0) {
          rows = orphans.takeBack(session);
        }
      }
      if (rows > 0 || (!mayLeaseBefore && mayLease())) {
        due.run();
      }
      outage.worked();
    } catch (SQLException | RuntimeException e) {
      drop();
      outage.failed(e);
    } catch (Throwable unexpected) {
      // A task that throws is never run again by the timer: caught here, it runs next time.
      drop();
      health.failed("owner lock", unexpected);
    }
  }

  /** Opens a session, takes the lock and records the owner. */
  private void take() throws SQLException {
    if (state == State.LEASE_ONLY && System.nanoTime() - leaseOnlySince < LEASE_ONLY_RETRY_NANOS) {
      return;
    }
    Connection c = s.dataSource.getConnection();
    boolean kept = false;
    try {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      c.setNetworkTimeout(Runnable::run, NETWORK_TIMEOUT_MILLIS);
      try (Statement st = c.createStatement()) {
        st.setQueryTimeout(s.timeoutSeconds());
        st.execute(KEEPALIVES);
      }
      boolean held;
      int pid;
      double serverUpSeconds;
      try (PreparedStatement st = c.prepareStatement(s.tables.takeOwnerLock)) {
        st.setQueryTimeout(s.timeoutSeconds());
        st.setString(1, s.instance);
        st.setString(2, s.instance);
        try (ResultSet r = st.executeQuery()) {
          r.next();
          held = r.getBoolean(1);
          pid = r.getInt(2);
          serverUpSeconds = r.getDouble(3);
        }
      } catch (SQLException e) {
        if (ownersUnusable(e)) {
          // Refused before anything ran (a missing table or privilege is found when the
          // statement is planned): no lock was taken, the session goes back as it was.
          leaseOnly(e);
          kept = true;
          c.close();
          return;
        }
        throw e;
      }
      if (!held) {
        if (!refusedLogged) {
          refusedLogged = true;
          log.warn(
              "Inbox owner {}: another database session holds its lock key (a connection pooler"
                  + " in transaction mode? the inbox needs sessions of its own); it leases no rows"
                  + " until it gets the lock",
              Orphans.printable(s.instance));
        }
        return;
      }
      if (state == State.LEASE_ONLY || refusedLogged) {
        log.info("Inbox owner {} holds its lock", Orphans.printable(s.instance));
      }
      refusedLogged = false;
      leaseOnlyLogged = false;
      session = c;
      backendPid = pid;
      kept = true;
      // A fresh process takes back at once (its predecessor's rows are what it restarts for),
      // unless the server itself just started: then, as after a session of its own was lost,
      // the other live instances get the grace to take their locks again.
      long now = System.nanoTime();
      long graceNanos = RESTART_GRACE.toNanos();
      long serverUpNanos = (long) (Math.max(0, serverUpSeconds) * 1e9);
      if (hadSession) {
        sweepNotBefore = now + graceNanos;
      } else if (serverUpNanos < graceNanos) {
        sweepNotBefore = now + (graceNanos - serverUpNanos);
      }
      hadSession = true;
      if (state != State.CLOSED) {
        state = State.HELD;
      }
    } finally {
      if (!kept) {
        abort(c);
      }
    }
  }

  /** The owner table is missing or this role may not write it: the schema needs V5. */
  private static boolean ownersUnusable(SQLException e) {
    return "42P01".equals(e.getSQLState()) || "42501".equals(e.getSQLState());
  }

  private void leaseOnly(SQLException e) {
    if (!leaseOnlyLogged) {
      leaseOnlyLogged = true;
      log.error(
          "Inbox table {} cannot be used ({}): apply V5__inbox_owner.sql (or grant SELECT, INSERT,"
              + " DELETE on it). Until then a crashed instance's rows wait for their lease ({})"
              + " instead of running at once",
          s.tables.owners,
          Outage.describe(e),
          s.lease);
    }
    leaseOnlySince = System.nanoTime();
    if (state != State.CLOSED) {
      state = State.LEASE_ONLY;
    }
  }

  /**
   * Whether the session is still the one holding the lock. Another backend behind the same
   * connection means a pooler that shares server sessions: the lock then proves nothing, so it is
   * loud (ERROR, and {@link PostgresInbox#problem()} says so), and the session is dropped.
   */
  private boolean sameSession() throws SQLException {
    int pid;
    try (Statement st = session.createStatement()) {
      st.setQueryTimeout(s.timeoutSeconds());
      try (ResultSet r = st.executeQuery("SELECT pg_backend_pid()")) {
        r.next();
        pid = r.getInt(1);
      }
    }
    if (pid == backendPid) {
      return true;
    }
    health.failed(
        "owner lock",
        new IllegalStateException(
            "the owner lock's connection now reaches another database session (backend "
                + pid
                + ", not "
                + backendPid
                + "): a connection pooler in transaction mode? The inbox needs connections that"
                + " are sessions of their own"));
    drop();
    return false;
  }

  /** The session is given up: aborted, so its lock goes with it. */
  private void drop() {
    Connection c = session;
    session = null;
    if (state == State.HELD) {
      state = State.NONE;
      log.warn(
          "Inbox owner {} lost its lock's database session: it leases no new rows until it has"
              + " one again; rows it holds may be taken back and run by other instances",
          Orphans.printable(s.instance));
    }
    if (c != null) {
      abort(c);
    }
  }

  private static void abort(Connection c) {
    try {
      c.abort(Runnable::run);
    } catch (SQLException | RuntimeException ignored) {
      // closed below either way
    }
    try {
      c.close();
    } catch (SQLException | RuntimeException ignored) {
      // the session is gone with the socket
    }
  }

  /**
   * Stops the checks and releases the lock; the owner's row stays for the next sweep anywhere,
   * which makes due what this process left running (close has drained what it could).
   */
  void close() {
    if (thread == null) {
      state = State.CLOSED;
      return;
    }
    try {
      thread.execute(this::release);
    } catch (RejectedExecutionException alreadyClosed) {
      return;
    }
    thread.shutdown();
    try {
      if (!thread.awaitTermination(s.timeoutSeconds() + 1L, TimeUnit.SECONDS)) {
        thread.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      thread.shutdownNow();
    }
  }

  private void release() {
    state = State.CLOSED;
    Connection c = session;
    session = null;
    if (c == null) {
      return;
    }
    try (Statement st = c.createStatement()) {
      st.setQueryTimeout(s.timeoutSeconds());
      st.execute("SELECT pg_advisory_unlock_all()");
      c.close();
    } catch (SQLException | RuntimeException e) {
      abort(c);
    }
  }

  /**
   * Tests: as a stopped process: no more checks, nothing released. The session stays open, as a
   * paused process's does, until the test ends it ({@link #backendPid}).
   */
  void crash() {
    state = State.CLOSED;
    if (thread != null) {
      thread.shutdownNow();
    }
  }

  /** Tests: the backend pid of the lock's session, 0 before it is held. */
  int backendPid() {
    return backendPid;
  }
}
