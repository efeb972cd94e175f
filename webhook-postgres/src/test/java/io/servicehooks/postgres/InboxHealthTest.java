package io.servicehooks.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.servicehooks.testsupport.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The inbox's loops meet what they did not expect (an {@code OutOfMemoryError} thrown as the
 * statement is sent) and start over; a thread that is gone anyway shows in {@link
 * PostgresInbox#problem()}.
 */
final class InboxHealthTest {

  private TestDatabase.Schema schema;
  private HikariDataSource pool;
  private PostgresInbox inbox;

  @BeforeEach
  void setUp() throws Exception {
    schema = TestDatabase.schema();
    pool = TestDatabase.pool(8);
    PostgresInbox.builder().dataSource(pool).schema(schema.name).createSchema(true).build().close();
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
    return PostgresInbox.builder()
        .dataSource(ds)
        .schema(schema.name)
        .pollInterval(Duration.ofMillis(20))
        .maxPollInterval(Duration.ofMillis(100))
        .drainTimeout(Duration.ofSeconds(2));
  }

  @Test
  void everyLoop_errorOnce_startsOverAndReportsItAndLaterEventsAreDone() throws Exception {
    CountingDataSource ds = new CountingDataSource(pool);
    // Once each: the writer's insert, the poller's take, the marker's done mark. The poller polls
    // from the start, so its error waits until the writer's has been seen in problem(), which
    // shows the latest failure.
    Set<String> thrown = ConcurrentHashMap.newKeySet();
    AtomicBoolean takeMayFail = new AtomicBoolean();
    ds.beforeExecute =
        sql -> {
          String which =
              sql.startsWith("INSERT INTO")
                  ? "insert"
                  : sql.startsWith("WITH due")
                      ? (takeMayFail.get() ? "take" : null)
                      : sql.contains("SET status = 'done'") ? "mark" : null;
          if (which != null && thrown.add(which)) {
            throw new OutOfMemoryError("simulated: " + which);
          }
        };
    List<String> handled = new CopyOnWriteArrayList<>();
    inbox = builder(ds).build();
    assertThat(inbox.problem()).isEmpty();
    inbox.start(event -> handled.add(event.id()));

    // The first store meets the writer's error: answered as failed, and the writer goes on.
    assertThat(inbox.store(List.of(Events.post("first"))).toCompletableFuture())
        .failsWithin(Duration.ofSeconds(5));
    assertThat(inbox.problem()).get().asString().contains("writer failed");
    takeMayFail.set(true);
    inbox.store(List.of(Events.post("first"))).toCompletableFuture().get(5, TimeUnit.SECONDS);
    // A row stored pending by another instance goes through the poller's take.
    schema.exec(
        "INSERT INTO "
            + schema.table()
            + " (dedup_key, event_id, event_type, original_type, family, delivery_json)"
            + " VALUES ('e:other', 'other', 'post.create', 'post.create', 'ACTIVITY', '{}')");
    inbox.store(List.of(Events.post("second"))).toCompletableFuture().get(5, TimeUnit.SECONDS);

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(
                        schema.number(
                            "SELECT count(*) FROM " + schema.table() + " WHERE status = 'done'"))
                    .isEqualTo(3));
    assertThat(thrown).containsExactlyInAnyOrder("insert", "take", "mark");
    assertThat(handled).containsExactlyInAnyOrder("first", "other", "second");
    // Recent failures keep it unhealthy for a minute: a loop that keeps failing never looks UP.
    assertThat(inbox.problem()).get().asString().contains("failed: java.lang.OutOfMemoryError");
  }

  @Test
  void markerThreadGone_problemNamesIt() throws Exception {
    inbox = builder(pool).build();
    inbox.start(event -> {});
    assertThat(inbox.problem()).isEmpty();

    inbox.markerThread().interrupt(); // a stop it did not ask for: its loop ends

    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                assertThat(inbox.problem())
                    .get()
                    .asString()
                    .contains("servicehooks-inbox-marker is gone"));
  }
}
