package io.servicehooks.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.servicehooks.core.Deduplicator.Claim;
import io.servicehooks.core.Deduplicator.Claim.Status;
import io.servicehooks.testsupport.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

final class InMemoryDeduplicatorTest {

  private final FakeClock clock = FakeClock.ticker(0);
  private final LongSupplier ticker = clock::nanos;

  private static final Duration LEASE = Duration.ofSeconds(30);

  private static Claim claim(Deduplicator dedup, String key) {
    return dedup.claim(key, LEASE).toCompletableFuture().join();
  }

  private static Claim.Status status(Deduplicator dedup, String key) {
    return claim(dedup, key).status();
  }

  private static boolean done(Deduplicator dedup, String key, String token) {
    return dedup.markDone(key, token).toCompletableFuture().join();
  }

  private static boolean release(Deduplicator dedup, String key, String token) {
    return dedup.release(key, token).toCompletableFuture().join();
  }

  private static boolean renew(Deduplicator dedup, String key, String token) {
    return dedup.renew(key, token, LEASE).toCompletableFuture().join();
  }

  @Test
  void claim_doneKey_isDoneUntilWindowPassesSinceLastSeen() {
    InMemoryDeduplicator dedup = new InMemoryDeduplicator(Duration.ofHours(24), 100, ticker);
    Claim first = claim(dedup, "e:1");
    assertThat(first.status()).isEqualTo(Status.CLAIMED);
    assertThat(done(dedup, "e:1", first.token())).isTrue();
    assertThat(status(dedup, "e:1")).isEqualTo(Status.DONE);

    clock.advance(Duration.ofHours(23));
    assertThat(status(dedup, "e:1")).isEqualTo(Status.DONE); // seen again: 24 h from now

    clock.advance(Duration.ofHours(23));
    assertThat(status(dedup, "e:1")).isEqualTo(Status.DONE);

    clock.advance(Duration.ofHours(24).plusSeconds(1));
    assertThat(status(dedup, "e:1")).isEqualTo(Status.CLAIMED);
  }

  @Test
  void claim_liveClaim_isRunningElsewhereWithTheRemainingLease() {
    InMemoryDeduplicator dedup = new InMemoryDeduplicator(Duration.ofHours(1), 100, ticker);
    assertThat(status(dedup, "k")).isEqualTo(Status.CLAIMED);
    clock.advance(Duration.ofSeconds(10));
    Claim copy = claim(dedup, "k");
    assertThat(copy.status()).isEqualTo(Status.RUNNING_ELSEWHERE);
    assertThat(copy.token()).isNull();
    assertThat(copy.remainingLease()).isEqualTo(Duration.ofSeconds(20));
  }

  @Test
  void claim_leaseRanOut_nextClaimTakesOverAndOldTokenIsStale() {
    InMemoryDeduplicator dedup = new InMemoryDeduplicator(Duration.ofHours(1), 100, ticker);
    Claim crashed = claim(dedup, "k");
    clock.advance(LEASE.minusNanos(1));
    assertThat(status(dedup, "k")).isEqualTo(Status.RUNNING_ELSEWHERE);
    clock.advance(Duration.ofNanos(1));

    Claim next = claim(dedup, "k");
    assertThat(next.status()).isEqualTo(Status.CLAIMED);
    assertThat(next.token()).isNotEqualTo(crashed.token());
    // The crashed owner's token no longer owns the key: it can neither end nor extend it.
    assertThat(done(dedup, "k", crashed.token())).isFalse();
    assertThat(release(dedup, "k", crashed.token())).isFalse();
    assertThat(renew(dedup, "k", crashed.token())).isFalse();
    assertThat(status(dedup, "k")).isEqualTo(Status.RUNNING_ELSEWHERE);
    assertThat(done(dedup, "k", next.token())).isTrue();
    assertThat(status(dedup, "k")).isEqualTo(Status.DONE);
  }

  @Test
  void markDone_afterLeaseRanOut_isFalseAndChangesNothing() {
    InMemoryDeduplicator dedup = new InMemoryDeduplicator(Duration.ofHours(1), 100, ticker);
    Claim slow = claim(dedup, "k");
    clock.advance(LEASE.plusSeconds(1));
    assertThat(done(dedup, "k", slow.token())).isFalse();
    assertThat(status(dedup, "k")).isEqualTo(Status.CLAIMED);
  }

  @Test
  void renew_liveOwner_extendsTheLeaseFromNow() {
    InMemoryDeduplicator dedup = new InMemoryDeduplicator(Duration.ofHours(1), 100, ticker);
    Claim owner = claim(dedup, "k");
    clock.advance(Duration.ofSeconds(20));
    assertThat(renew(dedup, "k", owner.token())).isTrue();
    clock.advance(Duration.ofSeconds(20)); // 40 s after the claim, 20 after renewing
    Claim copy = claim(dedup, "k");
    assertThat(copy.status()).isEqualTo(Status.RUNNING_ELSEWHERE);
    assertThat(copy.remainingLease()).isEqualTo(Duration.ofSeconds(10));
    assertThat(done(dedup, "k", owner.token())).isTrue();
  }

  @Test
  void release_wrongToken_isFalseAndKeepsTheClaim() {
    InMemoryDeduplicator dedup = new InMemoryDeduplicator(Duration.ofHours(1), 100, ticker);
    Claim owner = claim(dedup, "k");
    assertThat(release(dedup, "k", "not-" + owner.token())).isFalse();
    assertThat(done(dedup, "k", "not-" + owner.token())).isFalse();
    assertThat(status(dedup, "k")).isEqualTo(Status.RUNNING_ELSEWHERE);
    assertThat(release(dedup, "unknown", owner.token())).isFalse();
  }

  @Test
  void stats_claimsAndDone_recordHitsMissesAndPuts() {
    InMemoryDeduplicator dedup = new InMemoryDeduplicator(Duration.ofHours(1), 100, ticker);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    dedup.bindTo(new MicrometerBinder(registry));

    Claim a = claim(dedup, "e:1"); // miss, put
    claim(dedup, "e:1"); // hit (running)
    done(dedup, "e:1", a.token()); // put
    claim(dedup, "e:1"); // hit (done)
    claim(dedup, "e:2"); // miss, put

    assertThat(registry.get("cache.gets").tag("result", "hit").functionCounter().count())
        .isEqualTo(2);
    assertThat(registry.get("cache.gets").tag("result", "miss").functionCounter().count())
        .isEqualTo(2);
    assertThat(registry.get("cache.puts").functionCounter().count()).isEqualTo(3);
    assertThat(registry.get("cache.size").gauge().value()).isEqualTo(2);
    // Nothing published that cannot move: the store never loads.
    assertThat(registry.find("cache.load").meters()).isEmpty();
    assertThat(registry.find("cache.load.duration").meters()).isEmpty();
    assertThat(registry.get("cache.gets").meters())
        .allSatisfy(m -> assertThat(m.getId().getTag("cache")).isEqualTo("webhook.dedup"));
  }

  @Test
  void stats_sizeBoundReached_countsEvictions() {
    InMemoryDeduplicator dedup = new InMemoryDeduplicator(Duration.ofHours(1), 10, ticker);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    dedup.bindTo(new MicrometerBinder(registry));
    for (int i = 0; i < 100; i++) {
      claim(dedup, "e:" + i);
    }
    assertThat(registry.get("cache.evictions").functionCounter().count()).isPositive();
  }

  @Test
  void compact_numericAndUuidEnvelopeIds_becomeExactSmallKeys() {
    assertThat(InMemoryDeduplicator.compact("e:1876011200000000001"))
        .isEqualTo(1876011200000000001L);
    assertThat(InMemoryDeduplicator.compact("e:-4410")).isEqualTo(-4410L);
    assertThat(InMemoryDeduplicator.compact("e:0")).isEqualTo(0L);
    assertThat(InMemoryDeduplicator.compact("e:9b2bc4f0-1c1e-4d3f-8a7b-0123456789ab"))
        .isEqualTo(java.util.UUID.fromString("9b2bc4f0-1c1e-4d3f-8a7b-0123456789ab"));
    // Anything that would not round-trip stays a string, so distinct keys never meet.
    for (String kept :
        new String[] {
          "e:007",
          "e:-0",
          "e:+7",
          "e:99999999999999999999",
          "e:",
          "e:1a",
          "e:9B2BC4F0-1C1E-4D3F-8A7B-0123456789AB",
          "a:1:post_create_events:100",
          "e#abc"
        }) {
      assertThat(InMemoryDeduplicator.compact(kept)).as(kept).isEqualTo(kept);
    }
    InMemoryDeduplicator dedup = new InMemoryDeduplicator(Duration.ofHours(1), 100, ticker);
    assertThat(status(dedup, "e:7")).isEqualTo(Status.CLAIMED);
    assertThat(status(dedup, "e:007")).isEqualTo(Status.CLAIMED);
    assertThat(status(dedup, "e:7")).isEqualTo(Status.RUNNING_ELSEWHERE);
  }

  @Test
  void compact_decimalIds_agreeWithTheJdksParseAndPrint() {
    // The JDK's own parse and print are the independent computation: an id is a Long exactly when
    // Long.parseLong reads it and Long.toString writes it back unchanged.
    SplittableRandom random = new SplittableRandom(35);
    List<String> ids =
        new ArrayList<>(
            List.of(
                Long.toString(Long.MAX_VALUE),
                Long.toString(Long.MIN_VALUE),
                "9223372036854775808",
                "-9223372036854775809",
                "9999999999999999999",
                "-0",
                "00",
                "-",
                "1876-0000"));
    for (int i = 0; i < 20_000; i++) {
      long value = random.nextLong() >> random.nextInt(64);
      ids.add(Long.toString(value));
      char[] digits = new char[1 + random.nextInt(20)];
      for (int d = 0; d < digits.length; d++) {
        digits[d] = (char) ('0' + random.nextInt(10));
      }
      ids.add((random.nextBoolean() ? "-" : "") + new String(digits));
    }
    for (String id : ids) {
      Object expected = "e:" + id;
      try {
        long parsed = Long.parseLong(id);
        if (Long.toString(parsed).equals(id)) {
          expected = parsed;
        }
      } catch (NumberFormatException notALong) {
        // stays the string
      }
      assertThat(InMemoryDeduplicator.compact("e:" + id)).as(id).isEqualTo(expected);
    }
  }

  @Test
  void release_claimedKey_canBeClaimedAgain() {
    InMemoryDeduplicator dedup = new InMemoryDeduplicator(Duration.ofMinutes(5), 100, ticker);
    Claim owner = claim(dedup, "k");
    assertThat(status(dedup, "k")).isEqualTo(Status.RUNNING_ELSEWHERE);
    assertThat(release(dedup, "k", owner.token())).isTrue();
    assertThat(status(dedup, "k")).isEqualTo(Status.CLAIMED);
  }

  @Test
  void release_doneKey_staysDone() {
    InMemoryDeduplicator dedup = new InMemoryDeduplicator(Duration.ofMinutes(5), 100, ticker);
    Claim owner = claim(dedup, "k");
    done(dedup, "k", owner.token());
    assertThat(release(dedup, "k", owner.token())).isFalse();
    assertThat(status(dedup, "k")).isEqualTo(Status.DONE);
  }

  @Test
  void claim_manyThreadsSameKey_exactlyOneWins() throws Exception {
    InMemoryDeduplicator dedup = new InMemoryDeduplicator(Duration.ofMinutes(5), 1000, ticker);
    ExecutorService pool = Executors.newFixedThreadPool(32);
    try {
      for (int round = 0; round < 50; round++) {
        String key = "e:" + round;
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger winners = new AtomicInteger();
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < 32; t++) {
          futures.add(
              pool.submit(
                  () -> {
                    start.await();
                    if (status(dedup, key) == Status.CLAIMED) {
                      winners.incrementAndGet();
                    }
                    return null;
                  }));
        }
        start.countDown();
        for (Future<?> f : futures) {
          f.get(10, TimeUnit.SECONDS);
        }
        assertThat(winners).hasValue(1);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void constructor_badSettings_nameTheValue() {
    assertThatThrownBy(() -> new InMemoryDeduplicator(Duration.ZERO, 1, ticker))
        .hasMessageContaining("PT0S");
    assertThatThrownBy(() -> new InMemoryDeduplicator(Duration.ofMinutes(1), 0, ticker))
        .hasMessageContaining("0");
  }

  @Test
  void none_claimsEverything() {
    Deduplicator none = Deduplicator.none();
    Claim first = claim(none, "k");
    assertThat(first.status()).isEqualTo(Status.CLAIMED);
    assertThat(done(none, "k", first.token())).isTrue();
    assertThat(status(none, "k")).isEqualTo(Status.CLAIMED);
  }
}
