package io.servicehooks.samples;

// README-CONTRACT-BEGIN
import io.servicehooks.contracts.DeduplicatorContract;
import io.servicehooks.core.Deduplicator;
import java.time.Duration;

/** The map store runs every case of the Deduplicator contract. */
final class MapDeduplicatorContractTest extends DeduplicatorContract {

  private MapDeduplicator store;

  // A new store for each case. A second call in one case stands for another instance of the
  // consumer and must share the first one's keys: here, the same map.
  @Override
  protected Deduplicator newDeduplicator(Duration window) {
    if (store == null) {
      store = new MapDeduplicator(window);
    }
    return store;
  }

  // The map reads the system clock, so leases run out in real time: keep them short.
  @Override
  protected Duration shortTime() {
    return Duration.ofMillis(300);
  }
}
// README-CONTRACT-END
