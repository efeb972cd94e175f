package io.servicehooks.core.observation;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import io.servicehooks.core.StoredEvent;
import java.util.Map;
import java.util.Objects;

/**
 * What the {@code servicehooks.inbox.process} observation knows of one stored event an inbox worker
 * runs. A consumer: its {@linkplain #getCarrier() carrier} holds the row's {@code traceparent},
 * from which a propagating handler (Micrometer Tracing's {@code
 * PropagatingReceiverTracingObservationHandler}) continues the delivery's trace. A listener's
 * failure is in {@link #getError()}.
 */
public class InboxProcessObservationContext extends ReceiverContext<Map<String, String>> {

  private final StoredEvent event;
  private final String eventType;

  /**
   * @param event the stored event, with the {@code traceparent} it was stored with (or none)
   * @param eventType its type, capped
   */
  public InboxProcessObservationContext(StoredEvent event, String eventType) {
    super((carrier, key) -> carrier.get(key), Kind.CONSUMER);
    this.event = Objects.requireNonNull(event, "event");
    this.eventType = Objects.requireNonNull(eventType, "eventType");
    setCarrier(
        event.traceparent() == null
            ? Map.of()
            : Map.of(InboxStoreObservationContext.TRACEPARENT, event.traceparent()));
    setRemoteServiceName("servicehooks-inbox");
  }

  /** The stored event. */
  public StoredEvent event() {
    return event;
  }

  /** Its current type, capped. */
  public String eventType() {
    return eventType;
  }
}
