package io.servicehooks.testkit;

import java.time.Instant;
import java.util.Objects;

/**
 * One open {@code GET /2/activity/stream} connection as the simulator sees it, the same facts
 * {@code GET /2/connections} lists.
 *
 * @param endpointId the connection's id, as {@code DELETE /2/connections/{endpoint_id}} takes it
 * @param connectedAt when it connected, on the simulator's clock
 * @param backfillMinutes the {@code backfill_minutes} it asked for (0 when none)
 * @param stalled whether a {@linkplain PlatformSimulator#stallStreams() stall} silenced it
 */
public record OpenStream(
    String endpointId, Instant connectedAt, int backfillMinutes, boolean stalled) {

  /** Checks the fields. */
  public OpenStream {
    Objects.requireNonNull(endpointId, "endpointId");
    Objects.requireNonNull(connectedAt, "connectedAt");
  }
}
