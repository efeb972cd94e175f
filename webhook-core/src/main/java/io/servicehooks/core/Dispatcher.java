package io.servicehooks.core;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an event's listeners in the order they were registered. The first that throws stops the rest
 * for that event, and the {@link ErrorHandler} hears of it. Counts each event's outcome in {@code
 * webhook.events}.
 */
final class Dispatcher {

  // Logs under the consumer's name, as before the split: users' log configuration names it.
  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);

  private final Router router;
  private final ErrorHandler errorHandler;
  private final Metrics metrics;

  Dispatcher(Router router, ErrorHandler errorHandler, Metrics metrics) {
    this.router = router;
    this.errorHandler = errorHandler;
    this.metrics = metrics;
  }

  boolean hasListeners(String type) {
    return router.listenersFor(type).length > 0;
  }

  /** Runs every listener for the event; {@code false} when one threw. */
  boolean dispatch(WebhookEvent event) {
    return run(event) == null;
  }

  /** Runs every listener for the event; the first listener failure, or {@code null}. */
  Throwable run(WebhookEvent event) {
    WebhookListener[] listeners = router.listenersFor(event.type());
    if (listeners.length == 0) {
      metrics.event(event.type(), "unhandled");
      return null;
    }
    for (WebhookListener listener : listeners) {
      try {
        listener.onEvent(event);
      } catch (Throwable t) {
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
    }
    metrics.event(event.type(), "dispatched");
    return null;
  }

  @Override
  public String toString() {
    return "Dispatcher";
  }
}
