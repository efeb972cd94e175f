package io.servicehooks.sqlite;

import io.servicehooks.contracts.DeduplicatorContract;
import io.servicehooks.core.Deduplicator;
import io.servicehooks.testsupport.FakeClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SQLite store runs the contract on a real file in the case's own directory; the second
 * instance is a second connection to the same file, as a second process would be. Leases and the
 * window are read on a fake clock both share, so the cases that let them run out take no real time.
 */
final class SqliteDeduplicatorContractTest extends DeduplicatorContract {

  @TempDir Path dir;

  private final FakeClock clock = FakeClock.at(Instant.parse("2026-11-26T12:00:00Z"));

  @Override
  protected Deduplicator newDeduplicator(Duration window) {
    return SqliteDeduplicator.builder(dir.resolve("dedup.db")).window(window).clock(clock).build();
  }

  @Override
  protected void advance(Duration duration) {
    clock.advance(duration);
  }
}
