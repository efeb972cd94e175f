package io.servicehooks.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.fleet.Fleet.Answer;
import io.servicehooks.kafkabroker.KafkaBrokerProcess;
import io.servicehooks.testkit.Events;
import io.servicehooks.testsupport.JarProcesses;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The store's work per event, and the fleet's events per second, for one and two consumer jars on
 * one Redis and on one PostgreSQL: the figures the capacity model ({@code docs/capacity.md}) is
 * checked against.
 *
 * <p>Each cell starts its instances (the benchmark's JVM options, not the fleet's small ones),
 * warms them, reads the store's counters, sends {@code events} new events from {@code concurrency}
 * requests in flight (event {@code i} to instance {@code 1 + i % instances}, each once), waits
 * until every event ran (durable: every row done), reads the counters again and prints the
 * differences per event: Redis commands, bytes in and out, and CPU ({@code INFO}); PostgreSQL rows
 * per table ({@code pg_stat_user_tables}), commits, WAL bytes ({@code pg_current_wal_lsn()}), WAL
 * records, full-page images, writes and fsyncs ({@code pg_stat_wal}) and CPU; the consumers' and
 * this JVM's CPU (the load generator's); the load average. The fleet's PostgreSQL runs here with
 * {@code fsync} and {@code full_page_writes} on, PostgreSQL's defaults, so its fsyncs are a
 * production server's.
 *
 * <p>The default run is short (CI): 600 events per cell, one instance per store, no warm-up and no
 * idle window, and asserts what holds at any load: every event answered 2xx and run exactly once,
 * and the store's work per event within the model's bounds. The measurement run, {@code
 * -Dfleet.capacity.events=20000}, adds the cells of two instances (on one machine they share its
 * cores, so they say something only beside the one-instance cells of the same run); its report is
 * printed and written to {@code target/fleet/capacity/capacity.md}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
final class CapacityFleetIT {

  private static final int EVENTS = Integer.getInteger("fleet.capacity.events", 600);
  private static final boolean MEASURING = System.getProperty("fleet.capacity.events") != null;
  // The short run asserts counts per event, which need neither a warm JIT nor an idle baseline.
  private static final int WARMUP =
      Integer.getInteger("fleet.capacity.warmup", MEASURING ? EVENTS / 2 : 0);
  private static final int CONCURRENCY = Integer.getInteger("fleet.capacity.concurrency", 32);
  private static final int TEXT_CHARS = Integer.getInteger("fleet.capacity.text", 1_200);

  /** The load harness's options (PRESET=stores): the consumer as the benchmarks measure it. */
  private static final List<String> JVM = List.of("-Xms256m", "-Xmx256m");

  private static final long TICKS_PER_SECOND = 100; // USER_HZ on Linux

  private static Fleet fleet;
  private static Stores.Redis redis;
  private static Stores.Postgres postgres;
  private static KafkaBrokerProcess broker; // null without the broker's jar
  private static final int BROKER_PORT = Slot.port(19092);
  private static final int PARTITIONS = 4;
  private static final List<String> report = new ArrayList<>();

  @BeforeAll
  static void startFleet() throws Exception {
    fleet = Fleet.create("capacity", 2);
    redis = new Stores.Redis();
    redis.start();
    postgres = new Stores.Postgres();
    postgres.init(true);
    if (Files.exists(KafkaFleetIT.BROKER_JAR)) {
      broker =
          KafkaBrokerProcess.builder()
              .jar(KafkaFleetIT.BROKER_JAR)
              .directory(Stores.DIR.resolve("kafka"))
              .host(Network.STORE_HOST)
              .port(BROKER_PORT)
              .log(fleet.logs.resolve("broker.log"))
              .jvmOptions("-Xmx384m", "-XX:+UseSerialGC")
              .build()
              .start();
    }
    report.add(
        String.format(
            "capacity cells: %d events each (%d warm-up), %d in flight, bodies of %d bytes, %s",
            EVENTS,
            WARMUP,
            CONCURRENCY,
            body("x-0000000").getBytes(StandardCharsets.UTF_8).length,
            Instant.now()));
  }

  @AfterAll
  static void stopFleet() throws Exception {
    try {
      if (fleet != null) {
        fleet.close();
      }
    } finally {
      try {
        if (broker != null) {
          broker.close();
        }
        if (redis != null) {
          redis.close();
        }
      } finally {
        if (postgres != null) {
          postgres.close();
        }
        if (fleet != null) {
          String text = String.join("\n", report) + "\n";
          System.out.println("Fleet capacity:\n" + text);
          Files.writeString(fleet.logs.resolve("capacity.md"), text);
        }
      }
    }
  }

  @Test
  @Order(1)
  void redisOneInstance_twoCommandsPerEvent() throws Exception {
    Cell c = runRedis(1, true);
    assertThat(c.per("redis.cmd")).as("Redis commands per event").isBetween(1.9, 2.2);
  }

  @Test
  @Order(2)
  void redisTwoInstances_theSameWorkPerEvent() throws Exception {
    twoInstancesMeasuredOnly();
    Cell c = runRedis(2, true);
    assertThat(c.per("redis.cmd")).as("Redis commands per event").isBetween(1.9, 2.2);
  }

  /** No listener for the event: one script ({@code claimDone}) per event. */
  @Test
  @Order(3)
  void redisOneInstanceNoListener_oneCommandPerEvent() throws Exception {
    Cell c = runRedis(1, false);
    assertThat(c.per("redis.cmd")).as("Redis commands per event").isBetween(0.95, 1.2);
  }

  @Test
  @Order(4)
  void durableOneInstance_oneRowPerEvent() throws Exception {
    Cell c = runDurable(1);
    assertThat(c.per("pg.ins.webhook_inbox")).as("inbox rows per event").isEqualTo(1.0);
    assertThat(c.per("pg.wal_bytes")).as("WAL bytes per event").isGreaterThan(0);
  }

  @Test
  @Order(5)
  void durableTwoInstances_oneRowPerEvent() throws Exception {
    twoInstancesMeasuredOnly();
    Cell c = runDurable(2);
    assertThat(c.per("pg.ins.webhook_inbox")).as("inbox rows per event").isEqualTo(1.0);
  }

  /** The Kafka edge: dedup on Redis, then one record per event, answered once acknowledged. */
  @Test
  @Order(6)
  void kafkaEdgeOneInstance_oneRecordPerEvent() throws Exception {
    Cell c = runKafka(1);
    assertThat(c.per("kafka.records")).as("records per event").isEqualTo(1.0);
  }

  @Test
  @Order(7)
  void kafkaEdgeTwoInstances_oneRecordPerEvent() throws Exception {
    twoInstancesMeasuredOnly();
    Cell c = runKafka(2);
    assertThat(c.per("kafka.records")).as("records per event").isEqualTo(1.0);
  }

  private static void twoInstancesMeasuredOnly() {
    Assumptions.assumeTrue(
        MEASURING, "two instances: the measurement run only (-Dfleet.capacity.events)");
  }

  // ---------------------------------------------------------------------------------------------

  private static Cell runKafka(int instances) throws Exception {
    Assumptions.assumeTrue(broker != null, "no " + KafkaFleetIT.BROKER_JAR);
    String name = "kafka-" + instances;
    try (Admin admin = admin()) {
      admin
          .createTopics(List.of(new NewTopic(name, PARTITIONS, (short) 1)))
          .all()
          .get(60, TimeUnit.SECONDS);
    }
    Map<String, String> env = new HashMap<>();
    env.put("REDIS_URL", redis.url());
    env.put("REDIS_PREFIX", "cap:" + name);
    env.put("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers());
    env.put("KAFKA_TOPIC", name);
    Cell cell = new Cell(name, instances, false, false);
    cell.topic = name;
    return run(cell, env);
  }

  private static Admin admin() {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    return Admin.create(p);
  }

  /** The topic's records (the partitions' end offsets) and bytes on the broker's disk. */
  private static Map<String, Double> kafkaCounters(Cell cell) throws Exception {
    Map<String, Double> c = new TreeMap<>();
    if (cell.topic == null) {
      return c;
    }
    c.put("cpu.broker", cpuSeconds(broker.pid(), true));
    try (Admin admin = admin()) {
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      for (int p = 0; p < PARTITIONS; p++) {
        latest.put(new TopicPartition(cell.topic, p), OffsetSpec.latest());
      }
      double records = 0;
      for (var e : admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).values()) {
        records += e.offset();
      }
      c.put("kafka.records", records);
      double bytes = 0;
      for (Map<String, LogDirDescription> dirs :
          admin.describeLogDirs(List.of(1)).allDescriptions().get(30, TimeUnit.SECONDS).values()) {
        for (LogDirDescription d : dirs.values()) {
          for (Map.Entry<TopicPartition, ReplicaInfo> r : d.replicaInfos().entrySet()) {
            if (r.getKey().topic().equals(cell.topic)) {
              bytes += r.getValue().size();
            }
          }
        }
      }
      c.put("kafka.bytes", bytes);
    }
    return c;
  }

  private static Cell runRedis(int instances, boolean listener) throws Exception {
    String name = "redis-" + instances + (listener ? "" : "-nolistener");
    Map<String, String> env = new HashMap<>();
    env.put("REDIS_URL", redis.url());
    env.put("REDIS_PREFIX", "cap:" + name);
    if (!listener) {
      env.put("LOG_EVENTS", "false");
    }
    return run(new Cell(name, instances, listener, false), env);
  }

  private static Cell runDurable(int instances) throws Exception {
    String name = "durable-" + instances;
    Map<String, String> env = new HashMap<>();
    env.put("DATABASE_URL", postgres.url());
    env.put("DATABASE_SCHEMA", "cap" + instances);
    return run(new Cell(name, instances, true, true), env);
  }

  private static Cell run(Cell cell, Map<String, String> env) throws Exception {
    try {
      for (int n = 1; n <= cell.instances; n++) {
        fleet.launch(n, env, JVM);
      }
      for (int n = 1; n <= cell.instances; n++) {
        JarProcesses.awaitHealthy(fleet.instance(n).base(), Duration.ofSeconds(90));
      }
      if (WARMUP > 0) {
        drive(cell, "w" + cell.name, WARMUP);
        awaitRun(cell, "w" + cell.name, WARMUP);
        settle(cell); // the warm-up's statistics reported before the first reading
      }

      // What the instances cost the stores while no event arrives; the measurement run only.
      if (MEASURING) {
        cell.idlePerSecond.putAll(idlePerSecond(cell));
      }

      String load0 = loadAverage();
      Map<String, Double> before = counters(cell);
      long began = System.nanoTime();
      List<Answer> answers = drive(cell, "m" + cell.name, EVENTS);
      double answeredSeconds = (System.nanoTime() - began) / 1e9;
      awaitRun(cell, "m" + cell.name, EVENTS);
      double ranSeconds = (System.nanoTime() - began) / 1e9;
      settle(cell);
      Map<String, Double> after = counters(cell);
      String load1 = loadAverage();

      cell.answeredPerSecond = EVENTS / answeredSeconds;
      cell.ranPerSecond = EVENTS / ranSeconds;
      for (Map.Entry<String, Double> e : after.entrySet()) {
        double d = e.getValue() - before.getOrDefault(e.getKey(), 0.0);
        cell.delta.put(e.getKey(), d);
      }
      cell.load = load0 + " → " + load1;
      report.add(cell.describe());
      System.out.println("FLEET | capacity | " + cell.describe().replace("\n", "\n  "));

      assertThat(answers)
          .as("every delivery answered 2xx")
          .allSatisfy(a -> assertThat(a.ok()).isTrue());
      if (cell.listener) {
        Map<String, Integer> handled = handled("m" + cell.name);
        assertThat(handled).as("every event ran").hasSize(EVENTS);
        assertThat(handled.values()).as("every event ran once").containsOnly(1);
      }
      return cell;
    } finally {
      for (int n = 1; n <= cell.instances; n++) {
        fleet.stop(n);
      }
    }
  }

  /** Sends {@code count} new events, {@link #CONCURRENCY} in flight, to the cell's instances. */
  private static List<Answer> drive(Cell cell, String prefix, int count) throws Exception {
    Semaphore inFlight = new Semaphore(CONCURRENCY);
    List<CompletableFuture<Answer>> answers = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      inFlight.acquire();
      String id = String.format("%s-%07d", prefix, i);
      CompletableFuture<Answer> a = fleet.send(1 + i % cell.instances, id, body(id));
      a.whenComplete((x, e) -> inFlight.release());
      answers.add(a);
    }
    List<Answer> all = new ArrayList<>(count);
    for (CompletableFuture<Answer> a : answers) {
      all.add(a.get(60, TimeUnit.SECONDS));
    }
    return all;
  }

  /** Waits until every event of {@code prefix} ran (durable: and every row is done). */
  private static void awaitRun(Cell cell, String prefix, int count) throws Exception {
    if (cell.listener) {
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> handled(prefix).size() >= count);
    }
    if (cell.durable) {
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  postgres.number(
                          "SELECT count(*) FROM "
                              + schema(cell)
                              + ".webhook_inbox WHERE status <> 'done'")
                      == 0);
    }
  }

  /**
   * Waits until PostgreSQL's statistics hold what the backends did: a backend that goes idle less
   * than a second after its last report holds its counts for up to 10 s more (PostgreSQL 15's
   * PGSTAT_IDLE_INTERVAL), so this waits 11 s, then reads the counters until two readings a second
   * apart agree, at most 15 s more.
   */
  private static void settle(Cell cell) throws Exception {
    if (!cell.durable) {
      return;
    }
    Thread.sleep(11_000); // PostgreSQL's own reporting interval, not the code under test
    Map<String, Double> last = Map.of();
    for (int i = 0; i < 15; i++) {
      Thread.sleep(1_000); // the statistics' own flush interval, not the code under test
      Map<String, Double> now = pgRows(cell);
      if (now.equals(last)) {
        return;
      }
      last = now;
    }
  }

  private static Map<String, Integer> handled(String prefix) throws IOException {
    return fleet.handled().entrySet().stream()
        .filter(e -> e.getKey().startsWith(prefix + "-"))
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
  }

  /**
   * A post.create whose text makes the body about the load harness's 1.5 KB. The text is words of
   * letters drawn from the id's hash, so PostgreSQL cannot compress the stored body (the inbox
   * keeps it out of line, compressed where it can): the WAL and table bytes are an incompressible
   * body's.
   */
  static String body(String id) {
    return Events.activity(
        id,
        "post.create",
        Map.of("user_id", "2244994945"),
        null,
        Map.of(
            "id",
            String.valueOf(Math.abs(id.hashCode())),
            "author_id",
            "783214", // not the subscribed user: its own events would skip the listeners
            "text",
            "capacity " + id + " " + words(id, TEXT_CHARS)));
  }

  private static String words(String seed, int chars) {
    java.util.Random random = new java.util.Random(seed.hashCode());
    StringBuilder b = new StringBuilder(chars);
    while (b.length() < chars) {
      int word = 2 + random.nextInt(9);
      for (int i = 0; i < word; i++) {
        b.append((char) ('a' + random.nextInt(26)));
      }
      b.append(' ');
    }
    return b.substring(0, chars);
  }

  // ---------------------------------------------------------------------------------------------
  // Counters: every figure a cell reads before and after, by name.

  /**
   * Each counter's change per second over a fixed 5 s window with no event arriving: what the
   * instances cost the stores idle (polls, health checks).
   */
  private static Map<String, Double> idlePerSecond(Cell cell) throws Exception {
    Map<String, Double> from = counters(cell);
    Thread.sleep(5_000); // a fixed window of idleness, measured, not awaited
    Map<String, Double> to = counters(cell);
    double seconds = to.get("time") - from.get("time");
    Map<String, Double> perSecond = new TreeMap<>();
    to.forEach((key, value) -> perSecond.put(key, (value - from.getOrDefault(key, 0.0)) / seconds));
    return perSecond;
  }

  private static Map<String, Double> counters(Cell cell) throws Exception {
    Map<String, Double> c = new TreeMap<>();
    c.put("time", System.nanoTime() / 1e9);
    double consumers = 0;
    for (int n = 1; n <= cell.instances; n++) {
      consumers += cpuSeconds(fleet.instance(n).process.pid(), false);
    }
    c.put("cpu.consumers", consumers);
    c.put(
        "cpu.loadgen",
        ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime()
            / 1e9);
    Map<String, String> info = redisInfo();
    c.put(
        "cpu.redis",
        Double.parseDouble(info.getOrDefault("used_cpu_sys", "0"))
            + Double.parseDouble(info.getOrDefault("used_cpu_user", "0")));
    c.put("redis.net_in", Double.parseDouble(info.getOrDefault("total_net_input_bytes", "0")));
    c.put("redis.net_out", Double.parseDouble(info.getOrDefault("total_net_output_bytes", "0")));
    c.put("redis.commands", Double.parseDouble(info.getOrDefault("total_commands_processed", "0")));
    c.put("redis.used_memory", Double.parseDouble(info.getOrDefault("used_memory", "0")));
    c.put("redis.keys", redisKeys(info));
    double scripts = 0;
    for (String cmd : List.of("evalsha", "eval", "evalsha_ro", "eval_ro")) {
      String stats = info.get("cmdstat_" + cmd);
      if (stats != null) {
        double calls = Double.parseDouble(stats.replaceAll("^calls=(\\d+),.*", "$1"));
        c.put("redis." + cmd, calls);
        scripts += calls;
      }
    }
    c.put("redis.cmd", scripts);
    for (String cmd : List.of("set", "get", "pexpire", "del", "ping", "info")) {
      String stats = info.get("cmdstat_" + cmd);
      if (stats != null) {
        c.put(
            "redis.inside." + cmd, Double.parseDouble(stats.replaceAll("^calls=(\\d+),.*", "$1")));
      }
    }
    c.put("cpu.postgres", postgresCpuSeconds());
    c.putAll(pgCounters(cell));
    c.putAll(kafkaCounters(cell));
    return c;
  }

  /** utime + stime of a process, with its reaped children's when {@code children}. */
  private static double cpuSeconds(long pid, boolean children) throws IOException {
    String[] f = statFields(pid);
    if (f.length == 0) {
      return 0;
    }
    long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
    if (children) {
      ticks += Long.parseLong(f[13]) + Long.parseLong(f[14]);
    }
    return ticks / (double) TICKS_PER_SECOND;
  }

  /**
   * The fields of {@code /proc/<pid>/stat} after the command's closing parenthesis (state first).
   */
  private static String[] statFields(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    } catch (IOException e) {
      return new String[0]; // the process ended between the listing and the read
    }
  }

  /** The postmaster with its reaped backends, plus every live child of it. */
  private static double postgresCpuSeconds() throws IOException {
    long postmaster = postgres.pid();
    double total = cpuSeconds(postmaster, true);
    try (var procs = Files.list(Path.of("/proc"))) {
      for (Path p : (Iterable<Path>) procs::iterator) {
        String name = p.getFileName().toString();
        if (!name.chars().allMatch(Character::isDigit)) {
          continue;
        }
        String[] f = statFields(Long.parseLong(name));
        if (f.length > 14 && f[1].equals(String.valueOf(postmaster))) {
          total += cpuSeconds(Long.parseLong(name), false);
        }
      }
    }
    return total;
  }

  /** The keys of every database ({@code db0:keys=12,expires=12,...}). */
  private static double redisKeys(Map<String, String> info) {
    double keys = 0;
    for (Map.Entry<String, String> e : info.entrySet()) {
      if (e.getKey().matches("db\\d+")) {
        keys += Double.parseDouble(e.getValue().replaceAll("^keys=(\\d+),.*", "$1"));
      }
    }
    return keys;
  }

  private static Map<String, String> redisInfo() throws IOException {
    Map<String, String> info = new HashMap<>();
    String out =
        Network.run(
                "redis-cli",
                "-h",
                "127.0.0.1",
                "-p",
                String.valueOf(Stores.REDIS_PORT),
                "info",
                "everything")
            .output();
    for (String line : out.split("\r?\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && !line.startsWith("#")) {
        info.put(line.substring(0, colon), line.substring(colon + 1).strip());
      }
    }
    return info;
  }

  private static Map<String, Double> pgCounters(Cell cell) throws SQLException {
    Map<String, Double> c = new TreeMap<>(pgRows(cell));
    try (Connection conn = pg();
        Statement s = conn.createStatement()) {
      c.putAll(
          row(
              s,
              "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') AS wal_bytes,"
                  + " wal_records, wal_fpi, wal_bytes AS wal_stat_bytes, wal_write, wal_sync,"
                  + " wal_buffers_full FROM pg_stat_wal",
              "pg."));
      c.putAll(
          row(
              s,
              "SELECT xact_commit AS commits, xact_rollback AS rollbacks, tup_returned, tup_fetched"
                  + " FROM pg_stat_database WHERE datname = 'postgres'",
              "pg."));
      c.putAll(
          row(
              s,
              "SELECT checkpoints_timed + checkpoints_req AS checkpoints, buffers_checkpoint,"
                  + " buffers_backend, buffers_backend_fsync FROM pg_stat_bgwriter",
              "pg."));
    }
    return c;
  }

  /** Rows inserted, updated (HOT among them) and deleted, per table of the cell's schema. */
  private static Map<String, Double> pgRows(Cell cell) throws SQLException {
    Map<String, Double> c = new TreeMap<>();
    if (!cell.durable) {
      return c;
    }
    try (Connection conn = pg();
        Statement s = conn.createStatement();
        ResultSet r =
            s.executeQuery(
                "SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del,"
                    + " pg_total_relation_size(relid) FROM"
                    + " pg_stat_user_tables WHERE schemaname = '"
                    + schema(cell)
                    + "'")) {
      while (r.next()) {
        String t = r.getString(1);
        c.put("pg.ins." + t, (double) r.getLong(2));
        c.put("pg.upd." + t, (double) r.getLong(3));
        c.put("pg.hot." + t, (double) r.getLong(4));
        c.put("pg.del." + t, (double) r.getLong(5));
        c.put("pg.size." + t, (double) r.getLong(6));
      }
    }
    return c;
  }

  private static Map<String, Double> row(Statement s, String sql, String prefix)
      throws SQLException {
    Map<String, Double> c = new LinkedHashMap<>();
    try (ResultSet r = s.executeQuery(sql)) {
      r.next();
      ResultSetMetaData m = r.getMetaData();
      for (int i = 1; i <= m.getColumnCount(); i++) {
        c.put(prefix + m.getColumnLabel(i), r.getDouble(i));
      }
    }
    return c;
  }

  private static Connection pg() throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", "postgres");
    p.setProperty("connectTimeout", "3");
    p.setProperty("socketTimeout", "8");
    return DriverManager.getConnection(
        "jdbc:postgresql://127.0.0.1:" + Stores.POSTGRES_PORT + "/postgres", p);
  }

  private static String schema(Cell cell) {
    return "cap" + cell.instances;
  }

  private static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return "?";
    }
  }

  /** One measured cell: its settings and the counters' differences over its measured events. */
  private static final class Cell {
    final String name;
    final int instances;
    final boolean listener;
    final boolean durable;
    String topic; // the Kafka edge's topic, or null
    final Map<String, Double> delta = new TreeMap<>();
    final Map<String, Double> idlePerSecond = new TreeMap<>();
    double answeredPerSecond;
    double ranPerSecond;
    String load = "";

    Cell(String name, int instances, boolean listener, boolean durable) {
      this.name = name;
      this.instances = instances;
      this.listener = listener;
      this.durable = durable;
    }

    /** The counter's difference per measured event. */
    double per(String counter) {
      return delta.getOrDefault(counter, 0.0) / EVENTS;
    }

    String describe() {
      StringBuilder b = new StringBuilder();
      b.append(
          String.format(
              "cell %s: %d instance(s), %d events, answered %.0f/s, ran %.0f/s, load %s%n",
              name, instances, EVENTS, answeredPerSecond, ranPerSecond, load));
      b.append(
          String.format(
              "  CPU µs/event: consumers %.1f, Redis %.1f, PostgreSQL %.1f, load generator %.1f%n",
              per("cpu.consumers") * 1e6,
              per("cpu.redis") * 1e6,
              per("cpu.postgres") * 1e6,
              per("cpu.loadgen") * 1e6));
      if (topic != null) {
        b.append(
            String.format(
                "  Kafka per event: %.3f records, %.0f bytes on the broker's disk, broker CPU %.1f µs%n",
                per("kafka.records"), per("kafka.bytes"), per("cpu.broker") * 1e6));
      }
      if (!durable) {
        b.append(
            String.format(
                "  Redis per event: %.3f scripts (%s), %.3f commands processed, %.0f bytes in,"
                    + " %.0f bytes out, %.3f keys and %.0f bytes of memory kept; inside the"
                    + " scripts: %s%n",
                per("redis.cmd"),
                perList("redis.eval"),
                per("redis.commands"),
                per("redis.net_in"),
                per("redis.net_out"),
                per("redis.keys"),
                per("redis.used_memory"),
                perList("redis.inside.")));
      } else {
        b.append(
            String.format(
                "  PostgreSQL per event: rows %s; %.3f commits, %.0f WAL bytes (pg_stat_wal"
                    + " %.0f), %.2f WAL records, %.3f full-page images, %.3f WAL writes, %.3f WAL"
                    + " fsyncs, %.3f checkpoints%n",
                rows(),
                per("pg.commits"),
                per("pg.wal_bytes"),
                per("pg.wal_stat_bytes"),
                per("pg.wal_records"),
                per("pg.wal_fpi"),
                per("pg.wal_write"),
                per("pg.wal_sync"),
                per("pg.checkpoints")));
      }
      if (!idlePerSecond.isEmpty()) {
        b.append(
            String.format(
                "  idle, per second: Redis %.1f commands, PostgreSQL %.1f commits, %.0f WAL bytes,"
                    + " %.2f WAL fsyncs, consumers' CPU %.1f ms",
                idlePerSecond.getOrDefault("redis.commands", 0.0),
                idlePerSecond.getOrDefault("pg.commits", 0.0),
                idlePerSecond.getOrDefault("pg.wal_bytes", 0.0),
                idlePerSecond.getOrDefault("pg.wal_sync", 0.0),
                idlePerSecond.getOrDefault("cpu.consumers", 0.0) * 1e3));
      }
      return b.toString();
    }

    private String perList(String prefix) {
      return delta.entrySet().stream()
          .filter(e -> e.getKey().startsWith(prefix) && e.getValue() != 0)
          .map(
              e ->
                  String.format(
                      "%s %.3f",
                      e.getKey().substring(e.getKey().lastIndexOf('.') + 1), e.getValue() / EVENTS))
          .collect(Collectors.joining(", "));
    }

    private String rows() {
      List<String> parts = new ArrayList<>();
      for (String kind : List.of("ins", "upd", "hot", "del", "size")) {
        for (Map.Entry<String, Double> e : delta.entrySet()) {
          if (e.getKey().startsWith("pg." + kind + ".") && e.getValue() != 0) {
            parts.add(
                String.format(
                    "%s %s %.3f",
                    e.getKey().substring(("pg." + kind + ".").length()),
                    kind,
                    e.getValue() / EVENTS));
          }
        }
      }
      return parts.isEmpty() ? "none" : String.join(", ", parts);
    }
  }
}
