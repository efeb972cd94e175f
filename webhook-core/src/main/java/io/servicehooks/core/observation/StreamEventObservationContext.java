package io.servicehooks.core.observation;

import io.micrometer.observation.Observation;
import java.util.Objects;

/**
 * What the {@code servicehooks.stream.event} observation knows of one line of the activity stream
 * handed to the consumer. Made by {@code webhook-stream}'s {@code ActivityStream}.
 */
public class StreamEventObservationContext extends Observation.Context {

  private final long connection;
  private volatile String outcome = "unknown";

  /**
   * @param connection the number of the stream connection the line came on
   */
  public StreamEventObservationContext(long connection) {
    this.connection = connection;
  }

  /** The number of the stream connection the line came on, from 1. */
  public long connection() {
    return connection;
  }

  /**
   * {@code taken}, {@code refused}, {@code failed} or {@code not_taken}; {@code unknown} until set.
   */
  public String outcome() {
    return outcome;
  }

  /** Set by the stream once the consumer answered. */
  public void outcome(String outcome) {
    this.outcome = Objects.requireNonNull(outcome, "outcome");
  }
}
