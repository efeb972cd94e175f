package io.servicehooks.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.testsupport.FakeClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The waits of {@code listen}'s reconnect back-off, on a fake clock. */
final class ReconnectBackoffTest {

  private final FakeClock clock = FakeClock.at(Instant.parse("2026-03-01T12:00:00Z"));
  private final ReconnectBackoff backoff = new ReconnectBackoff(clock);

  @Test
  void afterRateLimit_withoutReset_sixtySecondsDoubling() {
    assertThat(backoff.afterRateLimit(null)).isEqualTo(Duration.ofSeconds(60));
    assertThat(backoff.afterRateLimit(null)).isEqualTo(Duration.ofSeconds(120));
    assertThat(backoff.afterRateLimit(null)).isEqualTo(Duration.ofSeconds(240));
  }

  @Test
  void afterRateLimit_resetFurtherThanTheDoubling_waitsForIt() {
    String inFiveMinutes = Long.toString(clock.instant().plusSeconds(300).getEpochSecond());

    assertThat(backoff.afterRateLimit(inFiveMinutes)).isEqualTo(Duration.ofSeconds(300));
  }

  @Test
  void afterRateLimit_unusableResets_ignored() {
    for (String reset :
        new String[] {
          "99999999999999999", "-99999999999999999", "9223372036854775807", "soon", "", "1e9"
        }) {
      ReconnectBackoff fresh = new ReconnectBackoff(clock);

      assertThat(fresh.afterRateLimit(reset)).as(reset).isEqualTo(Duration.ofSeconds(60));
    }
  }
}
