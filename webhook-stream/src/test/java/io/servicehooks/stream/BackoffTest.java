package io.servicehooks.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The platform's reconnect figures (docs/stream.md#what-the-stream-does-for-you), computed here
 * independently of {@link Backoff}.
 */
final class BackoffTest {

  private static List<Duration> take(int n, java.util.function.Supplier<Duration> next) {
    List<Duration> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(next.get());
    }
    return out;
  }

  @Test
  void network_grows250msPerAttempt_upTo16s() {
    Backoff backoff = new Backoff(() -> 0);
    List<Duration> waits = take(70, backoff::network);
    for (int attempt = 1; attempt <= 70; attempt++) {
      long expectedMs = Math.min(250L * attempt, 16_000L);
      assertThat(waits.get(attempt - 1)).isEqualTo(Duration.ofMillis(expectedMs));
    }
  }

  @Test
  void http_startsAt5sDoubling_upTo320s() {
    Backoff backoff = new Backoff(() -> 0);
    assertThat(take(9, backoff::http))
        .extracting(Duration::toSeconds)
        .containsExactly(5L, 10L, 20L, 40L, 80L, 160L, 320L, 320L, 320L);
  }

  @Test
  void rateLimited_startsAtOneMinuteDoubling_andHonoursALaterReset() {
    Backoff backoff = new Backoff(() -> 0);
    assertThat(backoff.rateLimited(null)).isEqualTo(Duration.ofSeconds(60));
    assertThat(backoff.rateLimited(Duration.ofSeconds(10))).isEqualTo(Duration.ofSeconds(120));
    assertThat(backoff.rateLimited(Duration.ofSeconds(400))).isEqualTo(Duration.ofSeconds(400));
    assertThat(backoff.rateLimited(null)).isEqualTo(Duration.ofSeconds(480));
  }

  @Test
  void rateLimited_doublingAndAFarReset_cappedAt16Minutes() {
    Backoff backoff = new Backoff(() -> 0);
    assertThat(take(7, () -> backoff.rateLimited(null)))
        .extracting(Duration::toSeconds)
        .containsExactly(60L, 120L, 240L, 480L, 960L, 960L, 960L);
    Backoff reset = new Backoff(() -> 0);
    assertThat(reset.rateLimited(Duration.ofHours(1))).isEqualTo(Duration.ofMinutes(16));
  }

  @Test
  void reset_afterData_startsEachRuleAgain() {
    Backoff backoff = new Backoff(() -> 0);
    backoff.network();
    backoff.http();
    backoff.rateLimited(null);
    backoff.reset();
    assertThat(backoff.network()).isEqualTo(Duration.ofMillis(250));
    assertThat(backoff.http()).isEqualTo(Duration.ofSeconds(5));
    assertThat(backoff.rateLimited(null)).isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void jitter_addsUpToTenPercent_neverBelowTheRule() {
    Backoff half = new Backoff(() -> 0.5);
    assertThat(half.http()).isEqualTo(Duration.ofMillis(5_250));
    Backoff almostAll = new Backoff(() -> 0.999);
    Duration wait = almostAll.rateLimited(null);
    assertThat(wait).isGreaterThan(Duration.ofSeconds(65)).isLessThan(Duration.ofSeconds(66));
    Backoff broken = new Backoff(() -> Double.NaN);
    assertThat(broken.network()).isEqualTo(Duration.ofMillis(250));
  }
}
