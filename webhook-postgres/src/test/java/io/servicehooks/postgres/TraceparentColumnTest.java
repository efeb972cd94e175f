package io.servicehooks.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.servicehooks.core.PayloadFamily;
import io.servicehooks.core.StoredEvent;
import io.servicehooks.testsupport.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * V4: an event's {@code traceparent} is written with its row and given back to the worker, through
 * the claim statement (rows stored before the workers started) as through the hot path; a row
 * without one reads as none.
 */
final class TraceparentColumnTest {

  private static final String TRACEPARENT =
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  private TestDatabase.Schema schema;
  private HikariDataSource pool;
  private PostgresInbox inbox;

  @BeforeEach
  void setUp() throws Exception {
    schema = TestDatabase.schema();
    pool = TestDatabase.pool(4);
  }

  @AfterEach
  void tearDown() throws Exception {
    if (inbox != null) {
      inbox.close();
    }
    pool.close();
    schema.close();
  }

  private static StoredEvent event(String id) {
    return new StoredEvent(
        id,
        "e:" + id,
        "post.create",
        "post.create",
        PayloadFamily.ACTIVITY,
        null,
        null,
        null,
        "{}",
        "{\"data\":{\"event_uuid\":\"" + id + "\"}}");
  }

  @Test
  void traceparent_storedWithTheRow_givenBackToTheWorker_noneStaysNone() throws Exception {
    inbox =
        PostgresInbox.builder()
            .dataSource(pool)
            .schema(schema.name)
            .createSchema(true)
            .pollInterval(Duration.ofMillis(20))
            .build();
    // Stored before the workers start: no room at insert, so the claim statement reads them back.
    inbox
        .store(List.of(event("traced").withTraceparent(TRACEPARENT), event("untraced")))
        .toCompletableFuture()
        .get(5, TimeUnit.SECONDS);
    assertThat(
            schema.number(
                "SELECT count(*) FROM "
                    + schema.table()
                    + " WHERE traceparent = '"
                    + TRACEPARENT
                    + "' AND event_id = 'traced'"))
        .isEqualTo(1);

    Map<String, String> seen = new ConcurrentHashMap<>();
    inbox.start(e -> seen.put(e.id(), String.valueOf(e.traceparent())));
    // And one through the hot path, taken from memory after its commit.
    inbox
        .store(List.of(event("hot").withTraceparent(TRACEPARENT)))
        .toCompletableFuture()
        .get(5, TimeUnit.SECONDS);

    await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 3);
    assertThat(seen)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("traced", TRACEPARENT, "untraced", "null", "hot", TRACEPARENT));
  }
}
