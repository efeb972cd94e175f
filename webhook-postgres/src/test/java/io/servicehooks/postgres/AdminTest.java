package io.servicehooks.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.servicehooks.testsupport.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The operator's API on rows put in each state with plain SQL, and the retention purge. */
final class AdminTest {

  private TestDatabase.Schema schema;
  private HikariDataSource pool;
  private PostgresInbox inbox;
  private InboxAdmin admin;

  @BeforeEach
  void setUp() throws Exception {
    schema = TestDatabase.schema();
    pool = TestDatabase.pool(4);
    inbox =
        PostgresInbox.builder()
            .dataSource(pool)
            .schema(schema.name)
            .createSchema(true)
            .purgeBatchSize(3)
            .build();
    admin = inbox.admin();
  }

  @AfterEach
  void tearDown() throws Exception {
    inbox.close();
    pool.close();
    schema.close();
  }

  private void store(String... ids) throws Exception {
    for (String id : ids) {
      inbox.store(List.of(Events.post(id))).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  private void set(String id, String assignments) throws Exception {
    schema.exec(
        "UPDATE " + schema.table() + " SET " + assignments + " WHERE dedup_key = 'e:" + id + "'");
  }

  @Test
  void stats_countsEachStatusAndTheOldestDueAge() throws Exception {
    store("p1", "p2", "r", "d", "x");
    set("p1", "due_at = now() - interval '30 seconds'");
    set("p2", "due_at = now() + interval '1 hour'");
    set("r", "status = 'running', due_at = now() + interval '1 minute'");
    set("d", "status = 'done', done_at = now()");
    set("x", "status = 'dead', last_error = 'java.lang.IllegalStateException: no'");

    InboxStats stats = admin.stats();

    assertThat(stats.pending()).isEqualTo(2);
    assertThat(stats.running()).isEqualTo(1);
    assertThat(stats.done()).isEqualTo(1);
    assertThat(stats.dead()).isEqualTo(1);
    assertThat(stats.lag()).isBetween(Duration.ofSeconds(29), Duration.ofSeconds(60));
  }

  @Test
  void list_deadLetters_withTheirLastError() throws Exception {
    store("a", "b", "c");
    set("a", "status = 'dead', attempts = 10, last_error = 'java.io.IOException: refused'");
    set("c", "status = 'dead', attempts = 10, last_error = 'x'");

    List<InboxEntry> dead = admin.list(InboxStatus.DEAD, 10);

    assertThat(dead).extracting(InboxEntry::eventId).containsExactly("a", "c");
    assertThat(dead.get(0).lastError()).contains("java.io.IOException: refused");
    assertThat(dead.get(0).attempts()).isEqualTo(10);
    assertThat(dead.get(0).doneAt()).isEmpty();
    assertThat(admin.list(InboxStatus.DEAD, 1)).hasSize(1);
    assertThat(admin.list(InboxStatus.PENDING, 10))
        .extracting(InboxEntry::eventId)
        .containsExactly("b");
  }

  @Test
  void retry_onlyDeadOrPendingRows() throws Exception {
    store("dead", "done");
    set("dead", "status = 'dead', attempts = 10, due_at = now() - interval '1 day'");
    set("done", "status = 'done', done_at = now()");
    long deadId = admin.list(InboxStatus.DEAD, 1).get(0).id();
    long doneId = admin.list(InboxStatus.DONE, 1).get(0).id();

    assertThat(admin.retry(deadId)).isTrue();
    assertThat(admin.retry(doneId)).isFalse();
    assertThat(admin.retry(-1)).isFalse();
    InboxEntry retried = admin.list(InboxStatus.PENDING, 1).get(0);
    assertThat(retried.id()).isEqualTo(deadId);
    assertThat(retried.attempts()).isZero();
  }

  @Test
  void retryAllDead_makesEveryDeadLetterPending() throws Exception {
    store("a", "b", "c");
    set("a", "status = 'dead'");
    set("b", "status = 'dead'");

    assertThat(admin.retryAllDead()).isEqualTo(2);
    assertThat(admin.stats().dead()).isZero();
    assertThat(admin.stats().pending()).isEqualTo(3);
  }

  @Test
  void purge_deletesOldDoneRowsInBatchesAndKeepsDeadAndRecent() throws Exception {
    String[] old = new String[10];
    for (int i = 0; i < old.length; i++) {
      old[i] = "old" + i;
    }
    store(old);
    store("recent", "dead", "pending");
    for (String id : old) {
      set(id, "status = 'done', done_at = now() - interval '25 hours'");
    }
    set("recent", "status = 'done', done_at = now() - interval '1 hour'");
    set("dead", "status = 'dead', received_at = now() - interval '30 days'");
    CountingDataSource counting = new CountingDataSource(pool);
    InboxAdmin counted =
        InboxAdmin.builder().dataSource(counting).schema(schema.name).purgeBatchSize(3).build();

    assertThat(counted.purge()).isEqualTo(10);

    // 3 + 3 + 3 + 1: four statements, each its own transaction.
    assertThat(counting.statements.get()).isEqualTo(4);
    assertThat(counting.transactions.get()).isEqualTo(4);
    InboxStats stats = admin.stats();
    assertThat(stats.done()).isEqualTo(1);
    assertThat(stats.dead()).isEqualTo(1);
    assertThat(stats.pending()).isEqualTo(1);
  }

  @Test
  void backgroundPurge_runsByItself() throws Exception {
    store("o1", "o2");
    set("o1", "status = 'done', done_at = now() - interval '2 hours'");
    set("o2", "status = 'dead'");
    PostgresInbox purging =
        PostgresInbox.builder()
            .dataSource(pool)
            .schema(schema.name)
            .retention(Duration.ofHours(1))
            .purgeInterval(Duration.ofMillis(100))
            .build();
    try {
      purging.start(event -> {});
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> admin.stats().done() == 0);
      assertThat(admin.stats().dead()).isEqualTo(1);
    } finally {
      purging.close();
    }
  }
}
