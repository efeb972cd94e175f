package io.servicehooks.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.fleet.Fleet.Answer;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Two consumer jars in durable mode ({@code DATABASE_URL}) on the fleet's own PostgreSQL, each in
 * its own network namespace: the database restarted (fast and immediate) under traffic, and one
 * instance cut from it while its workers run. Acknowledged means stored: each event must be handled
 * after its 200, and every row end {@code done}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
final class DurableFleetIT {

  private static final int WORKERS = 2;
  private static final long LEASE_MS = 10_000;
  private static final String TABLE = "servicehooks.webhook_inbox";

  private static Fleet fleet;
  private static Stores.Postgres postgres;
  private static final AtomicInteger probes = new AtomicInteger();

  @BeforeAll
  static void startFleet() throws Exception {
    fleet = Fleet.create("durable", 2);
    postgres = new Stores.Postgres();
    postgres.init();
    for (int n = 1; n <= 2; n++) {
      Map<String, String> env = new HashMap<>();
      env.put("DATABASE_URL", postgres.url());
      env.put("WORKER_THREADS", String.valueOf(WORKERS));
      env.put("LISTENER_DELAY_MS", "20");
      env.put("INBOX_LEASE_MS", String.valueOf(LEASE_MS));
      env.put("INBOX_RETRY_BASE_MS", "200");
      fleet.start(n, env);
    }
  }

  @AfterAll
  static void stopFleet() throws Exception {
    try {
      if (fleet != null) {
        fleet.close();
      }
    } finally {
      if (postgres != null) {
        postgres.close();
      }
      if (fleet != null) {
        System.out.println("Fleet invariants (durable mode):\n" + Invariants.table());
        Files.writeString(fleet.logs.resolve("invariants.md"), Invariants.table());
      }
    }
  }

  /**
   * PostgreSQL restarted twice under 40 deliveries a second: {@code pg_ctl restart -m fast} (a
   * clean shutdown), then {@code -m immediate} (a crash, recovered from the WAL).
   */
  @Test
  @Order(1)
  void postgresRestartFastThenImmediate_every200HandledAfter_allRowsDone() throws Exception {
    long[] restarted = {0, 0};
    List<Answer> answers =
        Load.run(
            fleet,
            "pg",
            400,
            40,
            2,
            Map.of(
                60,
                () -> {
                  postgres.restart("fast");
                  restarted[0] = System.nanoTime();
                },
                220,
                () -> {
                  postgres.restart("immediate");
                  restarted[1] = System.nanoTime();
                }));
    long recovery =
        Math.max(firstOkAfter(answers, restarted[0]), firstOkAfter(answers, restarted[1]));
    retryUntilAcknowledged(answers, Duration.ofSeconds(30));
    Set<String> acked = acknowledged("pg");
    await().atMost(Duration.ofSeconds(60)).until(() -> fleet.handled().keySet().containsAll(acked));

    Invariants.Row row = new Invariants.Row("PostgreSQL restart fast + immediate", "durable");
    // Every row done first: an event whose done mark was lost runs again when its lease ends.
    row.leftover = awaitAllDone();
    row.from(
        fleet.answers().stream().filter(a -> a.id().startsWith("pg")).toList(), fleet.handled());
    // A done mark that fails is retried until the lease ends; an event runs again only
    // if its worker's mark could not land within the lease: at most one per worker per restart.
    row.duplicateBound = 2 * WORKERS * 2;
    row.recoveryMs = recovery;
    row.recoveryBoundMs = 15_000;
    row.notes =
        String.format(
            "refused during the restarts %d (%s)",
            answers.stream().filter(a -> !a.ok()).count(),
            answers.stream()
                .filter(a -> !a.ok())
                .map(Answer::error)
                .distinct()
                .collect(Collectors.joining(", ")));
    row.check();
  }

  /**
   * Done marks lost in a cut: instance 1 is cut from the database for about 5 s while its workers
   * run a backlog. Its marks land once the link returns (within the 10 s lease), so no row is taken
   * again by instance 2 and nothing runs twice; instance 1 refuses new deliveries with 503 within
   * the inbox's 5 s meanwhile, and instance 2 keeps storing.
   */
  @Test
  @Order(2)
  void cutWhileWorkersRun_doneMarksLandAfter_nothingRunsTwice() throws Exception {
    List<CompletableFuture<Answer>> backlog = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      backlog.add(fleet.send(1, String.format("mark-%04d", i)));
    }
    for (CompletableFuture<Answer> a : backlog) {
      assertThat(a.get(20, TimeUnit.SECONDS).ok()).isTrue();
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> fleet.handled().size() > 20);
    fleet.network.cut(1);
    List<CompletableFuture<Answer>> during = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      during.add(fleet.send(1, String.format("mark-cut1-%04d", i)));
      during.add(fleet.send(2, String.format("mark-cut2-%04d", i)));
    }
    List<Answer> duringAnswers = new ArrayList<>();
    for (CompletableFuture<Answer> a : during) {
      duringAnswers.add(a.get(20, TimeUnit.SECONDS));
    }
    fleet.network.restore(1);
    long restored = System.nanoTime();
    assertThat(duringAnswers.stream().filter(a -> a.instance() == 2))
        .as("the other instance kept storing")
        .allSatisfy(a -> assertThat(a.ok()).as(a.toString()).isTrue());
    List<Answer> refused = duringAnswers.stream().filter(a -> !a.ok()).toList();
    assertThat(refused)
        .as("the cut instance: 503 within 6 s")
        .allSatisfy(
            a -> {
              assertThat(a.status()).isEqualTo(503);
              assertThat(a.millis()).isLessThanOrEqualTo(6_000);
            });
    long recovery = recovery(1, restored);
    retryUntilAcknowledged(duringAnswers, Duration.ofSeconds(30));
    Set<String> acked = acknowledged("mark");
    await().atMost(Duration.ofSeconds(60)).until(() -> fleet.handled().keySet().containsAll(acked));

    Invariants.Row row = new Invariants.Row("store cut 5 s while workers run", "durable");
    row.leftover = awaitAllDone();
    row.from(
        fleet.answers().stream().filter(a -> a.id().startsWith("mark")).toList(), fleet.handled());
    row.duplicateBound = 0;
    row.recoveryMs = recovery;
    row.recoveryBoundMs = 15_000;
    row.notes =
        String.format(
            "cut instance refused %d of 10 in %d ms at most",
            refused.size(), refused.stream().mapToLong(Answer::millis).max().orElse(0));
    row.check();
  }

  /**
   * Crash recovery as a new user meets it, with no setting at all (no {@code INBOX_INSTANCE_NAME},
   * the default 60 s lease): listeners of 200 ms on 8 workers, 200 events acknowledged at once,
   * kill -9 while most are not done, and the instance started again alone. Every acknowledged event
   * must be handled within 10 s of the restarted instance's {@code /health/ready}, well before the
   * lease would have let the dead process's rows go.
   */
  @Test
  @Order(3)
  void killedAndRestartedAlone_everyAcknowledgedEventWithin10sOfReady() throws Exception {
    fleet.instance(1).kill9();
    fleet.instance(2).kill9();
    fleet.start(1, crashEnv());
    Map<String, Integer> before = fleet.handled();
    // warmed up: with its listeners' pace known, an instance leases rows at insert far ahead of
    // its workers (a quarter of the lease's worth), as a process that has been running does
    sendAll(1, "alonew", 16);
    await().atMost(Duration.ofSeconds(30)).until(() -> handledSince(before, "alonew") == 16);
    sendAll(1, "alone", 200);
    await().atMost(Duration.ofSeconds(30)).until(() -> handledSince(before, "alone-") >= 20);
    long held = heldBy(1);
    fleet.instance(1).kill9();
    long notDone = postgres.number("SELECT count(*) FROM " + TABLE + " WHERE status <> 'done'");

    long launched = System.nanoTime();
    fleet.launch(1, crashEnv());
    long ready = awaitReady(1);
    Set<String> acked = acknowledged("alone");
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> fleet.handled().keySet().containsAll(acked));
    long sinceReady = Load.since(ready);

    Invariants.Row row = new Invariants.Row("kill -9, restarted alone, no setting", "durable");
    row.leftover = awaitAllDone();
    row.from(
        fleet.answers().stream().filter(a -> a.id().startsWith("alone")).toList(), fleet.handled());
    // What ran at the kill runs again (8 workers), and what had finished but was not marked yet.
    row.duplicateBound = 2 * CRASH_WORKERS;
    row.recoveryMs = sinceReady;
    row.recoveryBoundMs = 10_000;
    row.notes =
        String.format(
            "at the kill: %d not done, %d held by the dead process; every acknowledged event"
                + " handled %d ms after /health/ready (%d ms after the launch); %s",
            notDone, held, sinceReady, Load.since(launched), goneLine(1));
    row.check();
  }

  /**
   * Two instances with no setting; one holds a backlog and is killed: the survivor takes its rows
   * within 10 s of the kill. While both lived nothing ran twice; what ran at the kill may.
   */
  @Test
  @Order(4)
  void twoInstances_oneKilled_survivorTakesItsRowsWithin10s() throws Exception {
    fleet.start(2, crashEnv()); // instance 1 runs since the previous scenario
    Map<String, Integer> before = fleet.handled();
    sendAll(1, "surv", 200);
    await().atMost(Duration.ofSeconds(30)).until(() -> handledSince(before, "surv") >= 20);
    long held = heldBy(1);
    fleet.instance(1).kill9();
    long killed = System.nanoTime();
    Set<String> acked = acknowledged("surv");
    double[] orphaned = {0};
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              orphaned[0] = Math.max(orphaned[0], gauge(2, "webhook_inbox_orphaned"));
              return fleet.handled().keySet().containsAll(acked);
            });
    long sinceKill = Load.since(killed);

    Invariants.Row row = new Invariants.Row("kill -9 one of two, no setting", "durable");
    row.leftover = awaitAllDone();
    row.from(
        fleet.answers().stream().filter(a -> a.id().startsWith("surv")).toList(), fleet.handled());
    row.duplicateBound = 2 * CRASH_WORKERS;
    row.recoveryMs = sinceKill;
    row.recoveryBoundMs = 10_000;
    row.notes =
        String.format(
            "%d rows held by the killed instance (running at the kill, mostly waiting in its"
                + " memory); the survivor handled every acknowledged event %d ms after the kill;"
                + " webhook_inbox_orphaned seen up to %.0f; %s",
            held, sinceKill, orphaned[0], goneLine(2));
    row.check();
  }

  /**
   * A paused process (SIGSTOP) keeps its session, so its lock and its rows: for 15 s the other
   * instance runs none of them; resumed, it runs them itself. Nothing runs twice.
   */
  @Test
  @Order(5)
  void pausedInstance_keepsItsRows_nothingRunsTwice() throws Exception {
    fleet.launch(1, crashEnv());
    awaitReady(1);
    Map<String, Integer> before = fleet.handled();
    sendAll(1, "pause", 100);
    await().atMost(Duration.ofSeconds(30)).until(() -> handledSince(before, "pause") >= 10);
    fleet.instance(1).signal("STOP");
    long held;
    try {
      held = heldBy(1);
      // the other instance's checks run every 2 s: several pass while this one is stopped
      await()
          .during(Duration.ofSeconds(15))
          .atMost(Duration.ofSeconds(20))
          .until(() -> heldBy(1) == held);
    } finally {
      fleet.instance(1).signal("CONT");
    }
    Set<String> acked = acknowledged("pause");
    await().atMost(Duration.ofSeconds(90)).until(() -> fleet.handled().keySet().containsAll(acked));

    Invariants.Row row = new Invariants.Row("SIGSTOP 15 s, then SIGCONT", "durable");
    row.leftover = awaitAllDone();
    row.from(
        fleet.answers().stream().filter(a -> a.id().startsWith("pause")).toList(), fleet.handled());
    row.duplicateBound = 0;
    row.notes =
        String.format(
            "%d rows held by the stopped instance stayed its own for 15 s (the other instance's"
                + " checks ran every 2 s), then ran there once it was resumed",
            held);
    row.check();
  }

  private static final int CRASH_WORKERS = 8;

  /** Rows running under a lease of instance {@code n} (its owner token starts with its pid). */
  private static long heldBy(int n) throws Exception {
    return postgres.number(
        "SELECT count(*) FROM "
            + TABLE
            + " WHERE status = 'running' AND leased_by LIKE '"
            + fleet.instance(n).process.pid()
            + "@%'");
  }

  /** The new user's settings: 8 workers, 200 ms listeners, every inbox setting its default. */
  private static Map<String, String> crashEnv() {
    Map<String, String> env = new HashMap<>();
    env.put("DATABASE_URL", postgres.url());
    env.put("WORKER_THREADS", String.valueOf(CRASH_WORKERS));
    env.put("LISTENER_DELAY_MS", "200");
    return env;
  }

  /** Sends {@code count} deliveries to instance {@code n} at once; all must be acknowledged. */
  private static void sendAll(int n, String prefix, int count) throws Exception {
    List<CompletableFuture<Answer>> sent = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      sent.add(fleet.send(n, String.format("%s-%04d", prefix, i)));
    }
    for (CompletableFuture<Answer> a : sent) {
      assertThat(a.get(30, TimeUnit.SECONDS).ok()).as("acknowledged").isTrue();
    }
  }

  private static long handledSince(Map<String, Integer> before, String prefix) throws Exception {
    return fleet.handled().keySet().stream()
        .filter(id -> id.startsWith(prefix) && !before.containsKey(id))
        .count();
  }

  /** Polls {@code /health/ready} every 50 ms; {@link System#nanoTime} of its first 200. */
  private static long awaitReady(int n) {
    java.net.http.HttpClient client =
        java.net.http.HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    java.net.http.HttpRequest ready =
        java.net.http.HttpRequest.newBuilder(
                java.net.URI.create(fleet.instance(n).base() + "/health/ready"))
            .timeout(Duration.ofSeconds(2))
            .build();
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(50))
        .ignoreExceptions()
        .until(
            () ->
                client
                        .send(ready, java.net.http.HttpResponse.BodyHandlers.discarding())
                        .statusCode()
                    == 200);
    return System.nanoTime();
  }

  /** A gauge's value in instance {@code n}'s {@code /metrics}, 0 when unreadable. */
  private static double gauge(int n, String name) {
    try {
      java.net.http.HttpResponse<String> r =
          java.net.http.HttpClient.newHttpClient()
              .send(
                  java.net.http.HttpRequest.newBuilder(
                          java.net.URI.create(fleet.instance(n).base() + "/metrics"))
                      .timeout(Duration.ofSeconds(2))
                      .build(),
                  java.net.http.HttpResponse.BodyHandlers.ofString());
      for (String line : r.body().lines().toList()) {
        if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
          return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
      }
    } catch (Exception unreadable) {
      // a scrape that failed counts as nothing seen
    }
    return 0;
  }

  /** The inbox's line saying an owner is gone, from instance {@code n}'s log, or a note. */
  private static String goneLine(int n) throws java.io.IOException {
    return Files.readAllLines(fleet.instance(n).log).stream()
        .filter(l -> l.contains("is gone"))
        .reduce((first, second) -> second)
        .map(l -> "log: \"" + l.substring(l.indexOf("Inbox owner")) + "\"")
        .orElse("no line saying an owner is gone");
  }

  /** Milliseconds from {@code fromNanos} to the first 2xx answer of a delivery sent after it. */
  private static long firstOkAfter(List<Answer> answers, long fromNanos) {
    return answers.stream()
        .filter(a -> a.ok() && a.sentNanos() >= fromNanos)
        .mapToLong(a -> (a.sentNanos() - fromNanos) / 1_000_000 + a.millis())
        .min()
        .orElse(Long.MAX_VALUE);
  }

  private static long recovery(int n, long fromNanos) {
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> fleet.sendNow(n, "probe-" + probes.incrementAndGet()).ok());
    return Load.since(fromNanos);
  }

  private static Set<String> acknowledged(String prefix) {
    return fleet.answers().stream()
        .filter(a -> a.ok() && a.id().startsWith(prefix))
        .map(Answer::id)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** The platform's retries of what was never acknowledged, alternating instances. */
  private static void retryUntilAcknowledged(List<Answer> answers, Duration atMost) {
    Set<String> acked =
        fleet.answers().stream().filter(Answer::ok).map(Answer::id).collect(Collectors.toSet());
    Set<String> todo = new TreeSet<>();
    answers.stream().map(Answer::id).filter(id -> !acked.contains(id)).forEach(todo::add);
    AtomicInteger turn = new AtomicInteger();
    await()
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              for (String id : new ArrayList<>(todo)) {
                if (fleet.sendNow(1 + turn.getAndIncrement() % 2, id).ok()) {
                  todo.remove(id);
                }
              }
              return todo.isEmpty();
            });
  }

  /** Waits up to 60 s for every row to be done; the number of rows pending, running or dead. */
  private static long awaitAllDone() throws Exception {
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  postgres.number("SELECT count(*) FROM " + TABLE + " WHERE status <> 'done'")
                      == 0);
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      // reported as the row's left-over count
    }
    return postgres.number("SELECT count(*) FROM " + TABLE + " WHERE status <> 'done'");
  }
}
