package io.servicehooks.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.core.PayloadFamily;
import io.servicehooks.core.StoredEvent;
import io.servicehooks.postgres.InboxAdmin;
import io.servicehooks.postgres.InboxEntry;
import io.servicehooks.postgres.InboxStatus;
import io.servicehooks.postgres.PostgresInbox;
import io.servicehooks.testsupport.TestDatabase;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code servicehooks inbox ...} in-process against a real PostgreSQL: rows stored through {@link
 * PostgresInbox}, put in each state with plain SQL, then read and changed by the commands.
 */
final class InboxCommandTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PASSWORD = "pw-never-printed-7f3a";

  private TestDatabase.Schema schema;
  private PostgresInbox inbox;
  private InboxAdmin admin;
  private Map<String, String> env;

  @BeforeEach
  void setUp() throws Exception {
    schema = TestDatabase.schema();
    inbox =
        PostgresInbox.builder()
            .dataSource(TestDatabase.dataSource())
            .schema(schema.name)
            .createSchema(true)
            .build();
    admin = inbox.admin();
    env = Map.of(InboxDatabase.URL_VARIABLE, TestDatabase.url());
  }

  @AfterEach
  void tearDown() throws Exception {
    inbox.close();
    schema.close();
  }

  private Cli.Run run(String... args) {
    String[] all = new String[args.length + 2];
    System.arraycopy(args, 0, all, 0, args.length);
    all[args.length] = "--schema";
    all[args.length + 1] = schema.name;
    return Cli.run(env, all);
  }

  private void store(String... ids) throws Exception {
    for (String id : ids) {
      inbox.store(List.of(event(id))).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  private void set(String id, String assignments) throws Exception {
    schema.exec(
        "UPDATE "
            + schema.name
            + ".webhook_inbox SET "
            + assignments
            + " WHERE dedup_key = 'e:"
            + id
            + "'");
  }

  private long idOf(String eventId) throws Exception {
    for (InboxStatus status : InboxStatus.values()) {
      for (InboxEntry e : admin.list(status, 100)) {
        if (e.eventId().equals(eventId)) {
          return e.id();
        }
      }
    }
    throw new AssertionError("no row for " + eventId);
  }

  private static StoredEvent event(String id) {
    String payload = "{\"id\":\"" + id + "\",\"text\":\"hello\"}";
    return new StoredEvent(
        id,
        "e:" + id,
        "post.create",
        "post.create",
        PayloadFamily.ACTIVITY,
        null,
        "t",
        "{\"user_id\":\"9\"}",
        payload,
        "{\"data\":{\"event_uuid\":\""
            + id
            + "\",\"event_type\":\"post.create\",\"payload\":"
            + payload
            + "}}");
  }

  /** Two pending, one done, one dead letter. */
  private void seed() throws Exception {
    store("p1", "p2", "done", "dead");
    set("done", "status = 'done', done_at = now()");
    set(
        "dead",
        "status = 'dead', attempts = 10, last_error = 'java.io.IOException: refused by the CRM'");
  }

  private static int closedPort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  // ---- stats and list ---------------------------------------------------------------------------

  @Test
  void stats_table_countsEachStatus() throws Exception {
    seed();

    Cli.Run run = run("inbox", "stats");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    String[] lines = run.out().split("\\R");
    assertThat(lines[0].split("\\s+")).containsExactly("PENDING", "RUNNING", "DONE", "DEAD", "LAG");
    assertThat(lines[1].split("\\s+")).startsWith("2", "0", "1", "1");
  }

  @Test
  void stats_json_countsAndLag() throws Exception {
    seed();
    set("p1", "due_at = now() - interval '30 seconds'");

    Cli.Run run = run("--json", "inbox", "stats");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    JsonNode stats = JSON.readTree(run.out());
    assertThat(stats.get("pending").asLong()).isEqualTo(2);
    assertThat(stats.get("running").asLong()).isZero();
    assertThat(stats.get("done").asLong()).isEqualTo(1);
    assertThat(stats.get("dead").asLong()).isEqualTo(1);
    assertThat(stats.get("lag_seconds").asDouble()).isBetween(29.0, 60.0);
  }

  @Test
  void list_default_showsDeadLettersWithTheirError() throws Exception {
    seed();

    Cli.Run run = run("inbox", "list");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    String[] lines = run.out().split("\\R");
    assertThat(lines).hasSize(2);
    assertThat(lines[0]).startsWith("ID").contains("EVENT_ID", "ATTEMPTS", "LAST_ERROR");
    assertThat(lines[1])
        .startsWith(Long.toString(idOf("dead")))
        .contains("dead", "post.create", "10", "java.io.IOException: refused by the CRM");
  }

  @Test
  void list_pendingJsonWithLimit_oldestFirst() throws Exception {
    seed();

    Cli.Run run = run("inbox", "list", "--status", "pending", "--limit", "1", "--json");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    JsonNode rows = JSON.readTree(run.out());
    assertThat(rows.isArray()).isTrue();
    assertThat(rows).hasSize(1);
    JsonNode row = rows.get(0);
    assertThat(row.get("id").asLong()).isEqualTo(idOf("p1"));
    assertThat(row.get("event_id").asText()).isEqualTo("p1");
    assertThat(row.get("status").asText()).isEqualTo("pending");
    assertThat(row.get("attempts").asInt()).isZero();
    assertThat(row.has("received_at")).isTrue();
    assertThat(row.get("last_error").isNull()).isTrue();
  }

  @Test
  void list_none_saysSoAndJsonIsEmptyArray() throws Exception {
    store("p1");

    assertThat(run("inbox", "list").out()).contains("No inbox rows in that status.");
    assertThat(JSON.readTree(run("--json", "inbox", "list").out()).isEmpty()).isTrue();
  }

  @Test
  void list_unknownStatusOrBadLimit_exits2() {
    Cli.Run status = run("inbox", "list", "--status", "lost");
    Cli.Run limit = run("inbox", "list", "--limit", "0");

    assertThat(status.exitCode()).as(status.toString()).isEqualTo(2);
    assertThat(status.err()).contains("'lost' is not a status");
    assertThat(limit.exitCode()).as(limit.toString()).isEqualTo(2);
    assertThat(limit.err()).contains("--limit must be at least 1");
  }

  // ---- retry and purge --------------------------------------------------------------------------

  @Test
  void retry_deadRow_becomesPendingWithFreshAttempts() throws Exception {
    seed();
    long id = idOf("dead");

    Cli.Run run = run("inbox", "retry", Long.toString(id));

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out()).contains("Inbox row " + id + " is due now");
    assertThat(admin.list(InboxStatus.DEAD, 10)).isEmpty();
    InboxEntry retried =
        admin.list(InboxStatus.PENDING, 10).stream().filter(e -> e.id() == id).findFirst().get();
    assertThat(retried.attempts()).isZero();
  }

  @Test
  void retry_json_namesTheRow() throws Exception {
    seed();
    long id = idOf("dead");

    Cli.Run run = run("--json", "inbox", "retry", Long.toString(id));

    assertThat(run.exitCode()).as(run.toString()).isZero();
    JsonNode answer = JSON.readTree(run.out());
    assertThat(answer.get("id").asLong()).isEqualTo(id);
    assertThat(answer.get("retried").asBoolean()).isTrue();
  }

  @Test
  void retry_unknownOrDoneId_exits1() throws Exception {
    seed();

    Cli.Run unknown = run("inbox", "retry", "987654321");
    Cli.Run done = run("inbox", "retry", Long.toString(idOf("done")));

    assertThat(unknown.exitCode()).as(unknown.toString()).isEqualTo(1);
    assertThat(unknown.err()).contains("no dead or pending inbox row has id 987654321");
    assertThat(unknown.out()).isEmpty();
    assertThat(done.exitCode()).as(done.toString()).isEqualTo(1);
    assertThat(admin.stats().done()).isEqualTo(1);
  }

  @Test
  void retry_neitherIdNorAllDeadOrBoth_exits2() {
    Cli.Run neither = run("inbox", "retry");
    Cli.Run both = run("inbox", "retry", "1", "--all-dead");

    assertThat(neither.exitCode()).as(neither.toString()).isEqualTo(2);
    assertThat(neither.err()).contains("give either a row ID or --all-dead");
    assertThat(both.exitCode()).as(both.toString()).isEqualTo(2);
  }

  @Test
  void retryAllDead_everyDeadLetterPending() throws Exception {
    seed();
    store("dead2");
    set("dead2", "status = 'dead'");

    Cli.Run text = run("inbox", "retry", "--all-dead");

    assertThat(text.exitCode()).as(text.toString()).isZero();
    assertThat(text.out()).contains("2 dead letters are due now.");
    assertThat(admin.stats().dead()).isZero();
    assertThat(admin.stats().pending()).isEqualTo(4);
    Cli.Run json = run("--json", "inbox", "retry", "--all-dead");
    assertThat(JSON.readTree(json.out()).get("retried").asInt()).isZero();
  }

  @Test
  void purge_removesOldDoneRowsOnly() throws Exception {
    seed();
    store("old1", "old2", "recent");
    set("old1", "status = 'done', done_at = now() - interval '25 hours'");
    set("old2", "status = 'done', done_at = now() - interval '3 days'");
    set("recent", "status = 'done', done_at = now() - interval '1 hour'");
    set("dead", "received_at = now() - interval '30 days'");

    Cli.Run run = run("--json", "inbox", "purge");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(JSON.readTree(run.out()).get("purged").asInt()).isEqualTo(2);
    assertThat(admin.stats().done()).isEqualTo(2);
    assertThat(admin.stats().dead()).isEqualTo(1);
    assertThat(admin.stats().pending()).isEqualTo(2);
    Cli.Run again = run("inbox", "purge");
    assertThat(again.out()).contains("Purged 0 done rows");
  }

  // ---- the database -----------------------------------------------------------------------------

  @Test
  void database_unreachable_oneLineExit1WithoutPassword() throws Exception {
    int port = closedPort();
    env =
        Map.of(
            InboxDatabase.URL_VARIABLE,
            "jdbc:postgresql://127.0.0.1:" + port + "/test",
            InboxDatabase.USER_VARIABLE,
            "servicehooks",
            InboxDatabase.PASSWORD_VARIABLE,
            PASSWORD);
    long start = System.nanoTime();

    Cli.Run run = run("inbox", "stats");

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
    assertThat(run.err().strip().lines()).hasSize(1);
    assertThat(run.err())
        .startsWith("error: cannot reach the inbox database at 127.0.0.1:" + port + "/test")
        .doesNotContain(PASSWORD)
        .doesNotContain("\tat ");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void database_noInboxTable_exit1NamingIt() throws Exception {
    try (TestDatabase.Schema empty = TestDatabase.schema()) {
      Cli.Run run = Cli.run(env, "inbox", "stats", "--schema", empty.name);

      assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
      assertThat(run.err())
          .startsWith("error: the inbox database refused the call")
          .contains(empty.name + ".webhook_inbox", "does not exist");
      assertThat(run.err().strip().lines()).hasSize(1);
    }
  }

  @Test
  void jdbcUrlFlag_overridesTheEnvironment() throws Exception {
    seed();
    env = Map.of(InboxDatabase.URL_VARIABLE, "jdbc:postgresql://127.0.0.1:" + closedPort() + "/x");

    Cli.Run run = run("inbox", "stats", "--json", "--jdbc-url", TestDatabase.url());

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(JSON.readTree(run.out()).get("dead").asLong()).isEqualTo(1);
  }

  @Test
  void database_missingOrNotPostgres_exits2() {
    Cli.Run missing = Cli.run(Map.of(), "inbox", "stats");
    Cli.Run other = Cli.run(Map.of(), "inbox", "stats", "--jdbc-url", "jdbc:mysql://h/db");

    assertThat(missing.exitCode()).as(missing.toString()).isEqualTo(2);
    assertThat(missing.err()).contains("SERVICEHOOKS_JDBC_URL", "--jdbc-url");
    assertThat(other.exitCode()).as(other.toString()).isEqualTo(2);
    assertThat(other.err()).contains("must start with jdbc:postgresql:");
  }

  @Test
  void jdbcUrl_semicolonSeparators_refusedInOneLineWithoutThePassword() {
    Cli.Run run =
        Cli.run(
            Map.of(
                InboxDatabase.URL_VARIABLE,
                "jdbc:postgresql://127.0.0.1:5432/test?user=postgres;password=S3cretPW"),
            "inbox",
            "stats");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
    assertThat(run.err().strip())
        .contains("separates parameters with ';'")
        .doesNotContain("S3cretPW")
        .doesNotContain("\n");
    assertThat(run.out()).doesNotContain("S3cretPW");
  }

  @Test
  void jdbcUrlFlag_withPassword_refusedWithoutEchoingIt() {
    Cli.Run run =
        Cli.run(
            Map.of(),
            "inbox",
            "stats",
            "--jdbc-url",
            "jdbc:postgresql://127.0.0.1/db?user=u&password=" + PASSWORD);

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
    assertThat(run.err())
        .contains("must not carry a password", InboxDatabase.PASSWORD_VARIABLE)
        .doesNotContain(PASSWORD);
  }

  @Test
  void help_inbox_namesCommandsAndEnvironment() {
    Cli.Run root = Cli.run(Map.of(), "--help");
    Cli.Run inboxHelp = Cli.run(Map.of(), "inbox", "--help");

    assertThat(root.out()).contains("inbox", "SERVICEHOOKS_JDBC_URL");
    assertThat(inboxHelp.exitCode()).isZero();
    assertThat(inboxHelp.out())
        .contains("stats", "list", "retry", "purge", "--jdbc-url", "SERVICEHOOKS_JDBC_PASSWORD");
    assertThat(inboxHelp.out()).doesNotContain("--password");
  }
}
