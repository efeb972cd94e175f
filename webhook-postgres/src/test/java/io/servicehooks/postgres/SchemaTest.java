package io.servicehooks.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.servicehooks.testsupport.TestDatabase;
import java.io.InputStream;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

final class SchemaTest {

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
  void script_shippedInFlywayLayout() throws Exception {
    try (InputStream in =
        getClass()
            .getClassLoader()
            .getResourceAsStream("db/migration/servicehooks/V1__inbox.sql")) {
      assertThat(in).isNotNull();
      String sql = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      assertThat(sql).contains("${schema}.${table}").contains("ON ${schema}.${table} (due_at)");
    }
  }

  @Test
  void createSchema_twiceAndConcurrently_appliesVersionOnceWithItsIndexes() throws Exception {
    String other = schema.name + "_x";
    try {
      CompletableFuture<?> a =
          CompletableFuture.runAsync(
              () ->
                  PostgresInbox.builder()
                      .dataSource(pool)
                      .schema(other)
                      .table("events_in")
                      .createSchema(true)
                      .build()
                      .close());
      CompletableFuture<?> b =
          CompletableFuture.runAsync(
              () ->
                  PostgresInbox.builder()
                      .dataSource(pool)
                      .schema(other)
                      .table("events_in")
                      .createSchema(true)
                      .build()
                      .close());
      a.join();
      b.join();
      InboxAdmin.builder().dataSource(pool).schema(other).table("events_in").build().createSchema();

      assertThat(schema.number("SELECT count(*) FROM " + other + ".events_in_schema_version"))
          .isEqualTo(Migrations.SCRIPTS.size());
      assertThat(
              schema.number(
                  "SELECT count(*) FROM pg_indexes WHERE schemaname = '"
                      + other
                      + "' AND tablename = 'events_in'"))
          .isEqualTo(6); // primary key, dedup key, due, done, dead, body (V3)
    } finally {
      schema.exec("DROP SCHEMA IF EXISTS " + other + " CASCADE");
    }
  }

  @Test
  void flyway_appliesTheShippedScriptWithPlaceholders_andTheInboxWorksOnIt() throws Exception {
    org.flywaydb.core.Flyway.configure()
        .dataSource(pool)
        .locations("classpath:db/migration/servicehooks")
        .schemas(schema.name)
        .placeholders(java.util.Map.of("schema", schema.name, "table", "flyway_inbox"))
        .load()
        .migrate();

    PostgresInbox inbox =
        PostgresInbox.builder().dataSource(pool).schema(schema.name).table("flyway_inbox").build();
    try {
      assertThat(inbox.store(java.util.List.of(Events.post("f"))).toCompletableFuture())
          .succeedsWithin(java.time.Duration.ofSeconds(10))
          .isEqualTo(java.util.List.of(io.servicehooks.core.InboxOutcome.STORED));
    } finally {
      inbox.close();
    }
    assertThat(
            schema.number(
                "SELECT count(*) FROM "
                    + schema.name
                    + ".flyway_schema_history WHERE version IN ('1', '2') AND success"))
        .isEqualTo(2);
    assertThat(
            schema.number(
                "SELECT count(*) FROM pg_class WHERE oid = '"
                    + schema.name
                    + ".flyway_inbox'::regclass AND 'toast_tuple_target=128' = ANY(reloptions)"))
        .isEqualTo(1);
  }

  @Test
  void version2_keepsTheLargeJsonOutOfTheRow_andTheShortColumnsIn() throws Exception {
    PostgresInbox inbox =
        PostgresInbox.builder().dataSource(pool).schema(schema.name).createSchema(true).build();
    try {
      // A 3 KB delivery: over the 2 KB at which PostgreSQL starts moving values out of a row.
      String text = "x".repeat(500) + java.util.UUID.randomUUID() + "y".repeat(1000);
      assertThat(inbox.store(java.util.List.of(Events.post("big", text))).toCompletableFuture())
          .succeedsWithin(java.time.Duration.ofSeconds(10));
    } finally {
      inbox.close();
    }
    String t = schema.table();
    assertThat(
            schema.number(
                "SELECT count(*) FROM pg_attribute WHERE attrelid = '"
                    + t
                    + "'::regclass AND attnum > 0 AND NOT attisdropped AND attstorage = 'm'"))
        .isEqualTo(10);
    assertThat(
            schema.number(
                "SELECT count(*) FROM pg_attribute WHERE attrelid = '"
                    + t
                    + "'::regclass AND attname IN ('payload_json', 'delivery_json', 'last_error')"
                    + " AND attstorage = 'x'"))
        .isEqualTo(3);
    // The row itself holds pointers to the JSON, not the JSON: a few hundred bytes.
    assertThat(schema.number("SELECT pg_column_size(r.*) FROM " + t + " r")).isLessThan(400);
    assertThat(
            schema.number(
                "SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE oid = '"
                    + t
                    + "'::regclass"))
        .isPositive();
    assertThat(schema.number("SELECT length(delivery_json) FROM " + t)).isGreaterThan(1500);
  }

  @Test
  void createSchema_schemaMadeByDba_usesIt() throws Exception {
    PostgresInbox.builder().dataSource(pool).schema(schema.name).createSchema(true).build().close();

    assertThat(schema.number("SELECT count(*) FROM " + schema.table())).isZero();
  }

  @Test
  void build_withoutCreateSchemaOnMissingTables_storeFailsNotBuild() throws Exception {
    PostgresInbox inbox = PostgresInbox.builder().dataSource(pool).schema(schema.name).build();
    try {
      assertThat(inbox.store(java.util.List.of(Events.post("1"))).toCompletableFuture())
          .failsWithin(java.time.Duration.ofSeconds(10));
    } finally {
      inbox.close();
    }
  }

  @Test
  void builder_namesThatAreNotPlainIdentifiers_refusedWithTheValue() {
    assertThatThrownBy(() -> PostgresInbox.builder().schema("public; DROP TABLE x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("public; DROP TABLE x");
    assertThatThrownBy(() -> PostgresInbox.builder().table("Inbox"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> PostgresInbox.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("dataSource");
    assertThatThrownBy(() -> PostgresInbox.builder().maxAttempts(0))
        .hasMessageContaining("maxAttempts");
  }

  @Test
  void builder_reusedAfterBuild_leavesTheBuiltInboxAsItWas() {
    PostgresInbox.Builder builder =
        PostgresInbox.builder()
            .dataSource(pool)
            .schema(schema.name)
            .lease(java.time.Duration.ofSeconds(30))
            .workers(2);
    PostgresInbox first = builder.build();
    try {
      builder.lease(java.time.Duration.ofSeconds(5)).workers(7).onDeadLetter(letter -> {});

      assertThat(first.settings().lease).isEqualTo(java.time.Duration.ofSeconds(30));
      assertThat(first.settings().workers).isEqualTo(2);
      assertThat(first.settings().deadLetterListeners).isEmpty();
    } finally {
      first.close();
    }
  }
}
