package io.servicehooks.core.observation;

import io.micrometer.observation.Observation;
import io.servicehooks.core.WebhookEvent;
import java.util.Objects;

/**
 * What the {@code servicehooks.listener} observation knows of one listener run. A listener that
 * throws leaves its failure in {@link #getError()}.
 */
public class ListenerObservationContext extends Observation.Context {

  private final WebhookEvent event;
  private final String eventType;
  private final String listener;

  /**
   * @param event the event the listener runs for
   * @param eventType its type, capped
   * @param listener the pattern the listener was registered under
   */
  public ListenerObservationContext(WebhookEvent event, String eventType, String listener) {
    this.event = Objects.requireNonNull(event, "event");
    this.eventType = Objects.requireNonNull(eventType, "eventType");
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  /** The event the listener runs for. */
  public WebhookEvent event() {
    return event;
  }

  /** The event's current type, capped like the {@code webhook.events} meter's tag. */
  public String eventType() {
    return eventType;
  }

  /** The pattern the listener was registered under, such as {@code post.create} or {@code dm.*}. */
  public String listener() {
    return listener;
  }
}
