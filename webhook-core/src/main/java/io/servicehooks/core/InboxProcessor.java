package io.servicehooks.core;

/**
 * What a durable {@link EventInbox} calls to handle one stored event: the consumer hands it over in
 * {@link EventInbox#start}. It rebuilds the {@link WebhookEvent} and runs its listeners on the
 * calling thread (the inbox's worker).
 */
@FunctionalInterface
public interface InboxProcessor {

  /**
   * Runs the event's listeners. Returns normally when every listener succeeded (or none matched):
   * the inbox marks the event done.
   *
   * @throws Exception the first listener failure (an {@code Error} other than a {@link
   *     VirtualMachineError} arrives wrapped in an {@link InboxProcessor.ListenerError}): the inbox
   *     retries the event later, or keeps it as a dead letter
   */
  void process(StoredEvent event) throws Exception;

  /** Carries a listener's {@code Error} (an {@code AssertionError}, say) as an exception. */
  final class ListenerError extends Exception {
    private static final long serialVersionUID = 1L;

    /** Wraps {@code cause}. */
    public ListenerError(Error cause) {
      super(cause.toString(), cause);
    }
  }
}
