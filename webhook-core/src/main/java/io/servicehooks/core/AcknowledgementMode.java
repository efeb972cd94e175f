package io.servicehooks.core;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * When a delivery is answered relative to its listeners: after they ran ({@link
 * SynchronousAcknowledgement}) or once its events are safely queued ({@link
 * AsynchronousAcknowledgement}). A mode claims each event at the {@link DedupGate}, has the {@link
 * Dispatcher} run the events it owns (now or later) and answers through {@link Answers}. A new
 * mode, such as a durable inbox, is a new class.
 */
interface AcknowledgementMode {

  /**
   * Answers a verified, parsed delivery. The future never completes exceptionally; an unexpected
   * exception thrown from here (a bug) is answered 500 by the caller.
   *
   * @param start {@link System#nanoTime()} when the delivery arrived, for its latency
   * @param executor where listeners run; {@code null} means the calling thread. Modes with threads
   *     of their own ignore it.
   * @param resumeOn where the rest of the delivery runs when the dedup store answers later than
   *     this call; {@code null}: the calling thread waits for it (it may block), unless listeners
   *     are declared non-blocking
   */
  CompletableFuture<WebhookResponse> acknowledge(
      List<WebhookEvent> events, long start, Executor executor, Executor resumeOn);

  /** Stops taking events and lets those already taken finish, within the mode's own limits. */
  default void close() {}
}
