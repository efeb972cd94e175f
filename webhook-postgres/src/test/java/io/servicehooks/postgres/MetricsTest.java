package io.servicehooks.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.servicehooks.testsupport.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The gauges read the table through one periodic query; the counters are in WorkersTest. */
final class MetricsTest {

  private TestDatabase.Schema schema;
  private HikariDataSource pool;

  @BeforeEach
  void setUp() throws Exception {
    schema = TestDatabase.schema();
    pool = TestDatabase.pool(4);
  }

  @AfterEach
  void tearDown() throws Exception {
    pool.close();
    schema.close();
  }

  @Test
  void gauges_pendingDeadAndLagFromTheTable() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    CountingDataSource counting = new CountingDataSource(pool);
    PostgresInbox inbox =
        PostgresInbox.builder()
            .dataSource(counting)
            .schema(schema.name)
            .createSchema(true)
            .meterRegistry(registry)
            .gaugeInterval(Duration.ofMillis(100))
            .build();
    try {
      for (String id : List.of("a", "b", "c", "d")) {
        inbox.store(List.of(Events.post(id))).toCompletableFuture().get(10, TimeUnit.SECONDS);
      }
      String t = schema.table();
      schema.exec(
          "UPDATE " + t + " SET due_at = now() - interval '90 seconds' WHERE event_id = 'a'");
      schema.exec("UPDATE " + t + " SET status = 'dead' WHERE event_id = 'b'");
      schema.exec("UPDATE " + t + " SET due_at = now() + interval '1 hour' WHERE event_id = 'c'");
      schema.exec("UPDATE " + t + " SET status = 'done', done_at = now() WHERE event_id = 'd'");

      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () -> {
                assertThat(registry.get("webhook.inbox.pending").gauge().value()).isEqualTo(2);
                assertThat(registry.get("webhook.inbox.dead").gauge().value()).isEqualTo(1);
                assertThat(registry.get("webhook.inbox.lag").gauge().value())
                    .isBetween(89.0, 150.0);
              });
      // A scrape reads the last refresh; it never queries.
      int before = counting.statements.get();
      for (int i = 0; i < 100; i++) {
        registry.get("webhook.inbox.pending").gauge().value();
      }
      assertThat(counting.statements.get() - before).isLessThanOrEqualTo(1);
    } finally {
      inbox.close();
    }
  }

  @Test
  void gauges_byDefault_followTheTableWithinAScrapeInterval() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    PostgresInbox inbox =
        PostgresInbox.builder()
            .dataSource(pool)
            .schema(schema.name)
            .createSchema(true)
            .meterRegistry(registry)
            .build();
    try {
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> registry.get("webhook.inbox.pending").gauge().value() == 0);
      long stored = System.nanoTime();
      for (String id : List.of("a", "b", "c")) {
        inbox.store(List.of(Events.post(id))).toCompletableFuture().get(10, TimeUnit.SECONDS);
      }
      // the docs recommend a 15 s scrape: a scrape then reads values at most 5 s old
      await()
          .atMost(Duration.ofSeconds(12))
          .until(() -> registry.get("webhook.inbox.pending").gauge().value() == 3);
      assertThat(Duration.ofNanos(System.nanoTime() - stored))
          .isLessThanOrEqualTo(Duration.ofSeconds(8));
      assertThat(registry.get("webhook.inbox.orphaned").gauge().value()).isZero();
    } finally {
      inbox.close();
    }
  }
}
