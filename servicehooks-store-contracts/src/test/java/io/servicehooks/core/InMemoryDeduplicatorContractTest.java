package io.servicehooks.core;

import io.servicehooks.contracts.DeduplicatorContract;
import io.servicehooks.testsupport.FakeClock;
import java.time.Duration;

/**
 * The in-memory store runs the contract on a fake ticker. It lives here, in the store's package but
 * in the contracts module, because the contracts depend on webhook-core: webhook-core's own tests
 * cannot depend on them without a cycle.
 */
final class InMemoryDeduplicatorContractTest extends DeduplicatorContract {

  private final FakeClock clock = FakeClock.ticker(0);
  private Deduplicator store;

  /** One store per case: the in-memory store's "other instance" is itself. */
  @Override
  protected Deduplicator newDeduplicator(Duration window) {
    if (store == null) {
      store = new InMemoryDeduplicator(window, 10_000, clock::nanos);
    }
    return store;
  }

  @Override
  protected void advance(Duration duration) {
    clock.advance(duration);
  }
}
