package io.servicehooks.postgres;

import java.time.Duration;
import java.util.Objects;

/**
 * Row counts of an inbox by status, and its lag: how long the oldest due row has been waiting
 * ({@link Duration#ZERO} when none is due).
 *
 * @param pending rows waiting until due (new, or between attempts)
 * @param running rows taken by a worker now
 * @param done rows handled and kept for the dedup window
 * @param dead dead letters
 * @param lag age of the oldest due row
 */
public record InboxStats(long pending, long running, long done, long dead, Duration lag) {

  /** Checks the values. */
  public InboxStats {
    Objects.requireNonNull(lag, "lag");
  }
}
