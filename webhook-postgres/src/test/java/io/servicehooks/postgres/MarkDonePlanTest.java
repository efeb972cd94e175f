package io.servicehooks.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.servicehooks.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The marker's statement finds its rows by primary key, never through the partial due index: every
 * event passes through that index and leaves a dead entry there until vacuum, so a plan that read
 * it would cost more per batch as the table fills (what the first batched version did: its backend
 * took most of a core at 6,000 events/s).
 */
final class MarkDonePlanTest {

  private TestDatabase.Schema schema;
  private HikariDataSource pool;
  private Tables tables;

  @BeforeEach
  void setUp() throws Exception {
    schema = TestDatabase.schema();
    pool = TestDatabase.pool(2);
    tables = new Tables(schema.name, PostgresInbox.DEFAULT_TABLE);
    PostgresInbox.builder().dataSource(pool).schema(schema.name).createSchema(true).build().close();
  }

  @AfterEach
  void tearDown() throws Exception {
    pool.close();
    schema.close();
  }

  @Test
  void markDone_withManyDeadEntriesInTheDueIndex_usesThePrimaryKey() throws Exception {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute("ALTER TABLE " + tables.qualified + " SET (autovacuum_enabled = off)");
      // 20,000 events that ran and are done: each left a dead entry in the due index.
      s.execute(
          "INSERT INTO "
              + tables.qualified
              + " (dedup_key, event_id, event_type, original_type, family, delivery_json, status,"
              + " attempts, leased_by, due_at) SELECT 'k' || g, 'e' || g, 'post.create',"
              + " 'post.create', 'ENVELOPE', '{}', 'running', 1, 'me', now() + interval '1 min'"
              + " FROM generate_series(1, 20000) g");
      s.execute(
          "UPDATE " + tables.qualified + " SET status = 'done', done_at = now(), leased_by = NULL");
      // 100 rows running under this instance's lease, the batch to mark.
      s.execute(
          "UPDATE "
              + tables.qualified
              + " SET status = 'running', leased_by = 'me', done_at = NULL WHERE id > 19900");
      s.execute("ANALYZE " + tables.qualified);
    }
    List<Long> ids = new ArrayList<>();
    for (long id = 19_901; id <= 20_000; id++) {
      ids.add(id);
    }
    Integer[] attempts = new Integer[ids.size()];
    java.util.Arrays.fill(attempts, 1);
    StringBuilder plan = new StringBuilder();
    try (Connection c = pool.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement st = c.prepareStatement("EXPLAIN " + tables.markDone)) {
        st.setArray(1, c.createArrayOf("bigint", ids.toArray()));
        st.setArray(2, c.createArrayOf("integer", attempts));
        st.setString(3, "me");
        try (ResultSet r = st.executeQuery()) {
          while (r.next()) {
            plan.append(r.getString(1)).append('\n');
          }
        }
      }
      int marked = 0;
      try (PreparedStatement st = c.prepareStatement(tables.markDone)) {
        st.setArray(1, c.createArrayOf("bigint", ids.toArray()));
        st.setArray(2, c.createArrayOf("integer", attempts));
        st.setString(3, "me");
        try (ResultSet r = st.executeQuery()) {
          while (r.next()) {
            marked++;
          }
        }
      }
      c.rollback();
      assertThat(marked).isEqualTo(100);
    }
    assertThat(plan.toString())
        .contains("webhook_inbox_pkey")
        .doesNotContain("webhook_inbox_due_idx")
        .doesNotContain("Seq Scan on webhook_inbox");
  }
}
