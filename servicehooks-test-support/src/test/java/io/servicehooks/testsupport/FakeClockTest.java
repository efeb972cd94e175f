package io.servicehooks.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

final class FakeClockTest {

  private static final Instant START = Instant.parse("2026-03-01T12:00:00Z");

  @Test
  void advance_movesInstantAndTickerTogether() {
    FakeClock clock = FakeClock.at(START);

    clock.advance(Duration.ofMillis(1500));

    assertThat(clock.instant()).isEqualTo(START.plusMillis(1500));
    assertThat(clock.nanos()).isEqualTo(1_500_000_000L);
    assertThat(clock.sleeps()).isEmpty();
  }

  @Test
  void sleep_recordsEachDurationAndMoves() {
    FakeClock clock = FakeClock.ticker(42);

    clock.sleep(Duration.ofSeconds(3));
    clock.sleep(Duration.ofSeconds(27));

    assertThat(clock.sleeps()).containsExactly(Duration.ofSeconds(3), Duration.ofSeconds(27));
    assertThat(clock.nanos()).isEqualTo(42 + 30_000_000_000L);
  }

  @Test
  void following_readsTheSourceEachTime() {
    AtomicReference<Instant> source = new AtomicReference<>(START);
    var clock = FakeClock.following(source::get);

    source.set(START.plusSeconds(60));

    assertThat(clock.instant()).isEqualTo(START.plusSeconds(60));
  }

  @Test
  void sleep_beyondTheTickersRange_instantMovesTickerSaturates() {
    FakeClock clock = FakeClock.at(START);

    clock.sleep(Duration.ofDays(365L * 1000));

    assertThat(clock.instant()).isEqualTo(START.plus(Duration.ofDays(365L * 1000)));
    assertThat(clock.nanos()).isEqualTo(Long.MAX_VALUE);
  }
}
