package io.servicehooks.core;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an event's listeners in the order they were registered. The first that throws stops the rest
 * for that event, and the {@link ErrorHandler} hears of it. Counts each event's outcome in {@code
 * webhook.events}.
 *
 * <p>It is also the one place that skips an event the subscribed user caused itself ({@link
 * OwnEvents}, unless {@code ignoreOwnEvents} is off): every acknowledgement mode and the activity
 * stream call listeners only through here, so the rule holds in all of them, and a skipped event
 * ends as a handled one does (marked done, never released or retried), counted with the outcome
 * {@code own}.
 */
final class Dispatcher {

  // Logs under WebhookConsumer's name, the one logger users' log configuration names for the
  // whole consumer; the class that does the work is an implementation detail.
  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);

  private final Router router;
  private final ErrorHandler errorHandler;
  private final Metrics metrics;
  private final Observations observations;
  private final boolean ignoreOwnEvents;

  Dispatcher(
      Router router,
      ErrorHandler errorHandler,
      Metrics metrics,
      Observations observations,
      boolean ignoreOwnEvents) {
    this.router = router;
    this.errorHandler = errorHandler;
    this.metrics = metrics;
    this.observations = observations;
    this.ignoreOwnEvents = ignoreOwnEvents;
  }

  boolean hasListeners(String type) {
    return router.routesFor(type).length > 0;
  }

  /** Runs every listener for the event; {@code false} when one threw. */
  boolean dispatch(WebhookEvent event) {
    return run(event) == null;
  }

  /**
   * Runs every listener for the event; the first listener failure, or {@code null}. Each listener
   * runs inside its observation's scope, the error handler too, so their log lines carry the
   * event's trace id where tracing puts it in the MDC.
   */
  Throwable run(WebhookEvent event) {
    Router.Route[] routes = router.routesFor(event.type());
    if (routes.length == 0) {
      metrics.event(event.type(), "unhandled");
      return null;
    }
    // Read only when a listener would run: an event nobody listens to costs no payload scan.
    if (ignoreOwnEvents && OwnEvents.isOwn(event)) {
      metrics.event(event.type(), "own");
      if (log.isDebugEnabled()) {
        log.debug(
            "Skipped {} event {}: the subscribed user caused it itself (ignoreOwnEvents)",
            LogSafe.escape(event.type()),
            LogSafe.escape(event.id()));
      }
      return null;
    }
    for (Router.Route route : routes) {
      Observations.Listener observed =
          observations.listener(event.observationParent, event, route.pattern());
      try {
        route.listener().onEvent(event);
      } catch (Throwable t) {
        observed.failed(t);
        try {
          return failed(event, t);
        } finally {
          observed.close();
        }
      }
      observed.close();
    }
    metrics.event(event.type(), "dispatched");
    return null;
  }

  /** Counts the failure and tells the error handler; a JVM error is thrown on. */
  private Throwable failed(WebhookEvent event, Throwable t) {
    metrics.event(event.type(), "failed");
    Throwable handlerFailure = null;
    try {
      errorHandler.onError(event, t);
    } catch (Throwable thrown) {
      // Whatever the handler throws, the event still counts as failed and its claim ends.
      handlerFailure = thrown;
      log.error(
          "Error handler failed for {} event {}",
          LogSafe.escape(event.type()),
          LogSafe.escape(event.id()),
          thrown);
    }
    if (t instanceof VirtualMachineError vmError) {
      throw vmError;
    }
    if (handlerFailure instanceof VirtualMachineError vmError) {
      throw vmError;
    }
    return t;
  }

  @Override
  public String toString() {
    return "Dispatcher";
  }
}
