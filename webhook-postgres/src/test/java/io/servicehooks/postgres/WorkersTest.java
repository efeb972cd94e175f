package io.servicehooks.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Workers: SKIP LOCKED sharing, leases, retries with back-off, dead letters, idle polling. */
final class WorkersTest {

  private TestDatabase.Schema schema;
  private HikariDataSource pool;
  private final List<PostgresInbox> inboxes = new ArrayList<>();
  private final List<HikariDataSource> pools = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    schema = TestDatabase.schema();
    pool = TestDatabase.pool(8);
    PostgresInbox.builder().dataSource(pool).schema(schema.name).createSchema(true).build().close();
  }

  @AfterEach
  void tearDown() throws Exception {
    for (PostgresInbox inbox : inboxes) {
      inbox.close();
    }
    for (HikariDataSource p : pools) {
      p.close();
    }
    pool.close();
    schema.close();
  }

  private PostgresInbox.Builder builder(javax.sql.DataSource ds) {
    return PostgresInbox.builder()
        .dataSource(ds)
        .schema(schema.name)
        .pollInterval(Duration.ofMillis(20))
        .maxPollInterval(Duration.ofMillis(100))
        .drainTimeout(Duration.ofSeconds(2));
  }

  private PostgresInbox track(PostgresInbox inbox) {
    inboxes.add(inbox);
    return inbox;
  }

  private void store(PostgresInbox inbox, StoredEvent... events) throws Exception {
    inbox.store(List.of(events)).toCompletableFuture().get(10, TimeUnit.SECONDS);
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
  void storedEvent_runsOnceAndRowIsDone() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    PostgresInbox inbox = track(builder(pool).build());
    inbox.start(event -> seen.add(event.id() + " " + event.payloadJson()));

    store(inbox, Events.post("1"));

    await().atMost(Duration.ofSeconds(20)).until(() -> "done".equals(column("status", "e:1")));
    assertThat(seen).containsExactly("1 " + Events.post("1").payloadJson());
    assertThat(column("attempts", "e:1")).isEqualTo("1");
    assertThat(column("done_at", "e:1")).isNotNull();
  }

  @Test
  void twoInstancesOnOneSchema_shareTheRowsAndRunEachOnce() throws Exception {
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    Map<String, AtomicInteger> byInstance = new ConcurrentHashMap<>();
    List<PostgresInbox> two = new ArrayList<>();
    for (int n = 0; n < 2; n++) {
      HikariDataSource own = TestDatabase.pool(6);
      pools.add(own);
      PostgresInbox inbox = track(builder(own).workers(3).build());
      two.add(inbox);
    }
    int events = 200;
    for (int i = 0; i < events; i++) {
      // Stored through both, half each: both wake, and both poll for the rest.
      store(two.get(i % 2), Events.post("s" + i));
    }
    // Each instance's first events wait until the other has run one: the one started first holds
    // only the few rows it has room for meanwhile, and cannot run them all before the other looks.
    List<CountDownLatch> ranOne = List.of(new CountDownLatch(1), new CountDownLatch(1));
    for (int n = 0; n < 2; n++) {
      String name = "instance" + n;
      CountDownLatch mine = ranOne.get(n);
      CountDownLatch other = ranOne.get(1 - n);
      two.get(n)
          .start(
              event -> {
                runs.computeIfAbsent(event.id(), k -> new AtomicInteger()).incrementAndGet();
                byInstance.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
                mine.countDown();
                other.await(20, TimeUnit.SECONDS);
              });
    }

    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                schema.number("SELECT count(*) FROM " + schema.table() + " WHERE status = 'done'")
                    == events);
    assertThat(runs).hasSize(events);
    assertThat(runs.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    assertThat(byInstance.get("instance0").get()).isPositive();
    assertThat(byInstance.get("instance1").get()).isPositive();
  }

  @Test
  void workerCrashes_rowComesBackAfterTheLeaseAndRunsAgain() throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    PostgresInbox crashing = track(builder(pool).lease(Duration.ofMillis(800)).build());
    crashing.start(
        event -> {
          running.countDown();
          Thread.sleep(60_000); // interrupted by the crash; marks nothing
        });
    store(crashing, Events.post("c"));
    assertThat(running.await(20, TimeUnit.SECONDS)).isTrue();
    crashing.crash();
    assertThat(column("status", "e:c")).isEqualTo("running");

    List<String> rerun = new CopyOnWriteArrayList<>();
    PostgresInbox survivor = track(builder(pool).build());
    survivor.start(event -> rerun.add(event.id()));

    await().atMost(Duration.ofSeconds(20)).until(() -> "done".equals(column("status", "e:c")));
    assertThat(rerun).containsExactly("c");
    assertThat(column("attempts", "e:c")).isEqualTo("2");
  }

  @Test
  void failingListener_retriedWithBackoffThenDeadWithItsLastError() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    List<Long> attemptsAt = new CopyOnWriteArrayList<>();
    PostgresInbox inbox =
        track(
            builder(pool)
                .maxAttempts(3)
                .backoff(Duration.ofMillis(200), Duration.ofSeconds(1))
                .meterRegistry(registry)
                .build());
    inbox.start(
        event -> {
          attemptsAt.add(System.nanoTime());
          throw new IllegalStateException("downstream refused attempt " + attemptsAt.size());
        });

    store(inbox, Events.post("f"));

    await().atMost(Duration.ofSeconds(30)).until(() -> "dead".equals(column("status", "e:f")));
    assertThat(attemptsAt).hasSize(3);
    // Back-off before attempt 2 is in [100, 200] ms, before attempt 3 in [200, 400] ms.
    assertThat(TimeUnit.NANOSECONDS.toMillis(attemptsAt.get(1) - attemptsAt.get(0)))
        .isGreaterThanOrEqualTo(100);
    assertThat(TimeUnit.NANOSECONDS.toMillis(attemptsAt.get(2) - attemptsAt.get(1)))
        .isGreaterThanOrEqualTo(200);
    assertThat(column("last_error", "e:f"))
        .isEqualTo("java.lang.IllegalStateException: downstream refused attempt 3");
    assertThat(column("attempts", "e:f")).isEqualTo("3");
    assertThat(registry.get("webhook.inbox.retries").counter().count()).isEqualTo(2);
    assertThat(registry.get("webhook.inbox.dead.lettered").counter().count()).isEqualTo(1);
    assertThat(registry.get("webhook.inbox.processing").tag("outcome", "retry").timer().count())
        .isEqualTo(2);
  }

  @Test
  void deadLetterRetried_runsAgainAndIsDone() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    PostgresInbox inbox = track(builder(pool).maxAttempts(1).build());
    inbox.start(
        event -> {
          if (calls.incrementAndGet() == 1) {
            throw new IllegalStateException("not yet");
          }
        });
    store(inbox, Events.post("d"));
    await().atMost(Duration.ofSeconds(20)).until(() -> "dead".equals(column("status", "e:d")));
    long id = Long.parseLong(column("id", "e:d"));

    assertThat(inbox.admin().retry(id)).isTrue();

    await().atMost(Duration.ofSeconds(20)).until(() -> "done".equals(column("status", "e:d")));
    assertThat(calls.get()).isEqualTo(2);
  }

  @Test
  void leaseEndsDuringLastAttempt_rowIsDeadNotRunForever() throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    PostgresInbox crashing =
        track(builder(pool).maxAttempts(1).lease(Duration.ofMillis(300)).build());
    crashing.start(
        event -> {
          running.countDown();
          Thread.sleep(60_000);
        });
    store(crashing, Events.post("k"));
    assertThat(running.await(20, TimeUnit.SECONDS)).isTrue();
    crashing.crash();

    AtomicInteger reruns = new AtomicInteger();
    track(builder(pool).maxAttempts(1).build()).start(event -> reruns.incrementAndGet());

    await().atMost(Duration.ofSeconds(20)).until(() -> "dead".equals(column("status", "e:k")));
    assertThat(reruns.get()).isZero();
    assertThat(column("last_error", "e:k")).contains("lease ended");
  }

  @Test
  void workersSkipTheFlushWait_onlyForTheirOwnTransactions() throws Exception {
    // one connection for every statement, the other held by the owner lock for the inbox's life
    HikariDataSource one = TestDatabase.pool(2);
    pools.add(one);
    PostgresInbox inbox = track(builder(one).workers(1).writers(1).build());
    inbox.start(event -> {});
    store(inbox, Events.post("w"));
    await().atMost(Duration.ofSeconds(20)).until(() -> "done".equals(column("status", "e:w")));

    // The same connection the worker used (the only one free): the insert that comes next must
    // still wait.
    try (Connection c = one.getConnection();
        java.sql.Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SHOW synchronous_commit")) {
      r.next();
      assertThat(r.getString(1)).isEqualTo("on");
    }
  }

  @Test
  void idle_pollsRarely() throws Exception {
    CountingDataSource counting = new CountingDataSource(pool);
    PostgresInbox inbox =
        track(
            PostgresInbox.builder()
                .dataSource(counting)
                .schema(schema.name)
                .pollInterval(Duration.ofMillis(200))
                .maxPollInterval(Duration.ofSeconds(1))
                .build());
    inbox.start(event -> {});
    int before = counting.statements.get();
    long since = System.nanoTime();

    // A measurement window of at least two seconds, not a wait for a condition; a loaded machine
    // may make it longer, and the bound below grows with it.
    await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(30)).until(() -> true);
    int statements = counting.statements.get() - before;
    long windowMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since);

    // 200, 400, 800, 1000 ms: about five looks in two seconds, then one a second, never a spin.
    assertThat(statements).isBetween(1, 4 + 2 * (int) Math.ceil(windowMillis / 1000.0));
  }
}
