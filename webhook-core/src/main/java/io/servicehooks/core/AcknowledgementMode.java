package io.servicehooks.core;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * When a delivery is answered relative to its listeners, one implementation per {@link
 * Acknowledgement}: after they ran ({@link SynchronousAcknowledgement}), once the owned events are
 * on the consumer's in-memory queue ({@link AsynchronousAcknowledgement}), or once they are handed
 * to an {@link EventInbox} ({@link DurableAcknowledgement}). A mode claims events at the {@link
 * DedupGate} (in durable mode only when the inbox does not {@linkplain EventInbox#deduplicates()
 * deduplicate}), has the {@link Dispatcher} run the owned ones (now or later) and answers through
 * {@link Answers}; which thread does each step it asks {@link ListenerThreads}.
 *
 * <p>Internal on purpose: a mode sees the gate's claims, the answers and the threads, none of which
 * is API. New ways of keeping events (a database table, a message broker, a spool) enter through
 * the public {@link EventInbox} and {@link InboxProcessor} with {@link Acknowledgement#DURABLE},
 * and touch no class here.
 */
interface AcknowledgementMode {

  /**
   * Answers a verified, parsed delivery. The future never completes exceptionally; an unexpected
   * exception thrown from here (a bug) is answered 500 by the caller.
   *
   * @param start {@link System#nanoTime()} when the delivery arrived, for its latency
   * @param caller the thread the delivery is on, as {@link ListenerThreads} knows it: where its
   *     listeners run and where a late store answer goes on
   */
  CompletableFuture<WebhookResponse> acknowledge(
      List<WebhookEvent> events, long start, ListenerThreads.Caller caller);

  /** Stops taking events and lets those already taken finish, within the mode's own limits. */
  default void close() {}
}
