package io.servicehooks.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.servicehooks.core.PayloadFamily;
import io.servicehooks.core.StoredEvent;
import io.servicehooks.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * V3 (batch bodies stored once) applied to a table made by V1 and V2 that already holds rows: the
 * old rows keep their {@code delivery_json} and run, a new batch keeps its body once, and the purge
 * takes the body with its last row.
 */
final class SchemaUpgradeTest {

  private TestDatabase.Schema schema;
  private HikariDataSource pool;
  private PostgresInbox inbox;

  @BeforeEach
  void setUp() throws Exception {
    schema = TestDatabase.schema();
    pool = TestDatabase.pool(6);
  }

  @AfterEach
  void tearDown() throws Exception {
    if (inbox != null) {
      inbox.close();
    }
    pool.close();
    schema.close();
  }

  /** A table as the previous release left it: V1 and V2 applied and recorded. */
  private void installVersion2() throws Exception {
    Tables tables = new Tables(schema.name, PostgresInbox.DEFAULT_TABLE);
    try (Connection c = TestDatabase.connect();
        Statement s = c.createStatement()) {
      for (String script : List.of("V1__inbox.sql", "V2__inbox_toast.sql")) {
        for (String sql : Migrations.statements(Migrations.load(script), tables)) {
          s.execute(sql);
        }
      }
      s.execute(
          "CREATE TABLE "
              + tables.qualified
              + "_schema_version (version integer PRIMARY KEY, script text NOT NULL,"
              + " applied_at timestamptz NOT NULL DEFAULT now())");
      s.execute(
          "INSERT INTO "
              + tables.qualified
              + "_schema_version (version, script) VALUES (1, 'V1__inbox.sql'),"
              + " (2, 'V2__inbox_toast.sql')");
    }
  }

  private static StoredEvent item(String id, String body) {
    return new StoredEvent(
        id,
        "a:9:favorite_events:" + id,
        "like.create",
        "favorite_events",
        PayloadFamily.ACCOUNT_ACTIVITY,
        "9",
        null,
        null,
        "{\"id\":\"" + id + "\"}",
        body);
  }

  @Test
  void version3_onVersion2TableWithRows_oldRowsRunAndBatchBodyStoredOnceAndPurged()
      throws Exception {
    installVersion2();
    // A row the previous release stored: the whole body in delivery_json, no body_id column yet.
    schema.exec(
        "INSERT INTO "
            + schema.table()
            + " (dedup_key, event_id, event_type, original_type, family, payload_json,"
            + " delivery_json) VALUES ('e:old', 'old', 'post.create', 'post.create', 'ACTIVITY',"
            + " '{\"id\":\"old\"}', '{\"data\":{\"event_uuid\":\"old\"}}')");

    Map<String, String> deliveries = new ConcurrentHashMap<>();
    inbox =
        PostgresInbox.builder()
            .dataSource(pool)
            .schema(schema.name)
            .createSchema(true)
            .pollInterval(Duration.ofMillis(20))
            .maxPollInterval(Duration.ofMillis(100))
            .workers(1) // room for two at insert: the third batch row goes through the poller
            .build();
    assertThat(schema.number("SELECT max(version) FROM " + schema.table() + "_schema_version"))
        .isEqualTo(Migrations.SCRIPTS.size());
    inbox.start(event -> deliveries.put(event.id(), event.deliveryJson()));
    String body =
        "{\"for_user_id\":\"9\",\"favorite_events\":[{\"id\":\"b1\"},{\"id\":\"b2\"},"
            + "{\"id\":\"b3\"}]}";
    inbox
        .store(List.of(item("b1", body), item("b2", body), item("b3", body)))
        .toCompletableFuture()
        .get(5, TimeUnit.SECONDS);

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(
                        schema.number(
                            "SELECT count(*) FROM " + schema.table() + " WHERE status = 'done'"))
                    .isEqualTo(4));
    assertThat(deliveries)
        .containsEntry("old", "{\"data\":{\"event_uuid\":\"old\"}}")
        .containsEntry("b1", body)
        .containsEntry("b2", body)
        .containsEntry("b3", body);
    assertThat(schema.number("SELECT count(*) FROM " + schema.table() + "_body")).isEqualTo(1);
    assertThat(
            schema.number(
                "SELECT count(*) FROM " + schema.table() + " WHERE delivery_json IS NULL"))
        .isEqualTo(3);

    // The same batch again (a platform retry): all duplicates, and no second body left behind.
    inbox
        .store(List.of(item("b1", body), item("b2", body), item("b3", body)))
        .toCompletableFuture()
        .get(5, TimeUnit.SECONDS);
    assertThat(schema.number("SELECT count(*) FROM " + schema.table() + "_body")).isEqualTo(1);

    assertThat(inbox.admin().purge(Duration.ZERO)).isEqualTo(4);
    assertThat(schema.number("SELECT count(*) FROM " + schema.table() + "_body")).isZero();
  }
}
