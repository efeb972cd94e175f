package io.servicehooks.registration;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One of the application's open activity-stream connections, as {@code GET /2/connections} lists
 * it. The spec does not show the shape, so besides the id and the connect time every field is kept
 * as given.
 *
 * @param endpointId the id {@code DELETE /2/connections/{endpoint_id}} takes ({@code endpoint_id},
 *     else {@code id}, else {@code connection_id})
 * @param connectedAt when it connected, or {@code null} when the platform did not say
 * @param fields every scalar field of the listed object, as text, in the order given
 */
public record StreamConnection(String endpointId, Instant connectedAt, Map<String, String> fields) {

  /** Checks that the id is present and makes the fields an unmodifiable copy. */
  public StreamConnection {
    Objects.requireNonNull(endpointId, "endpointId");
    fields = fields == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(fields));
  }
}
