package io.servicehooks.catchup;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The catch-up log shows the window as the replay request carries it ({@code from_date}, {@code
 * to_date}, minutes in UTC as {@code yyyyMMddHHmm}), so log and request show the same end.
 */
final class CatchUpWindowTest {

  @Test
  void window_midMinuteUntil_showsTheRequestsToDateAndWhereTheReplayEnds() {
    CatchUpJob job =
        new CatchUpJob(
            "k",
            null,
            Instant.parse("2026-11-24T20:58:00Z"),
            Instant.parse("2026-11-24T21:05:37.250Z"),
            1,
            Instant.parse("2026-11-24T21:05:37.250Z"),
            null);

    // to_date is the minute of `until` (21:05), replayed whole: the window ends at 21:06:00.
    assertThat(CatchUp.window(job))
        .isEqualTo("from_date 202611242058 to_date 202611242105 (through 2026-11-24T21:06:00Z)");
  }
}
