package io.servicehooks.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.fleet.Fleet.Answer;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.testkit.DeliveryAttempt;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testkit.ReplayRequest;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Catch-up across a store outage, with several processes: two consumer jars with {@code
 * CATCH_UP=true} in synchronous mode, dedup and the catch-up heartbeat on the fleet's own Redis,
 * behind one load balancer the testkit simulator delivers to. Both lose their Redis link for longer
 * than the platform's (compressed) retries, so the platform drops the first events of the outage;
 * once the link is back, catch-up replays the refused period and every event is handled once.
 *
 * <p>The simulator runs on the real clock with the platform's retry schedule
 * (docs/protocol.md#deliveries-and-retries) compressed (0.3 s, 0.6 s, 1 s: a delivery refused
 * throughout is dropped about 10 s after its first attempt, each 503 taking the consumer's 2 s
 * {@code dedupTimeout}), and the jars' catch-up with a 1 s heartbeat and a 5 s gap threshold
 * ({@code CATCH_UP_HEARTBEAT_MS}, {@code CATCH_UP_GAP_THRESHOLD_MS}) instead of 30 s and 2 min. The
 * replay window is whole minutes and reaches 2 minutes before the outage, so it carries every event
 * of the test again: those handled already are duplicates in Redis.
 */
final class CatchUpFleetIT {

  private static final Pattern ID = Pattern.compile("catchup-\\d{4}");
  private static final DateTimeFormatter MINUTE =
      DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC);

  private static Fleet fleet;
  private static Stores.Redis redis;
  private static PlatformSimulator platform;
  private static LatencyProxy balancer;
  private static final List<LatencyProxy> apiLinks = new ArrayList<>();

  @BeforeAll
  static void startFleet() throws Exception {
    fleet = Fleet.create("catchup", 2);
    redis = new Stores.Redis();
    redis.start();
    List<Duration> schedule = List.of(ms(300), ms(600), ms(1_000));
    platform =
        PlatformSimulator.builder()
            .localMode(true)
            .consumerSecret(Fleet.SECRET)
            .retrySchedule(schedule)
            .deliveryTimeout(Duration.ofSeconds(8))
            .build()
            .start();
    // The platform reaches the fleet through a balancer on loopback (the simulator accepts only
    // loopback http URLs); each instance reaches the platform's API on its own service link.
    balancer =
        new LatencyProxy(
            "127.0.0.1",
            0,
            List.of(
                new InetSocketAddress(Network.serviceAddress(1), Fleet.PORT),
                new InetSocketAddress(Network.serviceAddress(2), Fleet.PORT)));
    for (int n = 1; n <= 2; n++) {
      LatencyProxy api =
          new LatencyProxy(
              Network.hostAddress(n),
              0,
              List.of(new InetSocketAddress("127.0.0.1", platform.baseUrl().getPort())));
      apiLinks.add(api);
      Map<String, String> env = new HashMap<>();
      env.put("REDIS_URL", redis.url());
      env.put("WORKER_THREADS", "4");
      env.put("CATCH_UP", "true");
      env.put("SERVICE_API_BASE_URL", "http://" + Network.hostAddress(n) + ":" + api.port());
      env.put("SERVICE_API_KEY", platform.apiKey());
      env.put("SERVICE_API_SECRET", platform.apiSecret());
      env.put("WEBHOOK_URL", webhookUrl());
      env.put("ALLOW_INSECURE_URL", "true");
      env.put("CATCH_UP_HEARTBEAT_MS", "1000");
      env.put("CATCH_UP_GAP_THRESHOLD_MS", "8000");
      fleet.start(n, env);
    }
  }

  private static String webhookUrl() {
    return "http://127.0.0.1:" + balancer.port() + "/webhooks";
  }

  private static Duration ms(long millis) {
    return Duration.ofMillis(millis);
  }

  @AfterAll
  static void stopFleet() throws Exception {
    try {
      if (fleet != null) {
        fleet.close();
      }
    } finally {
      for (LatencyProxy p : apiLinks) {
        p.close();
      }
      if (balancer != null) {
        balancer.close();
      }
      if (platform != null) {
        platform.close();
      }
      if (redis != null) {
        redis.close();
      }
      if (fleet != null) {
        System.out.println("Fleet invariants (catch-up):\n" + Invariants.table());
        Files.writeString(fleet.logs.resolve("invariants.md"), Invariants.table());
      }
    }
  }

  /**
   * 10 events a second for 30 s; from the 5th second both instances are cut from Redis for 15 s
   * (every delivery 503 {@code dedup_unavailable}). The platform drops what it could not deliver in
   * its retries; once the link is back, the first 2xx of each instance closes a refused period
   * longer than the gap threshold and one instance asks for its replay.
   */
  @Test
  void storeOutageForTheWholeFleet_platformDropsEvents_catchUpReplaysThem_eachHandledOnce()
      throws Exception {
    WebhookClient client =
        WebhookClient.builder()
            .baseUrl(platform.baseUrl())
            .apiCredentials(platform.apiKey(), platform.apiSecret())
            .allowInsecureUrls(true)
            .build();
    // Both instances registered the URL at their first check (the second found the first's).
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> client.list().stream().anyMatch(w -> w.url().equals(webhookUrl())));
    assertThat(client.list()).hasSize(1);
    // A replay before the outage is possible on a loaded machine (a first check slower than the
    // gap threshold) and harmless; the scenario counts those asked after the cut.
    int replaysBefore = platform.replayRequests().size();

    int events = 300;
    long cutAt = 0;
    long restoredAt = 0;
    for (int i = 0; i < events; i++) {
      if (i == 50) {
        fleet.network.cut(1);
        fleet.network.cut(2);
        cutAt = System.nanoTime();
      }
      if (i == 200) {
        fleet.network.restore(1);
        fleet.network.restore(2);
        restoredAt = System.nanoTime();
      }
      platform.deliver(Fleet.body(String.format("catchup-%04d", i)));
      TimeUnit.MILLISECONDS.sleep(100); // the platform's pace: 10 a second
    }
    long cutMs = (restoredAt - cutAt) / 1_000_000;

    Set<String> expected = new TreeSet<>();
    for (int i = 0; i < events; i++) {
      expected.add(String.format("catchup-%04d", i));
    }
    // The replay: asked within a few heartbeats of the first 2xx, then delivered one by one.
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> fleet.handled().keySet().containsAll(expected));
    long healedMs = Load.since(restoredAt);
    awaitReplaysDone();

    List<DeliveryAttempt> attempts = platform.attempts();
    List<Answer> asAnswers = new ArrayList<>();
    for (DeliveryAttempt a : attempts) {
      Matcher m = ID.matcher(a.body());
      if (m.find()) {
        asAnswers.add(
            new Answer(m.group(), 0, a.status(), a.failure() == null ? "" : a.failure(), 0, 0));
      }
    }
    long dropped = platform.droppedEvents();
    List<ReplayRequest> replays =
        platform.replayRequests().subList(replaysBefore, platform.replayRequests().size());
    Map<String, Integer> handled = fleet.handled();
    assertThat(dropped).as("events the platform's retries gave up on").isPositive();
    assertThat(replays).as("replays asked by catch-up").isNotEmpty();
    assertThat(handled.keySet()).as("every event, dropped ones too").containsAll(expected);
    long refused =
        attempts.stream().filter(a -> ID.matcher(a.body()).find() && !a.succeeded()).count();

    Invariants.Row row =
        new Invariants.Row(
            "store outage (both cut "
                + Math.round(cutMs / 1000.0)
                + " s), platform drops, catch-up",
            "sync, Redis, CATCH_UP");
    row.from(asAnswers, handled);
    row.slowestMs = -1;
    row.duplicateBound = 0; // the shared Redis kept the marks: the replayed events are duplicates
    row.recoveryMs = healedMs;
    row.recoveryBoundMs = 90_000;
    row.leftover = expected.stream().filter(id -> !handled.containsKey(id)).count();
    row.notes =
        String.format(
            "%d events at 10/s, %d attempts refused; the platform dropped %d; %d replay(s) asked"
                + " after the outage (%s), %d before it; every event handled once %d ms after the"
                + " link returned",
            events,
            refused,
            dropped,
            replays.size(),
            replays.stream()
                .map(r -> MINUTE.format(r.from()) + "-" + MINUTE.format(r.to()))
                .reduce((a, b) -> a + ", " + b)
                .orElse(""),
            replaysBefore,
            healedMs);
    row.check();
  }

  /**
   * Waits (at most 2 minutes) until every replay asked so far has had its {@code replay_job_status}
   * answered 2xx, nothing is in flight, and no new replay was asked for 5 s (an instance asks
   * within a heartbeat of the last job's end).
   */
  private static void awaitReplaysDone() {
    long[] stable = {-1, System.nanoTime()};
    await()
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              if (!platform.awaitIdle(Duration.ofSeconds(1))) {
                return false;
              }
              List<ReplayRequest> asked = platform.replayRequests();
              Set<String> closed = new TreeSet<>();
              for (DeliveryAttempt a : platform.attempts()) {
                if (a.succeeded() && a.body().contains("job_state")) {
                  for (ReplayRequest r : asked) {
                    if (a.body().contains(r.jobId())) {
                      closed.add(r.jobId());
                    }
                  }
                }
              }
              if (asked.size() != stable[0] || closed.size() < asked.size()) {
                stable[0] = closed.size() < asked.size() ? -1 : asked.size();
                stable[1] = System.nanoTime();
                return false;
              }
              return Load.since(stable[1]) >= 5_000;
            });
  }
}
