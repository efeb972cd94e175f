package io.servicehooks.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.servicehooks.testsupport.TestDatabase;
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

/**
 * Issue 21, point 5: after a crash, the same instance restarted takes back its predecessor's leased
 * rows at once (not one 60 s lease later); another instance's rows are left to their lease.
 */
final class ReclaimTest {

  private static final Duration LEASE = Duration.ofSeconds(60);

  private TestDatabase.Schema schema;
  private HikariDataSource pool;
  private final List<PostgresInbox> inboxes = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    schema = TestDatabase.schema();
    pool = TestDatabase.pool(10);
  }

  @AfterEach
  void tearDown() throws Exception {
    for (PostgresInbox inbox : inboxes) {
      inbox.close();
    }
    pool.close();
    schema.close();
  }

  private PostgresInbox.Builder builder(String name) {
    PostgresInbox.Builder b =
        PostgresInbox.builder()
            .dataSource(pool)
            .schema(schema.name)
            .createSchema(true)
            .workers(1)
            .lease(LEASE)
            .pollInterval(Duration.ofMillis(20))
            .maxPollInterval(Duration.ofMillis(100))
            .drainTimeout(Duration.ofSeconds(1));
    return name == null ? b : b.instanceName(name);
  }

  private long running() throws Exception {
    return inboxes.get(0).admin().stats().running();
  }

  /** An instance with two rows leased (one running, one waiting in memory), then killed. */
  private PostgresInbox crashedWithTwoLeasedRows(String name) throws Exception {
    CountDownLatch busy = new CountDownLatch(1);
    PostgresInbox crashing = builder(name).build();
    inboxes.add(crashing);
    crashing.start(
        event -> {
          busy.countDown();
          Thread.sleep(60_000); // interrupted by the crash; marks nothing
        });
    crashing.store(List.of(Events.post("busy"))).toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertThat(busy.await(5, TimeUnit.SECONDS)).isTrue();
    crashing.store(List.of(Events.post("waiting"))).toCompletableFuture().get(10, TimeUnit.SECONDS);
    crashing.crash();
    assertThat(running()).isEqualTo(2);
    return crashing;
  }

  @Test
  void restart_sameInstanceName_takesBackItsRowsAtOnce() throws Exception {
    crashedWithTwoLeasedRows("node-a");
    Map<String, AtomicInteger> ran = new ConcurrentHashMap<>();

    PostgresInbox restarted = builder("node-a").build();
    inboxes.add(restarted);
    long start = System.nanoTime();
    restarted.start(e -> ran.computeIfAbsent(e.id(), k -> new AtomicInteger()).incrementAndGet());

    // a 60 s lease: done well inside it means taken back, not expired
    await().atMost(Duration.ofSeconds(10)).until(() -> restarted.admin().stats().done() == 2);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(LEASE.dividedBy(4));
    assertThat(ran).containsOnlyKeys("busy", "waiting");
    assertThat(ran.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
  }

  @Test
  void restart_otherInstanceName_leavesTheRowsToTheirLease() throws Exception {
    crashedWithTwoLeasedRows("node-a");

    PostgresInbox other = builder("node-b").build();
    inboxes.add(other);
    other.start(e -> {}); // the take-back runs inside start()

    assertThat(running()).isEqualTo(2);
  }

  @Test
  void restart_withoutInstanceName_leavesTheRowsToTheirLease() throws Exception {
    crashedWithTwoLeasedRows(null);

    PostgresInbox unnamed = builder(null).build();
    inboxes.add(unnamed);
    unnamed.start(e -> {});

    assertThat(running()).isEqualTo(2);
  }

  @Test
  void instanceName_withHashOrBlank_refusedNamingIt() {
    assertThatThrownBy(() -> PostgresInbox.builder().instanceName("a#b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'a#b'");
    assertThatThrownBy(() -> PostgresInbox.builder().instanceName(" "))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
