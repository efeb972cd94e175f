package io.servicehooks.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.servicehooks.core.StoredEvent;
import io.servicehooks.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Crash recovery with no setting: an inbox whose process is gone (its database sessions ended) has
 * its rows, running and waiting in its memory, taken back at once by another instance or by the
 * restarted one, not when their 60 s lease ends; a process that is only paused keeps its rows. Each
 * "process" has a pool of its own, named, so a kill ends all of its sessions at once.
 */
final class CrashRecoveryTest {

  private static final Duration LEASE = Duration.ofSeconds(60);

  private TestDatabase.Schema schema;
  private final List<HikariDataSource> pools = new ArrayList<>();
  private final List<PostgresInbox> inboxes = new ArrayList<>();
  private final List<CountDownLatch> blocked = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    schema = TestDatabase.schema();
  }

  @AfterEach
  void tearDown() throws Exception {
    blocked.forEach(CountDownLatch::countDown);
    for (PostgresInbox inbox : inboxes) {
      inbox.close();
    }
    for (HikariDataSource pool : pools) {
      pool.close();
    }
    schema.close();
  }

  /** A pool whose sessions carry {@code process} as their application name. */
  private HikariDataSource pool(String process) {
    String url = TestDatabase.url();
    HikariDataSource pool =
        TestDatabase.pool(url + (url.contains("?") ? "&" : "?") + "ApplicationName=" + process, 8);
    pools.add(pool);
    return pool;
  }

  private PostgresInbox.Builder builder(String process) {
    return PostgresInbox.builder()
        .dataSource(pool(process))
        .schema(schema.name)
        .createSchema(true)
        .workers(1)
        .lease(LEASE)
        .pollInterval(Duration.ofMillis(20))
        .maxPollInterval(Duration.ofMillis(100))
        .drainTimeout(Duration.ofSeconds(1));
  }

  private PostgresInbox started(PostgresInbox inbox) {
    inboxes.add(inbox);
    return inbox;
  }

  /** Ends every session of {@code process}, as the server does when the process is killed. */
  private static void kill(String process) throws Exception {
    try (Connection c = TestDatabase.connect();
        Statement s = c.createStatement()) {
      s.execute(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '"
              + process
              + "'");
    }
  }

  private long count(String where) throws Exception {
    return schema.number("SELECT count(*) FROM " + schema.table() + " WHERE " + where);
  }

  private static void store(PostgresInbox inbox, String... ids) throws Exception {
    List<StoredEvent> events = new ArrayList<>();
    for (String id : ids) {
      events.add(Events.post(id));
    }
    inbox.store(events).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** What a stopped process holds: its owner token and the events of its running rows. */
  private record Held(String owner, List<String> ids) {}

  /**
   * Process "a" runs one listener that never returns and holds more rows waiting in its memory
   * (leased at insert and by its poller), then stops: every thread halted, nothing marked. Its
   * database sessions stay open until {@link #kill}: a paused process.
   */
  private Held stoppedHoldingRows() throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch never = new CountDownLatch(1);
    blocked.add(never);
    PostgresInbox a = started(builder("inbox-a").build());
    a.start(
        event -> {
          running.countDown();
          never.await();
        });
    // leased at insert only once its lock is held: until then rows are stored pending
    await().atMost(Duration.ofSeconds(10)).until(() -> a.ownerLock().mayLease());
    store(a, "busy");
    assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
    store(a, "w1", "w2", "w3", "w4", "w5");
    // the running one and the one leased at insert beside it, and what its poller took
    await().atMost(Duration.ofSeconds(10)).until(() -> count("status = 'running'") >= 2);
    a.crash();
    String owner = text("SELECT leased_by FROM " + schema.table() + " WHERE event_id = 'busy'");
    List<String> ids = new ArrayList<>();
    try (Connection c = TestDatabase.connect();
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery(
                "SELECT event_id FROM "
                    + schema.table()
                    + " WHERE status = 'running' AND leased_by = '"
                    + owner
                    + "'")) {
      while (r.next()) {
        ids.add(r.getString(1));
      }
    }
    assertThat(ids).as("rows the stopped process holds").hasSizeGreaterThanOrEqualTo(2);
    return new Held(owner, ids);
  }

  private static String text(String sql) throws Exception {
    try (Connection c = TestDatabase.connect();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery(sql)) {
      r.next();
      return r.getString(1);
    }
  }

  private static void record(Map<String, AtomicInteger> ran, StoredEvent event) {
    ran.computeIfAbsent(event.id(), k -> new AtomicInteger()).incrementAndGet();
  }

  @Test
  void restart_withoutAnyName_runsTheKilledProcesssRowsAtOnce_notAfterTheLease() throws Exception {
    stoppedHoldingRows();
    kill("inbox-a");
    Map<String, AtomicInteger> ran = new ConcurrentHashMap<>();

    PostgresInbox restarted = started(builder("inbox-a2").build());
    long start = System.nanoTime();
    restarted.start(event -> record(ran, event));

    // a 60 s lease: done well inside it means taken back, not expired
    await().atMost(Duration.ofSeconds(15)).until(() -> count("status = 'done'") == 6);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(LEASE.dividedBy(4));
    assertThat(ran).containsOnlyKeys("busy", "w1", "w2", "w3", "w4", "w5");
    assertThat(ran.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
  }

  @Test
  void twoInstances_oneKilled_theSurvivorTakesItsRowsWithinSeconds() throws Exception {
    Map<String, AtomicInteger> ran = new ConcurrentHashMap<>();
    PostgresInbox survivor = started(builder("inbox-b").build());
    survivor.start(event -> record(ran, event));
    stoppedHoldingRows();
    kill("inbox-a");
    long killed = System.nanoTime();

    await().atMost(Duration.ofSeconds(15)).until(() -> count("status = 'done'") == 6);
    assertThat(Duration.ofNanos(System.nanoTime() - killed)).isLessThan(LEASE.dividedBy(4));
    assertThat(ran).containsOnlyKeys("busy", "w1", "w2", "w3", "w4", "w5");
    assertThat(ran.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
  }

  @Test
  void pausedProcess_keepsItsRows_nothingRunsTwice() throws Exception {
    Map<String, AtomicInteger> ran = new ConcurrentHashMap<>();
    PostgresInbox other = started(builder("inbox-b").build());
    other.start(event -> record(ran, event));
    Held held = stoppedHoldingRows(); // stopped, sessions open: paused, not dead
    String stillHeld =
        "status = 'running' AND leased_by = '"
            + held.owner()
            + "' AND event_id IN ('"
            + String.join("', '", held.ids())
            + "')";

    // several of the other instance's checks (every 2 s) pass: the rows stay with their owner
    await()
        .during(Duration.ofSeconds(7))
        .atMost(Duration.ofSeconds(12))
        .until(
            () ->
                count(stillHeld) == held.ids().size()
                    && held.ids().stream().noneMatch(ran::containsKey));
  }

  @Test
  void sessionsEndedOneAfterTheOther_asInADatabaseRestart_liveInstancesKeepTheirRows()
      throws Exception {
    Map<String, AtomicInteger> ran = new ConcurrentHashMap<>();
    PostgresInbox other = started(builder("inbox-b").build());
    other.start(event -> record(ran, event));
    CountDownLatch never = new CountDownLatch(1);
    blocked.add(never);
    PostgresInbox a = started(builder("inbox-a").build());
    a.start(event -> never.await());
    await().atMost(Duration.ofSeconds(10)).until(() -> a.ownerLock().mayLease());
    store(a, "busy", "w1", "w2");
    await().atMost(Duration.ofSeconds(10)).until(() -> count("status = 'running'") >= 2);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> a.ownerLock().mayLease() && other.ownerLock().mayLease());
    String owner = text("SELECT leased_by FROM " + schema.table() + " WHERE event_id = 'busy'");
    String held = "status = 'running' AND leased_by = '" + owner + "'";
    long rows = count(held);

    int otherPid = other.ownerLock().backendPid();
    terminate(otherPid);
    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> other.ownerLock().mayLease() && other.ownerLock().backendPid() != otherPid);
    int aPid = a.ownerLock().backendPid();
    terminate(aPid);

    // the other instance, back on a new session itself, leaves the live one time to come back
    await()
        .during(Duration.ofSeconds(8))
        .atMost(Duration.ofSeconds(12))
        .until(() -> count(held) == rows);
    assertThat(a.ownerLock().backendPid()).as("took its lock again").isNotEqualTo(aPid);
  }

  private static void terminate(int pid) throws Exception {
    try (Connection c = TestDatabase.connect();
        Statement s = c.createStatement()) {
      s.execute("SELECT pg_terminate_backend(" + pid + ")");
    }
  }

  @Test
  void goneOwnersRows_areCountedByTheOrphanedGaugeAndTheLag_andWarnedOnce() throws Exception {
    String owner = stoppedHoldingRows().owner();
    // 20 more rows the stopped process holds, leased 30 s ago
    PostgresInbox writer = started(builder("inbox-w").build()); // never started: stores pending
    for (int i = 0; i < 20; i++) {
      store(writer, "held-" + i);
    }
    schema.exec(
        "UPDATE "
            + schema.table()
            + " SET status = 'running', attempts = 1, leased_by = '"
            + owner
            + "', due_at = now() + interval '30 seconds' WHERE event_id LIKE 'held-%'");
    long held = count("status = 'running' AND leased_by = '" + owner + "'");
    kill("inbox-a");

    Logger logger = (Logger) LoggerFactory.getLogger(PostgresInbox.class);
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    logger.addAppender(logs);
    Level level = logger.getLevel();
    logger.setLevel(Level.INFO);
    try {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      CountDownLatch never = new CountDownLatch(1);
      blocked.add(never);
      PostgresInbox survivor =
          started(
              builder("inbox-b")
                  .meterRegistry(registry)
                  .gaugeInterval(Duration.ofMillis(200))
                  .build());
      survivor.start(event -> never.await()); // one row runs, two wait in memory: the rest wait

      await()
          .atMost(Duration.ofSeconds(15))
          .untilAsserted(
              () -> {
                assertThat(registry.get("webhook.inbox.orphaned").gauge().value())
                    .isGreaterThanOrEqualTo(20);
                assertThat(registry.get("webhook.inbox.lag").gauge().value())
                    .isBetween(25.0, 120.0);
              });
      // further checks find nothing new: one WARN for the episode
      await()
          .during(Duration.ofSeconds(5))
          .atMost(Duration.ofSeconds(10))
          .until(() -> registry.get("webhook.inbox.orphaned").gauge().value() >= 20);
    } finally {
      logger.detachAppender(logs);
      logger.setLevel(level);
    }
    assertThat(logs.list)
        .filteredOn(e -> e.getLevel() == Level.WARN)
        .extracting(ILoggingEvent::getFormattedMessage)
        .filteredOn(line -> line.contains("is gone"))
        .singleElement()
        .asString()
        .startsWith("Inbox owner " + owner + " is gone")
        .contains("the " + held + " rows it held are due now");
  }

  @Test
  void lockSessionEnded_whileTheProcessLives_isTakenAgain_andRowsStillRun() throws Exception {
    Map<String, AtomicInteger> ran = new ConcurrentHashMap<>();
    PostgresInbox inbox = started(builder("inbox-a").build());
    inbox.start(event -> record(ran, event));
    await().atMost(Duration.ofSeconds(10)).until(() -> inbox.ownerLock().mayLease());
    int first = inbox.ownerLock().backendPid();
    try (Connection c = TestDatabase.connect();
        Statement s = c.createStatement()) {
      s.execute("SELECT pg_terminate_backend(" + first + ")");
    }

    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> inbox.ownerLock().mayLease() && inbox.ownerLock().backendPid() != first);
    store(inbox, "after");
    await().atMost(Duration.ofSeconds(10)).until(() -> ran.containsKey("after"));
    assertThat(schema.number("SELECT count(*) FROM " + schema.table() + "_owner")).isEqualTo(1);
  }

  @Test
  void schemaWithoutTheOwnerTable_leasesAsBefore_andSaysSo() throws Exception {
    Logger logger = (Logger) LoggerFactory.getLogger(PostgresInbox.class);
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    logger.addAppender(logs);
    Map<String, AtomicInteger> ran = new ConcurrentHashMap<>();
    try {
      PostgresInbox inbox = started(builder("inbox-a").build());
      schema.exec("DROP TABLE " + schema.table() + "_owner");
      inbox.start(event -> record(ran, event));
      store(inbox, "x");
      await().atMost(Duration.ofSeconds(10)).until(() -> ran.containsKey("x"));
    } finally {
      logger.detachAppender(logs);
    }
    assertThat(logs.list)
        .filteredOn(e -> e.getLevel() == Level.ERROR)
        .extracting(ILoggingEvent::getFormattedMessage)
        .singleElement()
        .asString()
        .contains("apply V5__inbox_owner.sql");
  }

  @Test
  void instanceName_labelsTheOwner_needNotBeUnique() throws Exception {
    PostgresInbox one = started(builder("inbox-a").instanceName("node-a").build());
    PostgresInbox two = started(builder("inbox-b").instanceName("node-a").build());
    one.start(event -> {});
    two.start(event -> {});
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> one.ownerLock().mayLease() && two.ownerLock().mayLease());
    assertThat(
            schema.number(
                "SELECT count(*) FROM "
                    + schema.table()
                    + "_owner WHERE token ~ '^node-a/[0-9a-f]{16}$'"))
        .isEqualTo(2);
    assertThatThrownBy(() -> PostgresInbox.builder().instanceName(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("instanceName");
  }
}
