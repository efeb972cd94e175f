package io.servicehooks.core.observation;

import io.micrometer.observation.Observation;
import java.util.Objects;

/**
 * What the {@code servicehooks.delivery} observation knows of one delivery. Made and filled by the
 * consumer; a convention reads it.
 */
public class DeliveryObservationContext extends Observation.Context {

  private final String acknowledgement;
  private final String source;
  private volatile String eventType = "none";
  private volatile int eventCount;
  private volatile String outcome = "unknown";
  private volatile int status;

  /**
   * @param acknowledgement the consumer's acknowledgement mode, lower case
   * @param source {@code webhook} or {@code stream}
   */
  public DeliveryObservationContext(String acknowledgement, String source) {
    this.acknowledgement = Objects.requireNonNull(acknowledgement, "acknowledgement");
    this.source = Objects.requireNonNull(source, "source");
  }

  /** {@code synchronous}, {@code asynchronous} or {@code durable}. */
  public String acknowledgement() {
    return acknowledgement;
  }

  /** {@code webhook} (a signed POST) or {@code stream} (a line of the activity stream). */
  public String source() {
    return source;
  }

  /**
   * The events' current type, already capped; {@code mixed} for several types, {@code none} before
   * the payload was parsed or when it could not be.
   */
  public String eventType() {
    return eventType;
  }

  /** How many events the delivery carried (0 before it was parsed). */
  public int eventCount() {
    return eventCount;
  }

  /** Set by the consumer once the payload is parsed. */
  public void events(String eventType, int eventCount) {
    this.eventType = Objects.requireNonNull(eventType, "eventType");
    this.eventCount = eventCount;
  }

  /**
   * How the delivery was answered: see {@link ServicehooksObservation.LowCardinalityKeys#OUTCOME}.
   */
  public String outcome() {
    return outcome;
  }

  /** The HTTP status of the answer, 0 until answered. */
  public int status() {
    return status;
  }

  /** Set by the consumer with the answer. */
  public void answered(String outcome, int status) {
    this.outcome = Objects.requireNonNull(outcome, "outcome");
    this.status = status;
  }
}
