package io.servicehooks.core.observation;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What the {@code servicehooks.inbox.store} observation knows of one write of a delivery's events
 * to the durable inbox. A producer: a tracing handler that propagates (Micrometer Tracing's {@code
 * PropagatingSenderTracingObservationHandler}, as Spring Boot configures it) writes the trace
 * context into the {@linkplain #getCarrier() carrier} when the observation starts, and the consumer
 * stores its {@value #TRACEPARENT} with every row.
 */
public class InboxStoreObservationContext extends SenderContext<Map<String, String>> {

  /** The W3C Trace Context header the rows keep. */
  public static final String TRACEPARENT = "traceparent";

  private final String eventType;
  private final int eventCount;
  private volatile String outcome = "unknown";

  /**
   * @param eventType the events' current type, capped ({@code mixed} for several)
   * @param eventCount how many events are written
   */
  public InboxStoreObservationContext(String eventType, int eventCount) {
    super(Map::put, Kind.PRODUCER);
    this.eventType = Objects.requireNonNull(eventType, "eventType");
    this.eventCount = eventCount;
    setCarrier(new HashMap<>(4));
    setRemoteServiceName("servicehooks-inbox");
  }

  /** The events' current type, capped. */
  public String eventType() {
    return eventType;
  }

  /** How many events are written. */
  public int eventCount() {
    return eventCount;
  }

  /**
   * The W3C {@code traceparent} a propagating handler wrote into the carrier, or {@code null} (no
   * tracing, or a propagation format without it).
   */
  public String traceparent() {
    return getCarrier().get(TRACEPARENT);
  }

  /** {@code stored}, {@code duplicate} or {@code failure}; {@code unknown} until set. */
  public String outcome() {
    return outcome;
  }

  /** Set by the consumer once the inbox answered. */
  public void outcome(String outcome) {
    this.outcome = Objects.requireNonNull(outcome, "outcome");
  }
}
