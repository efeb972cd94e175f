package io.servicehooks.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.servicehooks.core.InboxOutcome;
import io.servicehooks.core.StoredEvent;
import io.servicehooks.testsupport.TestDatabase;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The JSON an event's row moves out of line is compressed with lz4 where the server has it (pglz
 * costs about a fifth of PostgreSQL's CPU per stored event), read back by the server's own {@code
 * pg_column_compression}; a column a DBA gave a compression of its own keeps it.
 */
final class CompressionTest {

  private TestDatabase.Schema schema;
  private HikariDataSource pool;
  private PostgresInbox inbox;

  @BeforeEach
  void setUp() throws Exception {
    schema = TestDatabase.schema();
    pool = TestDatabase.pool(2);
    inbox = PostgresInbox.builder().dataSource(pool).schema(schema.name).createSchema(true).build();
  }

  @AfterEach
  void tearDown() throws Exception {
    inbox.close();
    pool.close();
    schema.close();
  }

  /**
   * A delivery of about 1.4 KB, as the platform sends: its row is over the 2 KB at which rows
   * toast.
   */
  private static StoredEvent event(String id) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; text.length() < 1200; i++) {
      text.append("word").append(i).append(' ');
    }
    return Events.post(id, text.toString());
  }

  private void store(String id) throws Exception {
    inbox.store(List.of(event(id))).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** The method each JSON column of the row was compressed with, "payload/delivery". */
  private String compression(String id) throws SQLException {
    try (Connection c = TestDatabase.connect();
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery(
                "SELECT pg_column_compression(payload_json) || '/' ||"
                    + " pg_column_compression(delivery_json) FROM "
                    + schema.table()
                    + " WHERE event_id = '"
                    + id
                    + "'")) {
      assertThat(r.next()).as("row of %s", id).isTrue();
      return r.getString(1);
    }
  }

  private static boolean serverHasLz4() throws SQLException {
    try (Connection c = TestDatabase.connect();
        Statement s = c.createStatement()) {
      s.execute("SELECT set_config('default_toast_compression', 'lz4', true)");
      return true;
    } catch (SQLException refused) {
      return false;
    }
  }

  @Test
  void storedJson_isCompressedWithLz4_whereTheServerHasIt() throws Exception {
    store("first");
    assertThat(compression("first")).isEqualTo(serverHasLz4() ? "lz4/lz4" : "pglz/pglz");
  }

  @Test
  void aServerThatRefusesTheSetting_storesTheGroupAnyway_andIsAskedOnce() throws Exception {
    // PostgreSQL 15 refuses a compression it was not built with just as one without lz4 refuses
    // lz4 (SQL state 22023): the inbox's statements reach it asking for "zstd" instead.
    AtomicInteger asked = new AtomicInteger();
    DataSource refusing = rewriting(pool, "'lz4'", "'zstd'", asked);
    try (PostgresInbox refused =
        PostgresInbox.builder().dataSource(refusing).schema(schema.name).build()) {
      for (String id : List.of("a", "b", "c")) {
        assertThat(
                refused.store(List.of(event(id))).toCompletableFuture().get(10, TimeUnit.SECONDS))
            .containsExactly(InboxOutcome.STORED);
      }
    }
    assertThat(asked).hasValue(1);
    for (String id : List.of("a", "b", "c")) {
      assertThat(compression(id)).isEqualTo("pglz/pglz");
    }
  }

  /** {@code target}, with {@code from} replaced in every statement prepared through it. */
  private static DataSource rewriting(
      DataSource target, String from, String to, AtomicInteger rewritten) {
    return (DataSource)
        Proxy.newProxyInstance(
            CompressionTest.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              Object result = invoke(target, method, args);
              if (result instanceof Connection c) {
                return Proxy.newProxyInstance(
                    CompressionTest.class.getClassLoader(),
                    new Class<?>[] {Connection.class},
                    (p, m, a) -> {
                      if (m.getName().equals("prepareStatement")
                          && a != null
                          && a[0] instanceof String sql
                          && sql.contains(from)) {
                        rewritten.incrementAndGet();
                        a[0] = sql.replace(from, to);
                      }
                      return invoke(c, m, a);
                    });
              }
              return result;
            });
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Test
  void aColumnsOwnCompression_wins() throws Exception {
    schema.exec(
        "ALTER TABLE " + schema.table() + " ALTER COLUMN payload_json SET COMPRESSION pglz");
    store("own");
    assertThat(compression("own")).isEqualTo(serverHasLz4() ? "pglz/lz4" : "pglz/pglz");
  }
}
