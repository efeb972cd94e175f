package io.servicehooks.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.servicehooks.core.InboxOutcome;
import io.servicehooks.core.StoredEvent;
import io.servicehooks.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** Storing: the insert is the dedup, group commit, and nothing stored when the database is gone. */
final class StoreTest {

  private TestDatabase.Schema schema;
  private HikariDataSource pool;
  private PostgresInbox inbox;

  @BeforeEach
  void setUp() throws Exception {
    schema = TestDatabase.schema();
    pool = TestDatabase.pool(8);
  }

  @AfterEach
  void tearDown() throws Exception {
    if (inbox != null) {
      inbox.close();
    }
    pool.close();
    schema.close();
  }

  private PostgresInbox.Builder builder(javax.sql.DataSource ds) {
    return PostgresInbox.builder().dataSource(ds).schema(schema.name).createSchema(true);
  }

  private static List<InboxOutcome> store(PostgresInbox inbox, StoredEvent... events)
      throws Exception {
    return inbox.store(List.of(events)).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void store_newEvent_committedPendingRowWithEveryValue() throws Exception {
    inbox = builder(pool).build();
    StoredEvent event = Events.post("100");

    assertThat(store(inbox, event)).containsExactly(InboxOutcome.STORED);

    try (Connection c = pool.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT event_id, event_type, original_type, family, for_user_id, tag,"
                    + " filter_json, payload_json, delivery_json, status, attempts FROM "
                    + schema.table()
                    + " WHERE dedup_key = 'e:100'");
        ResultSet r = s.executeQuery()) {
      assertThat(r.next()).isTrue();
      assertThat(r.getString(1)).isEqualTo("100");
      assertThat(r.getString(2)).isEqualTo("post.create");
      assertThat(r.getString(3)).isEqualTo("post.create");
      assertThat(r.getString(4)).isEqualTo("ACTIVITY");
      assertThat(r.getString(5)).isNull();
      assertThat(r.getString(6)).isEqualTo("t");
      assertThat(r.getString(7)).isEqualTo(event.filterJson());
      assertThat(r.getString(8)).isEqualTo(event.payloadJson());
      assertThat(r.getString(9)).isEqualTo(event.deliveryJson());
      assertThat(r.getString(10)).isEqualTo("pending");
      assertThat(r.getInt(11)).isZero();
    }
  }

  @Test
  void store_copyOfStoredEvent_duplicateAndStillOneRow() throws Exception {
    inbox = builder(pool).build();
    store(inbox, Events.post("1"));

    assertThat(store(inbox, Events.post("1"), Events.post("2")))
        .containsExactly(InboxOutcome.DUPLICATE, InboxOutcome.STORED);
    assertThat(schema.number("SELECT count(*) FROM " + schema.table())).isEqualTo(2);
  }

  @Test
  void store_twoCopiesInOneGroup_oneStoredOneDuplicate() throws Exception {
    inbox = builder(pool).commitWindow(Duration.ofMillis(200)).build();

    CompletableFuture<List<InboxOutcome>> a =
        inbox.store(List.of(Events.post("5"))).toCompletableFuture();
    CompletableFuture<List<InboxOutcome>> b =
        inbox.store(List.of(Events.post("5"))).toCompletableFuture();

    List<InboxOutcome> outcomes = new ArrayList<>(a.get(10, TimeUnit.SECONDS));
    outcomes.addAll(b.get(10, TimeUnit.SECONDS));
    assertThat(outcomes).containsExactlyInAnyOrder(InboxOutcome.STORED, InboxOutcome.DUPLICATE);
    assertThat(schema.number("SELECT count(*) FROM " + schema.table())).isEqualTo(1);
  }

  @Test
  void store_64ConcurrentDeliveries_shareFarFewerTransactions() throws Exception {
    CountingDataSource counting = new CountingDataSource(pool);
    inbox = builder(counting).build();
    int before = counting.transactions.get();
    // Each writer's first insert waits until all 64 were asked: what the senders' pace on a loaded
    // machine would otherwise decide, the test does.
    Tables tables = new Tables(schema.name, PostgresInbox.DEFAULT_TABLE);
    CountDownLatch allAsked = new CountDownLatch(64);
    counting.beforeExecute =
        sql -> {
          if (sql.equals(tables.insert) || sql.equals(tables.insertLz4)) {
            try {
              allAsked.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        };
    CountDownLatch go = new CountDownLatch(1);
    List<CompletableFuture<List<InboxOutcome>>> answers = new ArrayList<>();
    List<Thread> senders = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      String id = "g" + i;
      CompletableFuture<List<InboxOutcome>> answer = new CompletableFuture<>();
      answers.add(answer);
      Thread t =
          new Thread(
              () -> {
                try {
                  go.await();
                  inbox
                      .store(List.of(Events.post(id)))
                      .whenComplete(
                          (o, e) -> {
                            if (e != null) {
                              answer.completeExceptionally(e);
                            } else {
                              answer.complete(o);
                            }
                          });
                  allAsked.countDown();
                } catch (InterruptedException e) {
                  answer.completeExceptionally(e);
                }
              });
      senders.add(t);
      t.start();
    }
    go.countDown();
    for (CompletableFuture<List<InboxOutcome>> answer : answers) {
      assertThat(answer.get(10, TimeUnit.SECONDS)).containsExactly(InboxOutcome.STORED);
    }

    int transactions = counting.transactions.get() - before;
    assertThat(schema.number("SELECT count(*) FROM " + schema.table())).isEqualTo(64);
    // The writers' first groups, held until every delivery was asked, then the rest in a group
    // or two: a handful, not one a delivery.
    assertThat(transactions).isBetween(1, 8);
  }

  @Test
  void store_byDefault_whatQueuesDuringACommitIsTheNextGroup() throws Exception {
    CountingDataSource counting = new CountingDataSource(pool);
    Tables tables = new Tables(schema.name, PostgresInbox.DEFAULT_TABLE);
    CountDownLatch inserting = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    counting.beforeExecute =
        sql -> {
          if ((sql.equals(tables.insert) || sql.equals(tables.insertLz4))
              && inserting.getCount() > 0) {
            inserting.countDown();
            try {
              release.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        };
    inbox = builder(counting).writers(1).build();
    int before = counting.transactions.get();

    // The first delivery's insert is held; four more queue meanwhile.
    CompletableFuture<List<InboxOutcome>> lone =
        inbox.store(List.of(Events.post("n0"))).toCompletableFuture();
    assertThat(inserting.await(10, TimeUnit.SECONDS)).isTrue();
    List<CompletableFuture<List<InboxOutcome>>> queued = new ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      queued.add(inbox.store(List.of(Events.post("n" + i))).toCompletableFuture());
    }
    release.countDown();

    assertThat(lone.get(10, TimeUnit.SECONDS)).containsExactly(InboxOutcome.STORED);
    for (CompletableFuture<List<InboxOutcome>> answer : queued) {
      assertThat(answer.get(10, TimeUnit.SECONDS)).containsExactly(InboxOutcome.STORED);
    }
    // No window needed: the four that queued while the writer committed the first went together.
    assertThat(counting.transactions.get() - before).isEqualTo(2);
    assertThat(schema.number("SELECT count(*) FROM " + schema.table())).isEqualTo(5);
  }

  @Test
  void store_deliveryArrivingWithinTheWindow_joinsTheWritersGroup() throws Exception {
    CountingDataSource counting = new CountingDataSource(pool);
    inbox = builder(counting).writers(1).commitWindow(Duration.ofSeconds(1)).build();
    int before = counting.transactions.get();

    CompletableFuture<List<InboxOutcome>> first =
        inbox.store(List.of(Events.post("w1"))).toCompletableFuture();
    // The writer holds the first and sleeps through its window; the second arrives meanwhile.
    Thread.sleep(200);
    CompletableFuture<List<InboxOutcome>> second =
        inbox.store(List.of(Events.post("w2"))).toCompletableFuture();

    assertThat(first.get(10, TimeUnit.SECONDS)).containsExactly(InboxOutcome.STORED);
    assertThat(second.get(10, TimeUnit.SECONDS)).containsExactly(InboxOutcome.STORED);
    assertThat(counting.transactions.get() - before).isEqualTo(1);
    assertThat(schema.number("SELECT count(*) FROM " + schema.table())).isEqualTo(2);
  }

  @Test
  void store_moreThanAGroupQueued_groupsOfMaxBatchRows() throws Exception {
    CountingDataSource counting = new CountingDataSource(pool);
    inbox =
        builder(counting).writers(1).maxBatchRows(2).commitWindow(Duration.ofSeconds(1)).build();
    int before = counting.transactions.get();

    List<CompletableFuture<List<InboxOutcome>>> answers = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      answers.add(inbox.store(List.of(Events.post("m" + i))).toCompletableFuture());
    }

    for (CompletableFuture<List<InboxOutcome>> answer : answers) {
      assertThat(answer.get(10, TimeUnit.SECONDS)).containsExactly(InboxOutcome.STORED);
    }
    // Two, two and one: no group above maxBatchRows, however long the window.
    assertThat(counting.transactions.get() - before).isEqualTo(3);
    assertThat(schema.number("SELECT count(*) FROM " + schema.table())).isEqualTo(5);
  }

  @Test
  void store_twoInstancesSameEventsInOppositeOrders_eachStoredOnceNoDeadlock() throws Exception {
    // Two instances on one table, each storing the same events at the same moment (a platform
    // retry to the other instance), one in the order the other reversed. Rows locked in opposite
    // orders would deadlock: PostgreSQL would abort one transaction and its delivery fail.
    int events = 2000;
    CountingDataSource first = new CountingDataSource(pool);
    CountingDataSource second = new CountingDataSource(pool);
    Tables tables = new Tables(schema.name, PostgresInbox.DEFAULT_TABLE);
    CountDownLatch bothInserting = new CountDownLatch(2);
    Consumer<String> meet =
        sql -> {
          if (sql.equals(tables.insert) || sql.equals(tables.insertLz4)) {
            bothInserting.countDown();
            try {
              bothInserting.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        };
    first.beforeExecute = meet;
    second.beforeExecute = meet;
    inbox = builder(first).instanceName("first").build();
    List<StoredEvent> forward = new ArrayList<>();
    for (int i = 0; i < events; i++) {
      forward.add(Events.post("o" + i));
    }
    List<StoredEvent> backward = new ArrayList<>(forward);
    Collections.reverse(backward);

    try (PostgresInbox other = builder(second).instanceName("second").build()) {
      CompletableFuture<List<InboxOutcome>> a = inbox.store(forward).toCompletableFuture();
      CompletableFuture<List<InboxOutcome>> b = other.store(backward).toCompletableFuture();

      List<InboxOutcome> outcomesA = a.get(20, TimeUnit.SECONDS);
      List<InboxOutcome> outcomesB = b.get(20, TimeUnit.SECONDS);
      for (int i = 0; i < events; i++) {
        assertThat(List.of(outcomesA.get(i), outcomesB.get(events - 1 - i)))
            .as("event %d stored by one instance, a duplicate at the other", i)
            .containsExactlyInAnyOrder(InboxOutcome.STORED, InboxOutcome.DUPLICATE);
      }
    }
    assertThat(schema.number("SELECT count(*) FROM " + schema.table())).isEqualTo(events);
  }

  @Test
  void store_databaseUnreachable_failsAndStoresNothing() throws Exception {
    PGSimpleDataSource nowhere = new PGSimpleDataSource();
    nowhere.setURL("jdbc:postgresql://127.0.0.1:9/test?user=postgres");
    nowhere.setConnectTimeout(1);
    nowhere.setLoginTimeout(1);
    builder(pool).build().close(); // the tables exist, only the path to them is gone
    inbox = PostgresInbox.builder().dataSource(nowhere).schema(schema.name).build();

    CompletableFuture<List<InboxOutcome>> answer =
        inbox.store(List.of(Events.post("lost"))).toCompletableFuture();

    assertThatThrownBy(() -> answer.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(java.sql.SQLException.class);
    assertThat(schema.number("SELECT count(*) FROM " + schema.table())).isZero();
  }

  @Test
  void store_afterClose_failsAtOnce() throws Exception {
    inbox = builder(pool).build();
    inbox.close();

    assertThat(inbox.store(List.of(Events.post("1"))).toCompletableFuture())
        .isCompletedExceptionally();
  }

  @Test
  void databasePassword_neverInToStringOrTheFailure() throws Exception {
    PGSimpleDataSource guarded = new PGSimpleDataSource();
    guarded.setURL("jdbc:postgresql://127.0.0.1:9/test");
    guarded.setUser("app");
    guarded.setPassword("pw-s3cret-value");
    guarded.setConnectTimeout(1);
    inbox = PostgresInbox.builder().dataSource(guarded).schema(schema.name).build();

    CompletableFuture<List<InboxOutcome>> answer =
        inbox.store(List.of(Events.post("1"))).toCompletableFuture();

    assertThat(answer).failsWithin(Duration.ofSeconds(10));
    Throwable failure = answer.handle((ok, e) -> e).join();
    assertThat(String.valueOf(failure)).doesNotContain("pw-s3cret-value");
    assertThat(inbox.toString()).doesNotContain("pw-s3cret-value");
    assertThat(inbox.admin().toString()).doesNotContain("pw-s3cret-value");
  }
}
