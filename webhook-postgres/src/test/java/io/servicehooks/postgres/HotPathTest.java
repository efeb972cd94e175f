package io.servicehooks.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariDataSource;
import io.servicehooks.core.InboxOutcome;
import io.servicehooks.core.StoredEvent;
import io.servicehooks.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The hot path (rows leased at insert and run from memory, no claim statement), its bound, and the
 * batched done marks.
 */
final class HotPathTest {

  private TestDatabase.Schema schema;
  private HikariDataSource pool;
  private CountingDataSource counting;
  private Tables tables;
  private final List<PostgresInbox> inboxes = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    schema = TestDatabase.schema();
    pool = TestDatabase.pool(10);
    counting = new CountingDataSource(pool);
    tables = new Tables(schema.name, PostgresInbox.DEFAULT_TABLE);
    PostgresInbox.builder().dataSource(pool).schema(schema.name).createSchema(true).build().close();
  }

  @AfterEach
  void tearDown() throws Exception {
    for (PostgresInbox inbox : inboxes) {
      inbox.close();
    }
    pool.close();
    schema.close();
  }

  /** An inbox whose poller looks once at start and then only when woken by a pending row. */
  private PostgresInbox.Builder builder() {
    return PostgresInbox.builder()
        .dataSource(counting)
        .schema(schema.name)
        .pollInterval(Duration.ofHours(1))
        .maxPollInterval(Duration.ofHours(1))
        .drainTimeout(Duration.ofSeconds(2));
  }

  private PostgresInbox started(
      PostgresInbox.Builder builder, io.servicehooks.core.InboxProcessor p) throws Exception {
    PostgresInbox inbox = builder.build();
    inboxes.add(inbox);
    int claims = counting.executed(tables.claim);
    inbox.start(p);
    // The look at start, on an empty table.
    await().atMost(Duration.ofSeconds(20)).until(() -> counting.executed(tables.claim) > claims);
    return inbox;
  }

  private static List<InboxOutcome> store(PostgresInbox inbox, StoredEvent... events)
      throws Exception {
    return inbox.store(List.of(events)).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private long count(String where) throws Exception {
    return schema.number("SELECT count(*) FROM " + schema.table() + " WHERE " + where);
  }

  private String column(String column, String dedupKey) throws Exception {
    try (Connection c = pool.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT " + column + " FROM " + schema.table() + " WHERE dedup_key = ?")) {
      s.setString(1, dedupKey);
      try (ResultSet r = s.executeQuery()) {
        return r.next() ? r.getString(1) : null;
      }
    }
  }

  @Test
  void rowsStoredWhileWorkersAreFree_runFromMemoryWithoutAClaim() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    PostgresInbox inbox = started(builder(), event -> seen.add(event.id()));
    int claims = counting.executed(tables.claim);

    for (int i = 0; i < 30; i++) {
      assertThat(store(inbox, Events.post("h" + i))).containsExactly(InboxOutcome.STORED);
      // Each row is stored while the workers are free: the one before has run and is done.
      long done = i + 1;
      await()
          .atMost(Duration.ofSeconds(20))
          .pollInterval(Duration.ofMillis(5))
          .until(() -> count("status = 'done'") == done);
    }

    assertThat(seen).hasSize(30).doesNotHaveDuplicates();
    assertThat(counting.executed(tables.claim)).as("claim statements").isEqualTo(claims);
    assertThat(count("attempts = 1 AND leased_by IS NULL")).isEqualTo(30);
  }

  @Test
  void rowsBeyondTheRoom_insertedPendingAndTakenByThePoller() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    CountDownLatch release = new CountDownLatch(1);
    // One worker: room for two rows until a listener's pace is known.
    PostgresInbox inbox =
        started(
            builder().workers(1),
            event -> {
              release.await(30, TimeUnit.SECONDS);
              seen.add(event.id());
            });
    int claims = counting.executed(tables.claim);
    StoredEvent[] ten = new StoredEvent[10];
    for (int i = 0; i < ten.length; i++) {
      ten[i] = Events.post("o" + i);
    }

    store(inbox, ten);

    // Committed: the first two leased to this instance at insert, the rest pending (the poller,
    // woken for them, may have taken two by now: all it has room for while the worker waits).
    assertThat(column("status", "e:o0")).isEqualTo("running");
    assertThat(column("status", "e:o1")).isEqualTo("running");
    assertThat(count("status = 'pending' AND attempts = 0")).isBetween(6L, 8L);
    assertThat(count("status = 'running' AND attempts = 1")).isBetween(2L, 4L);
    release.countDown();
    await().atMost(Duration.ofSeconds(30)).until(() -> count("status = 'done'") == 10);
    assertThat(seen).hasSize(10).doesNotHaveDuplicates();
    assertThat(counting.executed(tables.claim)).isGreaterThan(claims);
  }

  @Test
  void leasedAtInsertByAnInstanceThatCrashes_retakenAfterTheLeaseByAnother() throws Exception {
    CountDownLatch firstRunning = new CountDownLatch(1);
    List<String> ranOnCrashing = new CopyOnWriteArrayList<>();
    PostgresInbox crashing =
        started(
            builder().workers(1).lease(Duration.ofMillis(1500)),
            event -> {
              ranOnCrashing.add(event.id());
              firstRunning.countDown();
              Thread.sleep(60_000); // interrupted by the crash; marks nothing
            });
    long busyAsked = System.nanoTime();
    store(crashing, Events.post("busy"));
    assertThat(firstRunning.await(20, TimeUnit.SECONDS)).isTrue();
    // Its one worker is busy: this row is leased at insert and waits in memory.
    long waitingAsked = System.nanoTime();
    store(crashing, Events.post("waiting"));
    assertThat(column("status", "e:waiting")).isEqualTo("running");
    assertThat(column("attempts", "e:waiting")).isEqualTo("1");
    assertThat(column("leased_by", "e:waiting")).isNotNull();

    crashing.crash();

    Map<String, AtomicInteger> rerun = new ConcurrentHashMap<>();
    Map<String, Long> rerunAt = new ConcurrentHashMap<>();
    PostgresInbox survivor =
        PostgresInbox.builder()
            .dataSource(pool)
            .schema(schema.name)
            .pollInterval(Duration.ofMillis(20))
            .maxPollInterval(Duration.ofMillis(100))
            .build();
    inboxes.add(survivor);
    survivor.start(
        e -> {
          rerunAt.putIfAbsent(e.id(), System.nanoTime());
          rerun.computeIfAbsent(e.id(), k -> new AtomicInteger()).incrementAndGet();
        });

    await().atMost(Duration.ofSeconds(30)).until(() -> count("status = 'done'") == 2);
    // Nothing was taken before its lease ended, 1.5 s after its insert (which came after it was
    // asked for): a slow machine makes the rerun later, never earlier.
    assertThat(TimeUnit.NANOSECONDS.toMillis(rerunAt.get("busy") - busyAsked))
        .isGreaterThanOrEqualTo(1_400);
    assertThat(TimeUnit.NANOSECONDS.toMillis(rerunAt.get("waiting") - waitingAsked))
        .isGreaterThanOrEqualTo(1_400);
    assertThat(ranOnCrashing).containsExactly("busy");
    assertThat(rerun).containsOnlyKeys("busy", "waiting");
    assertThat(rerun.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    assertThat(column("attempts", "e:waiting")).isEqualTo("2");
  }

  @Test
  void hotRowThatWaitedMoreThanHalfItsLease_notRunButRetakenAfterTheLease() throws Exception {
    Duration lease = Duration.ofSeconds(3);
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    CountDownLatch slowRunning = new CountDownLatch(1);
    CountDownLatch behindStored = new CountDownLatch(1);
    AtomicLong behindStoredAt = new AtomicLong();
    PostgresInbox inbox =
        started(
            builder()
                .workers(1)
                .lease(lease)
                .pollInterval(Duration.ofMillis(20))
                .maxPollInterval(Duration.ofMillis(100)),
            event -> {
              runs.computeIfAbsent(event.id(), k -> new AtomicInteger()).incrementAndGet();
              if (event.id().equals("slow")) {
                slowRunning.countDown();
                // Runs until the row behind it, leased at its insert, has waited 60% of its
                // lease: longer than half of it, and the slow row's own lease still runs.
                assertThat(behindStored.await(20, TimeUnit.SECONDS)).isTrue();
                long until = behindStoredAt.get() + lease.toNanos() * 6 / 10;
                for (long left; (left = until - System.nanoTime()) > 0; ) {
                  TimeUnit.NANOSECONDS.sleep(left);
                }
              }
            });
    store(inbox, Events.post("slow"));
    assertThat(slowRunning.await(20, TimeUnit.SECONDS)).isTrue();
    store(inbox, Events.post("behind")); // leased at insert, waits for the one worker
    behindStoredAt.set(System.nanoTime());
    behindStored.countDown();

    await().atMost(Duration.ofSeconds(30)).until(() -> count("status = 'done'") == 2);
    assertThat(runs.get("slow").get()).isEqualTo(1);
    assertThat(runs.get("behind").get()).isEqualTo(1);
    assertThat(column("attempts", "e:slow")).isEqualTo("1");
    // Its first lease was left to end without a run; the second attempt ran it.
    assertThat(column("attempts", "e:behind")).isEqualTo("2");
  }

  @Test
  void manySuccesses_markedDoneInFarFewerStatementsThanRows() throws Exception {
    CountDownLatch allRan = new CountDownLatch(200);
    PostgresInbox inbox = started(builder().workers(4), event -> allRan.countDown());
    // The marker's first statement waits until every listener ran: the successes queue up.
    counting.beforeExecute =
        sql -> {
          if (sql.equals(tables.markDone)) {
            try {
              allRan.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        };
    int doneBefore = counting.executed(tables.markDone);

    for (int i = 0; i < 200; i += 20) {
      StoredEvent[] group = new StoredEvent[20];
      for (int k = 0; k < group.length; k++) {
        group[k] = Events.post("b" + (i + k));
      }
      store(inbox, group);
    }

    assertThat(allRan.await(30, TimeUnit.SECONDS)).isTrue();
    await().atMost(Duration.ofSeconds(30)).until(() -> count("status = 'done'") == 200);
    // The one held, then everything queued meanwhile (at most 500 a statement), then at most one
    // for each worker whose success was queued after the held one was let go (a listener counts
    // itself down before its success is queued).
    assertThat(counting.executed(tables.markDone) - doneBefore).isBetween(1, 2 + 4);
    assertThat(count("status = 'done' AND done_at IS NOT NULL AND leased_by IS NULL"))
        .isEqualTo(200);
  }

  @Test
  void rowWhoseLeaseWasLost_notMarkedDoneAndWarned() throws Exception {
    ch.qos.logback.classic.Logger logger =
        (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(PostgresInbox.class);
    Level level = logger.getLevel();
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    logger.addAppender(logs);
    logger.setLevel(Level.WARN);
    try {
      CountDownLatch ran = new CountDownLatch(2);
      PostgresInbox inbox =
          started(
              builder(),
              event -> {
                if (event.id().equals("lost")) {
                  // Another instance took it again meanwhile, as after a lease that ended.
                  schema.exec(
                      "UPDATE "
                          + schema.table()
                          + " SET attempts = attempts + 1, leased_by = 'other'"
                          + " WHERE dedup_key = 'e:lost'");
                }
                ran.countDown();
              });

      store(inbox, Events.post("lost"), Events.post("kept"));

      assertThat(ran.await(20, TimeUnit.SECONDS)).isTrue();
      await().atMost(Duration.ofSeconds(20)).until(() -> "done".equals(column("status", "e:kept")));
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  logs.list.stream()
                      .anyMatch(
                          e -> e.getFormattedMessage().contains("ran longer than its lease")));
      assertThat(column("status", "e:lost")).isEqualTo("running");
      assertThat(column("attempts", "e:lost")).isEqualTo("2");
      assertThat(column("leased_by", "e:lost")).isEqualTo("other");
      long id = Long.parseLong(column("id", "e:lost"));
      assertThat(logs.list)
          .filteredOn(e -> e.getFormattedMessage().contains("ran longer than its lease"))
          .singleElement()
          .satisfies(e -> assertThat(e.getFormattedMessage()).contains("row " + id + " "));
    } finally {
      logger.detachAppender(logs);
      logger.setLevel(level);
    }
  }

  @Test
  void duplicates_giveTheirRoomBack_newRowsStillTakeTheHotPath() throws Exception {
    // Room for 2 rows in all (1 worker, 1 writer of 2-row groups): a leak shows at once.
    PostgresInbox inbox = started(builder().workers(1).writers(1).maxBatchRows(2), event -> {});
    store(inbox, Events.post("d1"), Events.post("d2"));
    await().atMost(Duration.ofSeconds(20)).until(() -> count("status = 'done'") == 2);
    int claims = counting.executed(tables.claim);

    for (int i = 0; i < 50; i++) {
      assertThat(store(inbox, Events.post("d1"), Events.post("d2"), Events.post("d1")))
          .containsExactly(InboxOutcome.DUPLICATE, InboxOutcome.DUPLICATE, InboxOutcome.DUPLICATE);
    }
    for (int i = 0; i < 10; i++) {
      assertThat(store(inbox, Events.post("n" + i), Events.post("d1")))
          .containsExactly(InboxOutcome.STORED, InboxOutcome.DUPLICATE);
      String key = "e:n" + i;
      await().atMost(Duration.ofSeconds(20)).until(() -> "done".equals(column("status", key)));
    }

    assertThat(count("status = 'done'")).isEqualTo(12);
    assertThat(counting.executed(tables.claim)).as("claim statements").isEqualTo(claims);
  }
}
