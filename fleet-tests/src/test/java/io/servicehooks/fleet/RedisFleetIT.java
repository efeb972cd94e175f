package io.servicehooks.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.fleet.Fleet.Answer;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.testkit.DeliveryAttempt;
import io.servicehooks.testkit.PlatformSimulator;
import java.net.InetSocketAddress;
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
 * Three consumer jars in synchronous mode sharing the fleet's own Redis (no persistence), each in
 * its own network namespace; instance 3 reaches Redis through a {@link LatencyProxy}. Each test is
 * one fault while deliveries flow, then the {@link Invariants} row of what happened.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
final class RedisFleetIT {

  /** The dedup lease of the consumer (Deduplicator.DEFAULT_LEASE). */
  private static final long LEASE_MS = 30_000;

  private static Fleet fleet;
  private static Stores.Redis redis;
  private static LatencyProxy slowLink;
  private static final AtomicInteger probes = new AtomicInteger();

  @BeforeAll
  static void startFleet() throws Exception {
    fleet = Fleet.create("redis", 3);
    redis = new Stores.Redis();
    redis.start();
    slowLink =
        new LatencyProxy(
            Network.STORE_HOST,
            Stores.REDIS_PORT + 1,
            List.of(new InetSocketAddress("127.0.0.1", Stores.REDIS_PORT)));
    for (int n = 1; n <= 3; n++) {
      fleet.start(n, env(n));
    }
  }

  private static Map<String, String> env(int n) {
    Map<String, String> env = new HashMap<>();
    env.put(
        "REDIS_URL",
        n == 3 ? "redis://" + Network.STORE_HOST + ":" + slowLink.port() : redis.url());
    env.put("WORKER_THREADS", "4");
    env.put("LISTENER_DELAY_MS", "20");
    return env;
  }

  @AfterAll
  static void stopFleet() throws Exception {
    try {
      if (fleet != null) {
        fleet.close();
      }
    } finally {
      if (slowLink != null) {
        slowLink.close();
      }
      if (redis != null) {
        redis.close();
      }
      if (fleet != null) {
        System.out.println("Fleet invariants (Redis, synchronous mode):\n" + Invariants.table());
        Files.writeString(fleet.logs.resolve("invariants.md"), Invariants.table());
      }
    }
  }

  /**
   * Orphaned claims: a claim sent during a cut reaches Redis when the link returns, after the
   * instance gave up on it. The store releases it then, so the platform's retry runs at once rather
   * than after the 30 s lease.
   */
  @Test
  @Order(1)
  void storeCut_cutInstanceRefusesWithin5s_otherServes_retriesRunBeforeTheLease() throws Exception {
    long[] restoredAt = {0};
    List<Answer> answers =
        Load.run(
            fleet,
            "cut",
            300,
            50,
            2,
            Map.of(
                50,
                () -> fleet.network.cut(1),
                200,
                () -> {
                  fleet.network.restore(1);
                  restoredAt[0] = System.nanoTime();
                }));
    List<Answer> refusedByCut =
        answers.stream().filter(a -> a.instance() == 1 && !a.ok()).collect(Collectors.toList());
    assertThat(refusedByCut).as("the cut instance refused some deliveries").isNotEmpty();
    assertThat(refusedByCut)
        .as("a cut instance answers 503 dedup_unavailable, within 5 s")
        .allSatisfy(
            a -> {
              assertThat(a.status()).isEqualTo(503);
              assertThat(a.millis()).isLessThanOrEqualTo(5_000);
            });
    assertThat(answers.stream().filter(a -> a.instance() == 2))
        .as("the other instance kept serving")
        .allSatisfy(a -> assertThat(a.ok()).as(a.toString()).isTrue());

    long recovery = recovery(1, restoredAt[0]);
    long retriesFrom = System.nanoTime();
    int inFlight = retryUntilAcknowledged(answers, 1, Duration.ofMillis(LEASE_MS / 2));
    long retriesMs = Load.since(retriesFrom);

    Invariants.Row row = new Invariants.Row("store cut 3 s, one of two", "sync, Redis");
    row.from(
        fleet.answers().stream().filter(a -> a.id().startsWith("cut")).toList(), fleet.handled());
    row.recoveryMs = recovery;
    row.recoveryBoundMs = 15_000;
    row.leftover = awaitNoClaims();
    row.notes =
        String.format(
            "cut refusals %d, slowest %d ms; refused events retried on the cut instance all 2xx in"
                + " %d ms (lease %d ms), %d in_flight answers",
            refusedByCut.size(),
            refusedByCut.stream().mapToLong(Answer::millis).max().orElse(0),
            retriesMs,
            LEASE_MS,
            inFlight);
    row.check();
  }

  /**
   * SIGKILL of an instance while its link is cut: its unsent claims may still reach Redis when the
   * link returns (the kernel sends what the dead process wrote), held then by nobody until the
   * lease ends; the platform's retries reach the other instance and succeed at the latest then.
   */
  @Test
  @Order(2)
  void killedWhileCut_otherInstanceRunsTheRetries_withinTheLease() throws Exception {
    fleet.network.cut(1);
    List<CompletableFuture<Answer>> pending = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      pending.add(fleet.send(1, String.format("kill-%04d", i)));
    }
    fleet.instance(1).kill9();
    fleet.network.restore(1);
    long restored = System.nanoTime();
    List<Answer> first = new ArrayList<>();
    for (CompletableFuture<Answer> p : pending) {
      first.add(p.get(20, TimeUnit.SECONDS));
    }
    int inFlight = retryUntilAcknowledged(first, 2, Duration.ofMillis(LEASE_MS + 15_000));
    long recovered = Load.since(restored);
    fleet.start(1, env(1));

    Invariants.Row row = new Invariants.Row("kill -9 while cut", "sync, Redis");
    row.from(
        fleet.answers().stream().filter(a -> a.id().startsWith("kill")).toList(), fleet.handled());
    row.recoveryMs = recovered;
    row.recoveryBoundMs = LEASE_MS + 15_000;
    row.leftover = awaitNoClaims();
    row.notes =
        String.format(
            "20 deliveries to the cut instance, %d acknowledged before the kill; every retry 2xx on"
                + " the other instance after %d ms; %d in_flight answers meanwhile (a claim of the"
                + " dead process that reached Redis after the cut would hold for its lease)",
            first.stream().filter(Answer::ok).count(), recovered, inFlight);
    row.check();
  }

  /** The slow store: a proxy adds latency to every packet of instance 3's Redis link. */
  @Test
  @Order(3)
  void slowStore_answersSlowerThen503_neverOver10s_recoversWhenFastAgain() throws Exception {
    slowLink.delay(150);
    List<Answer> slow = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      slow.add(fleet.sendNow(3, String.format("slow-%04d", i)));
    }
    assertThat(slow).allSatisfy(a -> assertThat(a.ok()).as(a.toString()).isTrue());
    slowLink.delay(1_500);
    List<Answer> tooSlow = new ArrayList<>();
    for (int i = 10; i < 20; i++) {
      tooSlow.add(fleet.sendNow(3, String.format("slow-%04d", i)));
    }
    assertThat(tooSlow)
        .as("a store slower than dedupTimeout (2 s): 503 dedup_unavailable")
        .allSatisfy(a -> assertThat(a.status()).as(a.toString()).isEqualTo(503));
    slowLink.delay(0);
    long fast = System.nanoTime();
    long recovery = recovery(3, fast);
    int inFlight = retryUntilAcknowledged(tooSlow, 3, Duration.ofSeconds(20));

    Invariants.Row row = new Invariants.Row("slow store (150 ms, then 1.5 s a way)", "sync, Redis");
    row.from(
        fleet.answers().stream().filter(a -> a.id().startsWith("slow")).toList(), fleet.handled());
    row.recoveryMs = recovery;
    row.recoveryBoundMs = 15_000;
    row.leftover = awaitNoClaims();
    row.notes =
        String.format(
            "150 ms: median %d ms; 1.5 s: every answer 503 in %d-%d ms; %d in_flight on retry",
            median(slow),
            tooSlow.stream().mapToLong(Answer::millis).min().orElse(0),
            tooSlow.stream().mapToLong(Answer::millis).max().orElse(0),
            inFlight);
    row.check();
  }

  /**
   * The platform's retries (docs/protocol.md#deliveries-and-retries) drive the redeliveries: the
   * testkit simulator (schedule compressed to about 16 s) delivers to instance 1 (through a proxy
   * on loopback, since the simulator accepts only loopback http URLs) while it is cut from Redis
   * for 4 s; every refused delivery is retried until it succeeds once the link is back.
   */
  @Test
  @Order(4)
  void platformRetries_whileOneInstanceIsCut_everyEventHandledOnce_noneDropped() throws Exception {
    List<Duration> schedule = new ArrayList<>();
    for (long ms : new long[] {300, 600, 1_000, 2_000, 2_000, 2_000, 2_000, 2_000, 2_000}) {
      schedule.add(Duration.ofMillis(ms));
    }
    try (LatencyProxy balancer =
            new LatencyProxy(
                "127.0.0.1",
                0,
                List.of(new InetSocketAddress(Network.serviceAddress(1), Fleet.PORT)));
        PlatformSimulator platform =
            PlatformSimulator.builder()
                .localMode(true)
                .consumerSecret(Fleet.SECRET)
                .retrySchedule(schedule)
                .deliveryTimeout(Duration.ofSeconds(10))
                .build()
                .start()) {
      WebhookClient.builder()
          .baseUrl(platform.baseUrl())
          .apiCredentials(platform.apiKey(), platform.apiSecret())
          .allowInsecureUrls(true)
          .build()
          .ensureRegistered("http://127.0.0.1:" + balancer.port() + "/webhooks");
      int events = 140;
      for (int i = 0; i < events; i++) {
        if (i == 20) {
          fleet.network.cut(1);
        }
        if (i == 100) {
          fleet.network.restore(1);
        }
        platform.deliver(Fleet.body(String.format("retry-%04d", i)), i % 10 == 0 ? 2 : 1);
        // The platform's pace (20/s); the cut lasts 4 s of it.
        TimeUnit.MILLISECONDS.sleep(50);
      }
      assertThat(platform.awaitIdle(Duration.ofSeconds(60))).isTrue();
      List<DeliveryAttempt> attempts = platform.attempts();
      List<Answer> asAnswers = new ArrayList<>();
      for (DeliveryAttempt a : attempts) {
        java.util.regex.Matcher m =
            java.util.regex.Pattern.compile("retry-\\d{4}").matcher(a.body());
        String id = m.find() ? m.group() : a.body();
        asAnswers.add(new Answer(id, 0, a.status(), a.failure() == null ? "" : a.failure(), 0, 0));
      }
      Map<String, Integer> handled = fleet.handled();
      Set<String> expected = new TreeSet<>();
      for (int i = 0; i < events; i++) {
        expected.add(String.format("retry-%04d", i));
      }
      assertThat(handled.keySet()).containsAll(expected);
      assertThat(platform.droppedEvents()).as("events out of retries").isZero();
      long retries = attempts.stream().filter(a -> a.attempt() > 1).count();
      assertThat(retries).as("the cut made the platform retry").isPositive();

      Invariants.Row row =
          new Invariants.Row("platform retries (compressed schedule) across a cut", "sync, Redis");
      row.from(asAnswers, handled);
      row.slowestMs = -1;
      row.leftover = platform.droppedEvents() + awaitNoClaims();
      row.notes =
          String.format(
              "%d attempts, %d retries, most attempts for one delivery %d, dropped %d",
              attempts.size(),
              retries,
              attempts.stream().mapToInt(DeliveryAttempt::attempt).max().orElse(0),
              platform.droppedEvents());
      row.check();
    }
  }

  /**
   * A Redis restart without persistence: every done mark is gone, so every redelivery of an event
   * handled before the restart runs again. Measured, not prevented: the README says a dedup store
   * needs persistence to match the stakes.
   */
  @Test
  @Order(5)
  void redisRestartWithoutPersistence_loses503sNothing_butEveryDoneMark() throws Exception {
    int events = 100;
    List<Answer> before = new ArrayList<>();
    List<CompletableFuture<Answer>> sent = new ArrayList<>();
    for (int i = 0; i < events; i++) {
      sent.add(fleet.send(1 + i % 2, String.format("restart-%04d", i)));
    }
    for (CompletableFuture<Answer> s : sent) {
      before.add(s.get(20, TimeUnit.SECONDS));
    }
    assertThat(before).allSatisfy(a -> assertThat(a.ok()).isTrue());
    assertThat(redis.info("used_memory")).isNotEmpty();
    long keysBefore = Long.parseLong(dbKeys());

    redis.kill();
    List<Answer> down = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      down.add(fleet.sendNow(1 + i % 2, String.format("restart-down-%04d", i)));
    }
    assertThat(down).allSatisfy(a -> assertThat(a.status()).isEqualTo(503));
    redis.start();
    long started = System.nanoTime();
    long recovery = Math.max(recovery(1, started), recovery(2, started));
    long keysAfter = Long.parseLong(dbKeys());

    // The platform redelivers every event once more (a replay, or retries of lost answers).
    Map<String, Integer> handledBefore = fleet.handled();
    for (int i = 0; i < events; i++) {
      assertThat(fleet.sendNow(2 - i % 2, String.format("restart-%04d", i)).ok()).isTrue();
    }
    retryUntilAcknowledged(down, 1, Duration.ofSeconds(20));
    Map<String, Integer> handled = fleet.handled();
    long ranAgain =
        handled.entrySet().stream()
            .filter(e -> e.getKey().matches("restart-\\d{4}"))
            .filter(e -> e.getValue() > handledBefore.getOrDefault(e.getKey(), 0))
            .count();

    Invariants.Row row = new Invariants.Row("Redis restart, no persistence", "sync, Redis");
    row.from(fleet.answers().stream().filter(a -> a.id().startsWith("restart")).toList(), handled);
    // What a store without persistence promises: nothing. Every mark is lost, as counted here.
    assertThat(ranAgain).as("events run again after the restart").isEqualTo(events);
    row.duplicateBound = events;
    row.recoveryMs = recovery;
    row.recoveryBoundMs = 15_000;
    row.leftover = awaitNoClaims();
    row.notes =
        String.format(
            "keys %d before the restart, %d after; %d of %d events handled before it ran again on"
                + " redelivery; 503 while down in %d ms at most",
            keysBefore,
            keysAfter,
            ranAgain,
            events,
            down.stream().mapToLong(Answer::millis).max().orElse(0));
    row.check();
  }

  /** Milliseconds from {@code fromNanos} to instance {@code n}'s first 2xx on a new event. */
  private static long recovery(int n, long fromNanos) {
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> fleet.sendNow(n, "probe-" + probes.incrementAndGet()).ok());
    return Load.since(fromNanos);
  }

  /**
   * The platform's retries: every event among {@code answers} never acknowledged is sent again to
   * instance {@code n} until acknowledged, within {@code atMost}; the number of {@code in_flight}
   * answers met on the way (a claim nobody works on would keep giving them until its lease ends).
   */
  private static int retryUntilAcknowledged(List<Answer> answers, int n, Duration atMost) {
    Set<String> acked =
        fleet.answers().stream().filter(Answer::ok).map(Answer::id).collect(Collectors.toSet());
    Set<String> todo = new TreeSet<>();
    answers.stream().map(Answer::id).filter(id -> !acked.contains(id)).forEach(todo::add);
    AtomicInteger inFlight = new AtomicInteger();
    await()
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              for (String id : new ArrayList<>(todo)) {
                Answer a = fleet.sendNow(n, id);
                if (a.ok()) {
                  todo.remove(id);
                } else if ("in_flight".equals(a.error())) {
                  inFlight.incrementAndGet();
                }
              }
              return todo.isEmpty();
            });
    return inFlight.get();
  }

  /** Waits up to 10 s for no claim to be left in Redis; the number left. */
  private static long awaitNoClaims() throws Exception {
    try {
      await().atMost(Duration.ofSeconds(10)).until(() -> claims() == 0);
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      // reported as the row's left-over count
    }
    return claims();
  }

  private static long claims() throws Exception {
    String script =
        "local n = 0 for _, k in ipairs(redis.call('KEYS', '*')) do"
            + " if redis.call('TYPE', k).ok == 'string' then local v = redis.call('GET', k)"
            + " if string.sub(v, 1, 2) == 'c:' then n = n + 1 end end end return n";
    return Long.parseLong(
        Network.run(
                "redis-cli",
                "-h",
                "127.0.0.1",
                "-p",
                String.valueOf(Stores.REDIS_PORT),
                "eval",
                script,
                "0")
            .output()
            .replaceAll("[^0-9]", ""));
  }

  private static String dbKeys() throws Exception {
    return Network.run(
            "redis-cli", "-h", "127.0.0.1", "-p", String.valueOf(Stores.REDIS_PORT), "dbsize")
        .output()
        .replaceAll("[^0-9]", "");
  }

  private static long median(List<Answer> answers) {
    long[] ms = answers.stream().mapToLong(Answer::millis).sorted().toArray();
    return ms[ms.length / 2];
  }
}
