package io.servicehooks.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.servicehooks.testsupport.TcpProxy;
import io.servicehooks.testsupport.TestDatabase;
import java.net.URI;
import java.time.Duration;
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
 * Listeners finish while the database is cut (a proxy in front of the shared server drops every
 * connection and refuses new ones): their done marks fail. When the database is back, before the
 * rows' lease ends, the marks must be made, so the rows do not run again.
 */
final class DoneMarkCutTest {

  private static final Duration LEASE = Duration.ofSeconds(6);

  private TestDatabase.Schema schema;
  private TcpProxy proxy;
  private HikariDataSource pool;
  private PostgresInbox inbox;

  @BeforeEach
  void setUp() throws Exception {
    schema = TestDatabase.schema();
    try (HikariDataSource direct = TestDatabase.pool(2)) {
      PostgresInbox.builder()
          .dataSource(direct)
          .schema(schema.name)
          .createSchema(true)
          .build()
          .close();
    }
    URI db = TestDatabase.hostAndPort();
    proxy = new TcpProxy(db.getHost(), db.getPort()).start();
    pool =
        TestDatabase.pool(
            TestDatabase.url()
                .replace(db.getHost() + ":" + db.getPort(), "127.0.0.1:" + proxy.port()),
            6);
  }

  @AfterEach
  void tearDown() throws Exception {
    if (inbox != null) {
      inbox.close();
    }
    pool.close();
    proxy.close();
    schema.close();
  }

  @Test
  void markDuringCut_retriedWhenDatabaseReturns_rowsDoneAndRunOnce() throws Exception {
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    AtomicInteger running = new AtomicInteger();
    CountDownLatch finish = new CountDownLatch(1);
    inbox =
        PostgresInbox.builder()
            .dataSource(pool)
            .schema(schema.name)
            .workers(4)
            .lease(LEASE)
            .pollInterval(Duration.ofMillis(20))
            .maxPollInterval(Duration.ofMillis(200))
            .drainTimeout(Duration.ofSeconds(2))
            .build();
    inbox.start(
        event -> {
          runs.computeIfAbsent(event.id(), k -> new AtomicInteger()).incrementAndGet();
          running.incrementAndGet();
          finish.await(20, TimeUnit.SECONDS);
        });
    long stored = System.nanoTime();
    inbox
        .store(
            List.of(
                Events.post("cut-1"),
                Events.post("cut-2"),
                Events.post("cut-3"),
                Events.post("cut-4")))
        .toCompletableFuture()
        .get(5, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(20)).until(() -> running.get() == 4);

    proxy.stop();
    finish.countDown(); // all four succeed while the database is away: their marks fail
    await().pollDelay(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(10)).until(() -> true);
    proxy.start();

    // Marked soon after the database is back, before the lease ends.
    await()
        .atMost(Duration.ofNanos(Math.max(1, stored + LEASE.toNanos() - System.nanoTime())))
        .untilAsserted(
            () ->
                assertThat(
                        schema.number(
                            "SELECT count(*) FROM " + schema.table() + " WHERE status = 'done'"))
                    .isEqualTo(4));
    assertThat(System.nanoTime() - stored).isLessThan(LEASE.toNanos());
    // Past the lease's end: nothing ran again.
    long leaseEnd = stored + LEASE.toNanos() + TimeUnit.SECONDS.toNanos(2);
    await()
        .pollDelay(Duration.ofNanos(Math.max(0, leaseEnd - System.nanoTime())))
        .atMost(Duration.ofSeconds(15))
        .until(() -> true);
    assertThat(runs).hasSize(4).allSatisfy((id, n) -> assertThat(n.get()).as(id).isEqualTo(1));
    assertThat(schema.number("SELECT max(attempts) FROM " + schema.table())).isEqualTo(1);
  }
}
