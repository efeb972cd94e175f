package io.servicehooks.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.servicehooks.testsupport.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A row this version cannot turn back into an event (a family it does not know, written by a newer
 * version or by hand) sits among healthy rows: it must become a dead letter with the reason, and
 * the rows taken with it must run.
 */
final class PoisonRowTest {

  private TestDatabase.Schema schema;
  private HikariDataSource pool;
  private PostgresInbox inbox;

  @BeforeEach
  void setUp() throws Exception {
    schema = TestDatabase.schema();
    pool = TestDatabase.pool(6);
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

  private void insert(String id, String family) throws Exception {
    schema.exec(
        "INSERT INTO "
            + schema.table()
            + " (dedup_key, event_id, event_type, original_type, family, payload_json,"
            + " delivery_json) VALUES ('e:"
            + id
            + "', '"
            + id
            + "', 'post.create', 'post.create', '"
            + family
            + "', '{\"id\":\""
            + id
            + "\"}', '{}')");
  }

  @Test
  void take_rowWithUnknownFamily_becomesDeadLetterAndNeighboursRun() throws Exception {
    insert("h1", "ACTIVITY");
    insert("h2", "ACTIVITY");
    insert("poison", "HOLOGRAM");
    insert("h3", "ACTIVITY");
    insert("h4", "ACCOUNT_ACTIVITY");
    insert("h5", "ACTIVITY");
    List<String> handled = new CopyOnWriteArrayList<>();
    inbox =
        PostgresInbox.builder()
            .dataSource(pool)
            .schema(schema.name)
            .pollInterval(Duration.ofMillis(20))
            .maxPollInterval(Duration.ofMillis(100))
            .lease(Duration.ofSeconds(2))
            .build();
    inbox.start(event -> handled.add(event.id()));

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(
                        schema.number(
                            "SELECT count(*) FROM " + schema.table() + " WHERE status = 'done'"))
                    .isEqualTo(5));
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(
                        schema.number(
                            "SELECT count(*) FROM "
                                + schema.table()
                                + " WHERE status = 'dead' AND event_id = 'poison'"
                                + " AND last_error LIKE '%HOLOGRAM%'"))
                    .isEqualTo(1));
    assertThat(handled).containsExactlyInAnyOrder("h1", "h2", "h3", "h4", "h5");
    // Each healthy row ran once: one attempt, not retaken lease after lease.
    assertThat(
            schema.number(
                "SELECT max(attempts) FROM " + schema.table() + " WHERE event_id <> 'poison'"))
        .isEqualTo(1);
    assertThat(inbox.admin().list(InboxStatus.DEAD, 10))
        .singleElement()
        .satisfies(e -> assertThat(e.lastError()).get().asString().contains("cannot be read"));
  }
}
