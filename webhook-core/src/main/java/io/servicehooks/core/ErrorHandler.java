package io.servicehooks.core;

/**
 * Told about every listener failure, in both acknowledgement modes. In asynchronous mode this is
 * the only place a failure shows, since the platform has already been answered.
 */
@FunctionalInterface
public interface ErrorHandler {

  /**
   * Called on the thread that ran the failing listener.
   *
   * @param event the event whose listener failed
   * @param error what the listener threw
   */
  void onError(WebhookEvent event, Throwable error);
}
