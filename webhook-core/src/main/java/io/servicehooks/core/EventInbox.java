package io.servicehooks.core;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * A durable store of verified events, shared by every instance of a consumer: the SPI behind {@link
 * Acknowledgement#DURABLE}. A delivery is answered 200 only once {@link #store} says every event is
 * committed; the inbox's own workers then hand each stored event to the {@link InboxProcessor},
 * retrying failures, until it is done or kept as a dead letter. {@code webhook-postgres} implements
 * it on PostgreSQL.
 *
 * <p>The store is also the dedup: storing an event whose {@link StoredEvent#dedupKey()} is already
 * stored writes nothing and answers {@link InboxOutcome#DUPLICATE}, in the same atomic step, so an
 * event is never seen as known without being stored. The consumer's {@link Deduplicator} is not
 * used in this mode.
 *
 * <p>The consumer owns the inbox it is given: it calls {@link #start} once when built and {@link
 * #close} when closed.
 */
public interface EventInbox extends AutoCloseable {

  /**
   * Stores one delivery's events. The stage completes once they are committed, with one outcome per
   * event in the same order, or exceptionally when they could not be (the delivery is then answered
   * 503 and the platform retries it). An inbox whose {@code store} may block its caller for I/O
   * says so with {@link #mayBlock()}; adapters then call it from a worker thread.
   */
  CompletionStage<List<InboxOutcome>> store(List<StoredEvent> events);

  /** Starts handing due events to {@code processor}, on the inbox's own threads. Called once. */
  void start(InboxProcessor processor);

  /**
   * Whether {@link #store} may block its caller. Adapters then call it from a worker thread, never
   * from a server's IO thread. An inbox whose {@code store} only queues the events returns {@code
   * false}.
   */
  default boolean mayBlock() {
    return true;
  }

  /**
   * Stops taking events and stops the workers, letting running listeners finish within the inbox's
   * own limits. An event whose listener did not finish is handled again later (by this or another
   * instance), never lost.
   */
  @Override
  void close();
}
