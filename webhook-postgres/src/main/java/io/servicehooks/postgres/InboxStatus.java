package io.servicehooks.postgres;

import java.util.Locale;

/** Where an inbox row stands; stored lower-case in the {@code status} column. */
public enum InboxStatus {
  /** Stored and waiting until it is due: new, or failed and waiting for its next attempt. */
  PENDING,
  /** Taken by a worker under a lease; back to due when the lease ends without an outcome. */
  RUNNING,
  /** Every listener succeeded; kept for the retention (the dedup window), then purged. */
  DONE,
  /** Failed the maximum number of attempts; kept, with its last error, until a person acts. */
  DEAD;

  /** The value in the {@code status} column. */
  public String sqlName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The status for a {@code status} column value. */
  static InboxStatus ofSql(String value) {
    return valueOf(value.toUpperCase(Locale.ROOT));
  }
}
