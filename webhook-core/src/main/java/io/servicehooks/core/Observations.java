package io.servicehooks.core;

import java.util.List;

/**
 * What the consumer observes, as traces (and, where the registry has a meter handler, timers). On
 * Micrometer's Observation API when the user gives an {@code ObservationRegistry} ({@link
 * MicrometerObservations}); {@link #NONE} otherwise, whose every call returns a shared handle that
 * does nothing, so the core runs without micrometer-observation on the class path and a consumer
 * without a registry pays for no observation. Names no Micrometer type.
 *
 * <p>Parents are handed over explicitly (an opaque {@code Object}), never through a thread-local,
 * because a delivery's work moves between threads (IO thread, worker, the store's callback).
 */
interface Observations {

  /** Observes nothing: the default. */
  Observations NONE = new Observations() {};

  /**
   * Starts the observation of one delivery, a child of the calling thread's current observation
   * (the stream event's, or a server's request observation, if any).
   *
   * @param source {@code webhook} or {@code stream}
   */
  default Delivery delivery(String source) {
    return Delivery.NONE;
  }

  /**
   * Starts the observation of one listener run under {@code parent} (a delivery's or an inbox
   * processing's {@link Delivery#parent()}; {@code null}: the thread's current observation) and
   * opens its scope on the calling thread, which puts the trace id in the MDC where tracing is set
   * up. Close it on the same thread.
   */
  default Listener listener(Object parent, WebhookEvent event, String pattern) {
    return Listener.NONE;
  }

  /** Starts the observation of writing a delivery's events to the durable inbox. */
  default InboxStore inboxStore(Object parent, List<WebhookEvent> events) {
    return InboxStore.NONE;
  }

  /**
   * Starts the observation of an inbox worker running one stored event, continuing the trace of its
   * {@link StoredEvent#traceparent()} (none: a trace of its own), with its scope open on the
   * calling thread.
   */
  default InboxProcess inboxProcess(StoredEvent event) {
    return InboxProcess.NONE;
  }

  /** One delivery's observation. */
  interface Delivery {
    Delivery NONE = new Delivery() {};

    /** What listener and inbox observations take as their parent; {@code null} when unobserved. */
    default Object parent() {
      return null;
    }

    /** The parsed events (type and count). */
    default void events(List<WebhookEvent> events) {}

    /** Stops the observation with the answer. Never throws. */
    default void answered(WebhookResponse response) {}
  }

  /** One listener run's observation, its scope open. */
  interface Listener {
    Listener NONE = new Listener() {};

    default void failed(Throwable failure) {}

    /** Closes the scope and stops the observation. Never throws. */
    default void close() {}
  }

  /** One write to the inbox. */
  interface InboxStore {
    InboxStore NONE = new InboxStore() {};

    /** The W3C {@code traceparent} to store with the rows, or {@code null}. */
    default String traceparent() {
      return null;
    }

    /** Stops the observation: the inbox answered (outcomes) or failed (a failure). Never throws. */
    default void stopped(List<InboxOutcome> outcomes, Throwable failure) {}
  }

  /** One stored event's processing, its scope open. */
  interface InboxProcess {
    InboxProcess NONE = new InboxProcess() {};

    /** The parent of the event's listener observations; {@code null} when unobserved. */
    default Object parent() {
      return null;
    }

    /** Closes the scope and stops the observation, with the first listener failure or none. */
    default void close(Throwable failure) {}
  }
}
