package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.postgres.InboxAdmin;
import io.servicehooks.postgres.InboxEntry;
import io.servicehooks.postgres.InboxStatus;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.TestSigner;
import io.servicehooks.testsupport.JarProcesses;
import io.servicehooks.testsupport.Ports;
import io.servicehooks.testsupport.TestDatabase;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The consumer jar in durable mode ({@code DATABASE_URL}) against the real PostgreSQL, at process
 * level: killed with SIGKILL in the middle of a stream and restarted, failing until its dead
 * letters are retried, and run twice on one database.
 *
 * <p>What the listeners did is read from each process's {@code Handled <type> event <id>} lines
 * (written by the inbox's workers once the event's other listeners finished, before the row is
 * marked done; stdout goes straight to a file, so a SIGKILL does not lose a written line). An event
 * can therefore be handled twice only if the kill lands between its line and its done mark: the
 * test reads which rows were not done when the process died, and only those of them the first
 * process handled may run again.
 */
final class DurableCrashIT {

  private static final Path JAR = Path.of("target/servicehooks-consumer.jar");
  private static final String SECRET = "durable-crash-consumer-secret";
  private static final Pattern HANDLED =
      Pattern.compile("Handled post\\.create event (durable-\\d{4})$");
  private static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(2))
          .executor(Executors.newFixedThreadPool(8))
          .build();

  @RegisterExtension final JarProcesses jars = new JarProcesses(JAR);
  private final List<TestDatabase.Schema> schemas = new ArrayList<>();

  @AfterEach
  void stopAndDrop() throws Exception {
    jars.close(); // before the schemas go: a running consumer holds locks in them
    for (TestDatabase.Schema s : schemas) {
      s.close();
    }
  }

  @Test
  void killedMidStreamAndRestarted_handlesEvery200AndRepeatsOnlyThoseRunningAtTheKill(
      @TempDir Path dir) throws Exception {
    long began = System.nanoTime();
    int events = 300;
    int workers = 4;
    TestDatabase.Schema schema = schema();
    int port = Ports.free();
    Map<String, String> env = env(schema, port);
    env.put("LISTENER_DELAY_MS", "50");
    env.put("WORKER_THREADS", String.valueOf(workers));
    // The killed process's taken rows are due again when their lease ends: 2 s, above twice the
    // 50 ms listener, keeps the test short.
    env.put("INBOX_LEASE_MS", "2000");
    Path firstOut = dir.resolve("first.txt");
    Path secondOut = dir.resolve("second.txt");
    Process first = start(firstOut, env);
    JarProcesses.awaitHealthy("http://127.0.0.1:" + port, Duration.ofSeconds(30));

    // A steady stream, one delivery every 10 ms (3 s in all): far faster than four 50 ms
    // listeners, so most events are answered 200 and wait in the inbox when the kill lands.
    Set<String> answered200 = ConcurrentHashMap.newKeySet();
    Set<String> answered200BeforeKill = new TreeSet<>();
    AtomicInteger sent = new AtomicInteger();
    List<CompletableFuture<?>> inFlight = new ArrayList<>();
    ScheduledExecutorService feeder = Executors.newSingleThreadScheduledExecutor();
    try {
      feeder.scheduleAtFixedRate(
          () -> {
            int i = sent.get();
            if (i < events) {
              CompletableFuture<?> f =
                  send(port, i)
                      .thenAccept(
                          status -> {
                            if (status == 200) {
                              answered200.add(id(i));
                            }
                          });
              synchronized (inFlight) {
                inFlight.add(f);
              }
              sent.incrementAndGet();
            }
          },
          0,
          10,
          TimeUnit.MILLISECONDS);

      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> handled(firstOut).size() >= 40 || sent.get() >= events);
      first.destroyForcibly(); // SIGKILL on Linux: no shutdown hook, no drain
      assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
      int sentAtKill = sent.get();
      // Answers that arrived are final; those still in flight die with the connection.
      answered200BeforeKill.addAll(answered200);
      List<String> byFirst = handled(firstOut);
      // Handled by the first process, not marked done when it died: the only events the second
      // may run again. The marker commits behind the workers in batches, so how many these are
      // follows how far it was behind at the kill (more on a loaded machine), not the workers.
      Set<String> unmarkedAtKill = notDone(schema, events);
      unmarkedAtKill.retainAll(byFirst);

      Process second = start(secondOut, env);
      JarProcesses.awaitHealthy("http://127.0.0.1:" + port, Duration.ofSeconds(30));
      await().atMost(Duration.ofSeconds(30)).until(() -> sent.get() >= events);
      feeder.shutdown();
      synchronized (inFlight) {
        CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new))
            .get(30, TimeUnit.SECONDS);
      }
      Set<String> refused = new TreeSet<>(allIds(events));
      refused.removeAll(answered200);
      // The platform retries what was not answered 200: here, once, to the second process.
      for (String id : refused) {
        assertThat(send(port, Integer.parseInt(id.substring("durable-".length()))).get())
            .isEqualTo(200);
        answered200.add(id);
      }

      await()
          .atMost(Duration.ofSeconds(40))
          .until(() -> union(byFirst, handled(secondOut)).containsAll(answered200));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  schema.number("SELECT count(*) FROM " + schema.table() + " WHERE status = 'done'")
                      == events);
      second.destroy(); // SIGTERM: a clean stop, so its output is complete
      assertThat(second.waitFor(30, TimeUnit.SECONDS)).isTrue();
      List<String> bySecond = handled(secondOut);

      assertThat(answered200).as("every event answered 200 at last").isEqualTo(allIds(events));
      assertThat(union(byFirst, bySecond))
          .as("every event answered 200 before the kill is handled by one process or the other")
          .containsAll(answered200BeforeKill);
      assertThat(union(byFirst, bySecond)).isEqualTo(allIds(events));
      assertThat(byFirst).as("the first process handles an event once").doesNotHaveDuplicates();
      assertThat(bySecond).as("the second process handles an event once").doesNotHaveDuplicates();
      assertThat(byFirst).as("the kill landed mid-stream").isNotEmpty();
      assertThat(answered200BeforeKill.size())
          .as("events answered 200 but not handled when the kill landed")
          .isGreaterThan(byFirst.size());
      assertThat(sentAtKill).as("deliveries were still coming at the kill").isLessThan(events);
      assertThat(refused).as("deliveries refused while no process ran").isNotEmpty();

      Set<String> twice = new TreeSet<>(byFirst);
      twice.retainAll(new TreeSet<>(bySecond));
      assertThat(twice)
          .as(
              "events handled twice: their line was written when the kill landed, their done mark not")
          .isSubsetOf(unmarkedAtKill);
      assertThat(
              schema.number("SELECT count(*) FROM " + schema.table() + " WHERE status <> 'done'"))
          .isZero();
      System.out.printf(
          "DurableCrashIT: %d events, %d sent before the kill, %d answered 200 before it of which %d"
              + " handled by the first process, %d refused and sent again, %d handled by the second"
              + " process, %d handled twice %s of %d unmarked at the kill, %.1f s%n",
          events,
          sentAtKill,
          answered200BeforeKill.size(),
          byFirst.size(),
          refused.size(),
          bySecond.size(),
          twice.size(),
          twice,
          unmarkedAtKill.size(),
          (System.nanoTime() - began) / 1e9);
    } finally {
      feeder.shutdownNow();
    }
  }

  @Test
  void failingListener_leavesDeadLettersAfterMaxAttempts_retriedOnceFixed(@TempDir Path dir)
      throws Exception {
    int events = 10;
    TestDatabase.Schema schema = schema();
    int port = Ports.free();
    Map<String, String> failing = env(schema, port);
    failing.put("LISTENER_FAIL", "true");
    failing.put("INBOX_MAX_ATTEMPTS", "3");
    failing.put("INBOX_RETRY_BASE_MS", "100");
    failing.put("WORKER_THREADS", "2");
    Path failingOut = dir.resolve("failing.txt");
    Process first = start(failingOut, failing);
    JarProcesses.awaitHealthy("http://127.0.0.1:" + port, Duration.ofSeconds(30));
    for (int i = 0; i < events; i++) {
      assertThat(send(port, i).get()).isEqualTo(200);
    }
    InboxAdmin admin =
        InboxAdmin.builder().dataSource(TestDatabase.dataSource()).schema(schema.name).build();
    await().atMost(Duration.ofSeconds(20)).until(() -> admin.stats().dead() == events);
    List<InboxEntry> dead = admin.list(InboxStatus.DEAD, 100);
    assertThat(dead).hasSize(events);
    assertThat(dead)
        .allSatisfy(
            e -> {
              assertThat(e.attempts()).isEqualTo(3);
              assertThat(e.lastError()).get().asString().contains("LISTENER_FAIL is set");
            });
    assertThat(handled(failingOut)).isEmpty();
    first.destroy();
    assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();

    // The listener fixed: the same consumer without LISTENER_FAIL, then the dead letters retried.
    Map<String, String> fixed = new HashMap<>(failing);
    fixed.remove("LISTENER_FAIL");
    Path fixedOut = dir.resolve("fixed.txt");
    start(fixedOut, fixed);
    JarProcesses.awaitHealthy("http://127.0.0.1:" + port, Duration.ofSeconds(30));
    assertThat(handled(fixedOut)).as("dead letters wait for a person").isEmpty();
    assertThat(admin.retryAllDead()).isEqualTo(events);
    Set<String> ids = allIds(events);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> new TreeSet<>(handled(fixedOut)).equals(ids));
    await().atMost(Duration.ofSeconds(10)).until(() -> admin.stats().done() == events);
    assertThat(admin.stats().dead()).isZero();
    assertThat(handled(fixedOut)).doesNotHaveDuplicates();
  }

  @Test
  void twoInstancesOnOneDatabase_shareTheWork_eachEventHandledOnce(@TempDir Path dir)
      throws Exception {
    int events = 200;
    TestDatabase.Schema schema = schema();
    int portA = Ports.free();
    int portB = Ports.free();
    Path outA = dir.resolve("a.txt");
    Path outB = dir.resolve("b.txt");
    for (Map.Entry<Integer, Path> instance : Map.of(portA, outA, portB, outB).entrySet()) {
      Map<String, String> env = env(schema, instance.getKey());
      env.put("LISTENER_DELAY_MS", "20");
      env.put("WORKER_THREADS", "2");
      start(instance.getValue(), env);
    }
    JarProcesses.awaitHealthy("http://127.0.0.1:" + portA, Duration.ofSeconds(30));
    JarProcesses.awaitHealthy("http://127.0.0.1:" + portB, Duration.ofSeconds(30));

    // Half the deliveries to each instance, every event twice (a platform retry to the other
    // instance): the inbox's dedup keeps one row per event whichever instance stored it.
    List<CompletableFuture<Integer>> answers = new ArrayList<>();
    for (int i = 0; i < events; i++) {
      answers.add(send(i % 2 == 0 ? portA : portB, i));
      answers.add(send(i % 2 == 0 ? portB : portA, i));
    }
    for (CompletableFuture<Integer> answer : answers) {
      assertThat(answer.get(30, TimeUnit.SECONDS)).isEqualTo(200);
    }
    Set<String> ids = allIds(events);
    await()
        .atMost(Duration.ofSeconds(40))
        .until(() -> union(handled(outA), handled(outB)).equals(ids));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                schema.number("SELECT count(*) FROM " + schema.table() + " WHERE status = 'done'")
                    == events);
    List<String> all = new ArrayList<>(handled(outA));
    all.addAll(handled(outB));
    assertThat(all)
        .as("each event handled once, by one instance")
        .hasSize(events)
        .doesNotHaveDuplicates();
    assertThat(handled(outA)).as("instance A took part").isNotEmpty();
    assertThat(handled(outB)).as("instance B took part").isNotEmpty();
    assertThat(schema.number("SELECT count(*) FROM " + schema.table())).isEqualTo(events);
    System.out.printf(
        "DurableCrashIT: two instances handled %d and %d of %d events%n",
        handled(outA).size(), handled(outB).size(), events);
  }

  private TestDatabase.Schema schema() {
    TestDatabase.Schema schema = TestDatabase.schemaToBeCreated();
    schemas.add(schema);
    return schema;
  }

  private static Map<String, String> env(TestDatabase.Schema schema, int port) {
    Map<String, String> env = new HashMap<>();
    env.put("SERVICE_CONSUMER_SECRET", SECRET);
    env.put("PORT", String.valueOf(port));
    env.put("HOST", "127.0.0.1");
    env.put("DATABASE_URL", TestDatabase.url());
    env.put("DATABASE_SCHEMA", schema.name);
    return env;
  }

  private static String id(int i) {
    return String.format("durable-%04d", i);
  }

  private static Set<String> allIds(int events) {
    Set<String> ids = new TreeSet<>();
    IntStream.range(0, events).forEach(i -> ids.add(id(i)));
    return ids;
  }

  /**
   * The event ids of the rows in {@code schema}'s inbox not done (nor dead), read as an operator
   * would.
   */
  private static Set<String> notDone(TestDatabase.Schema schema, int events) throws SQLException {
    InboxAdmin admin =
        InboxAdmin.builder().dataSource(TestDatabase.dataSource()).schema(schema.name).build();
    Set<String> ids = new TreeSet<>();
    for (InboxStatus status : List.of(InboxStatus.PENDING, InboxStatus.RUNNING)) {
      admin.list(status, events).forEach(entry -> ids.add(entry.eventId()));
    }
    return ids;
  }

  private static Set<String> union(List<String> a, List<String> b) {
    Set<String> all = new TreeSet<>(a);
    all.addAll(b);
    return all;
  }

  /** One signed delivery of event {@code i}; its status, or 0 if the connection failed. */
  private static CompletableFuture<Integer> send(int port, int i) {
    String body =
        Events.activity(
            id(i),
            "post.create",
            Map.of("user_id", "2244994945"),
            null,
            Map.of("id", String.valueOf(1876011300000000000L + i), "text", "durable crash " + i));
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/webhooks"))
            .timeout(Duration.ofSeconds(10))
            .header(TestSigner.SIGNATURE_HEADER, TestSigner.sign(SECRET, body))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
            .build();
    return CLIENT
        .sendAsync(request, HttpResponse.BodyHandlers.discarding())
        .handle((response, failure) -> failure == null ? response.statusCode() : 0);
  }

  /** The event ids of a process's complete {@code Handled} lines, in order, repeats kept. */
  private static List<String> handled(Path output) throws IOException {
    return JarProcesses.matches(output, HANDLED);
  }

  private Process start(Path output, Map<String, String> env) throws IOException {
    return jars.launch().env(env).appendOutput(output).start();
  }
}
