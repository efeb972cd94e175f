package io.servicehooks.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

final class InMemoryDeduplicatorTest {

  private final AtomicLong nanos = new AtomicLong();
  private final Ticker ticker = nanos::get;

  @Test
  void tryClaim_doneKey_isRefusedUntilWindowPassesSinceLastSeen() {
    InMemoryDeduplicator dedup = new InMemoryDeduplicator(Duration.ofHours(24), 100, ticker);
    assertThat(dedup.tryClaim("e:1")).isTrue();
    dedup.markDone("e:1");
    assertThat(dedup.tryClaim("e:1")).isFalse();

    nanos.addAndGet(Duration.ofHours(23).toNanos());
    assertThat(dedup.tryClaim("e:1")).isFalse(); // seen again: remembered 24 h from now

    nanos.addAndGet(Duration.ofHours(23).toNanos());
    assertThat(dedup.tryClaim("e:1")).isFalse();

    nanos.addAndGet(Duration.ofHours(24).plusSeconds(1).toNanos());
    assertThat(dedup.tryClaim("e:1")).isTrue();
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
    assertThat(dedup.tryClaim("e:7")).isTrue();
    assertThat(dedup.tryClaim("e:007")).isTrue();
    assertThat(dedup.tryClaim("e:7")).isFalse();
  }

  @Test
  void release_claimedKey_canBeClaimedAgain() {
    InMemoryDeduplicator dedup = new InMemoryDeduplicator(Duration.ofMinutes(5), 100, ticker);
    assertThat(dedup.tryClaim("k")).isTrue();
    assertThat(dedup.tryClaim("k")).isFalse();
    dedup.release("k");
    assertThat(dedup.tryClaim("k")).isTrue();
  }

  @Test
  void release_doneKey_staysDone() {
    InMemoryDeduplicator dedup = new InMemoryDeduplicator(Duration.ofMinutes(5), 100, ticker);
    dedup.tryClaim("k");
    dedup.markDone("k");
    dedup.release("k");
    assertThat(dedup.tryClaim("k")).isFalse();
  }

  @Test
  void tryClaim_manyThreadsSameKey_exactlyOneWins() throws Exception {
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
                    if (dedup.tryClaim(key)) {
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
    assertThat(none.tryClaim("k")).isTrue();
    none.markDone("k");
    assertThat(none.tryClaim("k")).isTrue();
  }
}
