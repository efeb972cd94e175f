package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.core.Acknowledgement;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testkit.TestSigner;
import io.servicehooks.testsupport.DocTables;
import io.servicehooks.testsupport.JarProcesses;
import io.servicehooks.testsupport.Ports;
import io.servicehooks.testsupport.TcpProxy;
import io.servicehooks.testsupport.TestDatabase;
import io.servicehooks.testsupport.TestKafka;
import io.servicehooks.testsupport.TestRedis;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every panel of {@code ops/grafana/servicehooks.json} and every rule of {@code
 * ops/prometheus/alerts.yml} reads metrics and labels the consumer really exposes. The packaged jar
 * runs against the platform simulator in each mode it has (synchronous with catch-up; synchronous
 * with dedup on Redis, the activity stream and a failing listener; durable on PostgreSQL), plus
 * asynchronous acknowledgement in-process (the jar has no switch for it), and is driven until the
 * series appear: a duplicate, a bad signature, a malformed body, a refused CRC, a failing listener,
 * dead letters, a stream drop, a catch-up with downtime beyond the replay reach, and Redis and
 * PostgreSQL each cut away behind a {@link TcpProxy}. Then every expression is read with {@link
 * PromQl} and the test names each panel or alert whose metric, label or label value is in no
 * scrape. A value in a regular expression ({@code outcome=~"error|timeout"}) that no scrape showed
 * passes only when another alternative was seen and the metrics reference documents it.
 */
final class DashboardMetricsIT {

  private static final Path JAR = Path.of("target/servicehooks-consumer.jar");
  private static final String SECRET = "dashboard-metrics-it-consumer-secret-0123";
  private static final Set<String> TARGET_LABELS = Set.of("job", "instance");
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private static final Pattern SAMPLE =
      Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})?\\s+(\\S+)");
  private static final Pattern LABEL =
      Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");
  private static final Pattern LABEL_VALUES =
      Pattern.compile("^\\s*label_values\\((.*),\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*\\)\\s*$");

  @RegisterExtension final JarProcesses jars = new JarProcesses(JAR);

  /** Metric name to the label sets seen, over every scrape. */
  private final Map<String, List<Map<String, String>>> series = new TreeMap<>();

  /** Metric name to the scrapes (modes) it was seen in. */
  private final Map<String, Set<String>> seenIn = new TreeMap<>();

  @Test
  void everyPanelAndAlert_readsMetricsAndLabelsTheConsumerExposes(@TempDir Path dir)
      throws Exception {
    try (PlatformSimulator simulator =
            PlatformSimulator.builder().consumerSecret(SECRET).localMode(true).build().start();
        TestRedis redis = TestRedis.shared();
        TestDatabase.Schema schema = TestDatabase.schemaToBeCreated()) {
      synchronousWithCatchUp(simulator, dir);
      synchronousOnRedisWithStreamAndFailingListener(simulator, redis, dir);
      durable(schema, dir);
      asynchronousInProcess();
      kafkaInProcess();
    }

    List<String> problems = new ArrayList<>();
    var dashboard = OpsFiles.dashboard();
    for (OpsFiles.Query q : OpsFiles.panelQueries(dashboard)) {
      check(q.where(), q.expr(), problems);
    }
    for (OpsFiles.Query q : OpsFiles.variableQueries(dashboard)) {
      Matcher m = LABEL_VALUES.matcher(q.expr());
      assertThat(m.matches()).as(q.where() + " is label_values(selector, label)").isTrue();
      check(q.where(), m.group(1), problems);
      if (!TARGET_LABELS.contains(m.group(2))) {
        problems.add(q.where() + ": label_values of " + m.group(2) + ", not a target label");
      }
    }
    List<OpsFiles.Query> rules = OpsFiles.ruleQueries();
    assertThat(rules).isNotEmpty();
    for (OpsFiles.Query q : rules) {
      check(q.where(), q.expr(), problems);
    }
    System.out.printf(
        "DashboardMetricsIT: %d panel queries and %d alerts checked against %d metric names%n",
        OpsFiles.panelQueries(dashboard).size(), rules.size(), series.size());
    assertThat(problems)
        .as("panels and alerts that read what no scrape showed (metrics seen: %s)", seenIn)
        .isEmpty();
  }

  /**
   * Synchronous, dedup in memory, catch-up on a heartbeat file last written 25 hours ago: the
   * webhook is registered through the simulator (a CRC answered), a replay is asked and the minutes
   * beyond the 24-hour reach are counted unhealable. Deliveries: one, one twice (a duplicate), one
   * with a wrong signature, one malformed, and a CRC check without a token. Serial GC with a small
   * young generation, so that collections (and jvm_gc_pause) happen during start-up already.
   */
  private void synchronousWithCatchUp(PlatformSimulator simulator, Path dir) throws Exception {
    int port = Ports.free();
    Path heartbeat = dir.resolve("heartbeat");
    Files.writeString(
        heartbeat,
        "# servicehooks catch-up state, format 1\nheartbeat="
            + Instant.now().minus(Duration.ofHours(25)).truncatedTo(ChronoUnit.SECONDS)
            + "\n");
    Map<String, String> env = base(port);
    env.put("CATCH_UP", "true");
    env.put("SERVICE_API_BASE_URL", simulator.baseUrl().toString());
    env.put("SERVICE_API_KEY", simulator.apiKey());
    env.put("SERVICE_API_SECRET", simulator.apiSecret());
    env.put("WEBHOOK_URL", "http://127.0.0.1:" + port + "/webhooks");
    env.put("ALLOW_INSECURE_URL", "true");
    env.put("CATCH_UP_FILE", heartbeat.toString());
    Path out = dir.resolve("sync.txt");
    jars.launch().jvm("-XX:+UseSerialGC", "-Xmn2m").env(env).output(out).start();
    JarProcesses.awaitHealthy("http://127.0.0.1:" + port, Duration.ofSeconds(60));
    awaitOrShow(
        out,
        () -> value(port, "webhook_catchup_minutes_unhealable_minutes_total") > 0,
        "unhealable");
    simulator.deliver(event("sync-1"));
    simulator.deliver(event("sync-2"), 2);
    assertThat(simulator.awaitIdle(Duration.ofSeconds(20))).isTrue();
    assertThat(post(port, event("sync-3"), "not-the-consumer-secret-at-all-0123456789"))
        .isEqualTo(401);
    assertThat(post(port, "{\"data\":", SECRET)).isEqualTo(400);
    assertThat(get(port, "/webhooks?crc_token=").statusCode()).isEqualTo(400);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> value(port, "webhook_deliveries_total{outcome=\"duplicate\"}") >= 1);
    scrape("synchronous, catch-up", port);
  }

  /**
   * Synchronous with dedup on Redis behind a proxy, {@code DELIVERY=both} and every listener
   * failing: an event on the stream, a webhook delivery answered 500, the stream dropped (a
   * reconnect), then Redis cut away: a delivery answered 503 dedup_unavailable.
   */
  private void synchronousOnRedisWithStreamAndFailingListener(
      PlatformSimulator simulator, TestRedis redis, Path dir) throws Exception {
    URI redisUri = URI.create(redis.url);
    TcpProxy proxy = new TcpProxy(redisUri.getHost(), redisUri.getPort()).start();
    try {
      int port = Ports.free();
      Map<String, String> env = base(port);
      env.put("DELIVERY", "both");
      env.put("SERVICE_API_BASE_URL", simulator.baseUrl().toString());
      env.put("SERVICE_API_KEY", simulator.apiKey());
      env.put("SERVICE_API_SECRET", simulator.apiSecret());
      env.put("REDIS_URL", "redis://127.0.0.1:" + proxy.port());
      env.put("REDIS_PREFIX", redis.prefix);
      env.put("LISTENER_FAIL", "true");
      Path out = dir.resolve("redis.txt");
      jars.launch().env(env).output(out).start();
      JarProcesses.awaitHealthy("http://127.0.0.1:" + port, Duration.ofSeconds(60));
      await().atMost(Duration.ofSeconds(10)).until(() -> simulator.openStreams().size() == 1);
      simulator.deliverToStream(event("stream-1"));
      awaitOrShow(out, () -> value(port, "webhook_stream_events_total") >= 1, "stream event");
      assertThat(post(port, event("redis-1"), SECRET)).isEqualTo(500);
      simulator.dropStreams();
      awaitOrShow(
          out,
          () ->
              value(port, "webhook_stream_reconnects_total") >= 1
                  && value(port, "webhook_stream_connected") == 1,
          "reconnect");
      proxy.stop();
      assertThat(post(port, event("redis-2"), SECRET)).isEqualTo(503);
      scrape("synchronous, Redis, stream, failing listener", port);
    } finally {
      proxy.start(); // the same port: the store closes as it would in production
    }
  }

  /**
   * Durable on PostgreSQL behind a proxy, every listener failing with two attempts: a delivery
   * stored (and again, a duplicate), retried, dead-lettered; then the database cut away: a delivery
   * answered 503 inbox_unavailable.
   */
  private void durable(TestDatabase.Schema schema, Path dir) throws Exception {
    URI db = TestDatabase.hostAndPort();
    TcpProxy proxy = new TcpProxy(db.getHost(), db.getPort()).start();
    try {
      int port = Ports.free();
      Map<String, String> env = base(port);
      env.put(
          "DATABASE_URL",
          "jdbc:postgresql://127.0.0.1:"
              + proxy.port()
              + db.getRawPath()
              + (db.getRawQuery() == null ? "" : "?" + db.getRawQuery()));
      env.put("DATABASE_SCHEMA", schema.name);
      env.put("LISTENER_FAIL", "true");
      env.put("INBOX_MAX_ATTEMPTS", "2");
      env.put("INBOX_RETRY_BASE_MS", "100");
      Path out = dir.resolve("durable.txt");
      jars.launch().env(env).output(out).start();
      JarProcesses.awaitHealthy("http://127.0.0.1:" + port, Duration.ofSeconds(60));
      assertThat(post(port, event("durable-1"), SECRET)).isEqualTo(200);
      assertThat(post(port, event("durable-1"), SECRET)).isEqualTo(200);
      awaitOrShow(
          out,
          () ->
              value(port, "webhook_inbox_dead_lettered_total") >= 1
                  && value(port, "webhook_inbox_dead") >= 1,
          "dead letter");
      proxy.stop();
      assertThat(post(port, event("durable-2"), SECRET)).isEqualTo(503);
      scrape("durable", port);
    } finally {
      proxy.start();
    }
  }

  /** Asynchronous acknowledgement, in this JVM: the jar has no setting for it. */
  private void asynchronousInProcess() throws Exception {
    try (StandaloneConsumer consumer =
        StandaloneConsumer.start(
            new StandaloneConsumer.Settings(
                List.of(SECRET), "127.0.0.1", 0, "/webhooks", false, false, 1, 2),
            b -> b.acknowledgement(Acknowledgement.ASYNCHRONOUS).onAny(event -> {}))) {
      int port = consumer.port();
      assertThat(post(port, event("async-1"), SECRET)).isEqualTo(200);
      assertThat(post(port, event("async-1"), SECRET)).isEqualTo(200);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> value(port, "webhook_events_total{outcome=\"dispatched\"") >= 1);
      scrape("asynchronous (in-process)", port);
    }
  }

  /**
   * Kafka, in this JVM on a KRaft broker of the test's own: an edge hands a delivery's event to a
   * topic, and a reader ({@code DELIVERY=kafka}) whose listener fails dead-letters it after one
   * attempt. Both are scraped.
   */
  private void kafkaInProcess() throws Exception {
    try (TestKafka kafka = TestKafka.start()) {
      String topic = kafka.newTopic(1);
      Map<String, String> edgeEnv = base(0);
      edgeEnv.put("KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
      edgeEnv.put("KAFKA_TOPIC", topic);
      Map<String, String> readerEnv = new HashMap<>(edgeEnv);
      readerEnv.put("DELIVERY", "kafka");
      readerEnv.put("LISTENER_FAIL", "true");
      readerEnv.put("INBOX_MAX_ATTEMPTS", "1");
      readerEnv.put("KAFKA_GROUP_ID", "dashboard-metrics-it");
      int[] exit = new int[1];
      java.io.PrintStream quiet = new java.io.PrintStream(java.io.OutputStream.nullOutputStream());
      try (ConsumerMain.Running edge =
              ConsumerMain.start(
                  new String[0], edgeEnv, quiet, System.err, ConsumerMain.Listeners.NONE, exit);
          ConsumerMain.Running reader =
              ConsumerMain.start(
                  new String[0], readerEnv, quiet, System.err, ConsumerMain.Listeners.NONE, exit)) {
        assertThat(post(edge.port(), event("kafka-1"), SECRET)).isEqualTo(200);
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    value(
                            reader.port(),
                            "webhook_kafka_records_total{group=\"dashboard-metrics-it\","
                                + "outcome=\"dead_lettered\"")
                        >= 1);
        scrape("kafka edge (in-process)", edge.port());
        scrape("kafka reader (in-process)", reader.port());
      }
    }
  }

  /** Waits up to 30 s for {@code condition}; fails with the consumer's output if it never holds. */
  private static void awaitOrShow(Path output, Callable<Boolean> condition, String what)
      throws IOException {
    try {
      await().atMost(Duration.ofSeconds(30)).until(condition);
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(
          "no " + what + " within 30 s; the consumer's output:\n" + Files.readString(output), e);
    }
  }

  /**
   * The problems of one expression: a metric in no scrape, a label no series of it carries, a value
   * no series showed.
   */
  private void check(String where, String expr, List<String> problems) {
    PromQl.Reads reads;
    try {
      reads = PromQl.read(expr);
    } catch (IllegalArgumentException e) {
      problems.add(where + ": " + e.getMessage());
      return;
    }
    Set<String> labels = new TreeSet<>(TARGET_LABELS);
    for (PromQl.Selector s : reads.selectors()) {
      List<Map<String, String>> seen = series.get(s.metric());
      if (seen == null) {
        problems.add(where + ": metric " + s.metric() + " is in no scrape");
        continue;
      }
      seen.forEach(l -> labels.addAll(l.keySet()));
      for (PromQl.LabelMatcher m : s.matchers()) {
        if (TARGET_LABELS.contains(m.label())) {
          continue; // Prometheus adds them when it scrapes
        }
        Set<String> values = new TreeSet<>();
        seen.stream().map(l -> l.get(m.label())).filter(v -> v != null).forEach(values::add);
        if (values.isEmpty()) {
          problems.add(where + ": " + s.metric() + " has no label " + m.label());
        } else if (m.op().equals("=") && !values.contains(m.value())) {
          problems.add(
              where
                  + ": "
                  + s.metric()
                  + "{"
                  + m.label()
                  + "=\""
                  + m.value()
                  + "\"} in no scrape"
                  + " (seen: "
                  + values
                  + ")");
        } else if (m.op().equals("=~")) {
          List<String> alternatives = PromQl.alternatives(m.value());
          List<String> unseen = alternatives.stream().filter(a -> !values.contains(a)).toList();
          if (!alternatives.isEmpty() && unseen.size() == alternatives.size()) {
            problems.add(
                where
                    + ": "
                    + s.metric()
                    + "{"
                    + m.label()
                    + "=~\""
                    + m.value()
                    + "\"} matches"
                    + " nothing in any scrape (seen: "
                    + values
                    + ")");
          }
          for (String value : unseen) {
            if (!documented(s.metric(), value)) {
              problems.add(
                  where
                      + ": "
                      + s.metric()
                      + "{"
                      + m.label()
                      + "=\""
                      + value
                      + "\"} is in no"
                      + " scrape and not in the metrics reference");
            }
          }
        }
      }
    }
    for (String label : reads.groupingLabels()) {
      if (!labels.contains(label)) {
        problems.add(where + ": groups by " + label + ", which none of its metrics has");
      }
    }
  }

  /** Whether the metrics table names {@code value} in the row of the meter {@code metric} is of. */
  private static boolean documented(String metric, String value) {
    String table = DocTables.read("docs/configuration.md");
    for (String row : table.lines().filter(l -> l.startsWith("| `")).toList()) {
      String first = row.substring(1, row.indexOf('|', 1));
      Matcher code = Pattern.compile("`([a-z0-9_.]+)`").matcher(first);
      while (code.find()) {
        if (metric.startsWith(code.group(1).replace('.', '_'))
            && Pattern.compile("\\b" + Pattern.quote(value) + "\\b").matcher(row).find()) {
          return true;
        }
      }
    }
    return false;
  }

  /** Scrapes {@code /metrics} and adds every series to what was seen. */
  private void scrape(String mode, int port) throws Exception {
    String text = metrics(port);
    for (String line : text.lines().toList()) {
      Matcher m = SAMPLE.matcher(line);
      if (line.startsWith("#") || !m.find()) {
        continue;
      }
      Map<String, String> labels = new LinkedHashMap<>();
      if (m.group(2) != null) {
        Matcher l = LABEL.matcher(m.group(2));
        while (l.find()) {
          labels.put(l.group(1), l.group(2));
        }
      }
      series.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(labels);
      seenIn.computeIfAbsent(m.group(1), k -> new LinkedHashSet<>()).add(mode);
    }
  }

  /** The sum of the samples whose line starts with {@code prefix}, 0 when none. */
  private static double value(int port, String prefix) throws Exception {
    double sum = 0;
    for (String line : metrics(port).lines().toList()) {
      boolean match =
          prefix.contains("{")
              ? line.startsWith(prefix)
              : line.startsWith(prefix + " ") || line.startsWith(prefix + "{");
      if (match) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  private static String metrics(int port) throws IOException, InterruptedException {
    HttpResponse<String> r = get(port, "/metrics");
    assertThat(r.statusCode()).isEqualTo(200);
    return r.body();
  }

  private static Map<String, String> base(int port) {
    Map<String, String> env = new HashMap<>();
    env.put("SERVICE_CONSUMER_SECRET", SECRET);
    env.put("PORT", String.valueOf(port));
    env.put("HOST", "127.0.0.1");
    return env;
  }

  private static String event(String id) {
    return Events.activity(id, "post.create", Map.of("user_id", "2244994945"), null, Map.of());
  }

  private static int post(int port, String body, String secret) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/webhooks"))
            .timeout(Duration.ofSeconds(20))
            .header(TestSigner.SIGNATURE_HEADER, TestSigner.sign(secret, body))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
            .build();
    return CLIENT.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  private static HttpResponse<String> get(int port, String path)
      throws IOException, InterruptedException {
    return CLIENT.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
