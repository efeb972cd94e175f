package io.servicehooks.core;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Where {@link Acknowledgement#DURABLE} hands verified events, and the door for every new way of
 * keeping them: a database table ({@code webhook-postgres}), a message broker, a spool. A delivery
 * is answered 200 only once {@link #store} says every event it had to store is committed; what runs
 * the listeners afterwards is the inbox's business: it hands each event to the {@link
 * InboxProcessor} given in {@link #start}, on threads of its own or in another process that builds
 * a consumer with the same listeners, and owns the retries and the dead letters.
 *
 * <p>The dedup is one of two kinds, as {@link #deduplicates()} says:
 *
 * <ul>
 *   <li>{@code true} (the default): the store is the dedup. Storing an event whose {@link
 *       StoredEvent#dedupKey()} is already stored writes nothing and answers {@link
 *       InboxOutcome#DUPLICATE}, in the same atomic step, so an event is never seen as known
 *       without being stored. The consumer's {@link Deduplicator} is not used, and its dedup meters
 *       are not registered.
 *   <li>{@code false}: the store keeps whatever it is given (a broker topic does). The consumer
 *       then claims each event in its {@link Deduplicator} (in memory, Redis...) before storing it,
 *       with the same in-flight wait, lease and fail-open rules as the other modes, and hands the
 *       inbox only the events it owns. Once the stage of {@link #store} completes it marks them
 *       done; when it fails (or does not complete within the {@linkplain
 *       WebhookConsumer.Builder#inboxTimeout time-out}) it releases them and answers 503 {@code
 *       inbox_unavailable} with {@code Retry-After}, so the platform's retry stores them. A copy of
 *       an event already done is answered 200 {@code duplicate}; a copy of one being stored right
 *       now, 503 {@code in_flight}. Such an inbox answers {@link InboxOutcome#STORED} for every
 *       event.
 * </ul>
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

  /**
   * Starts handing stored events to {@code processor}, which runs the consumer's listeners for one
   * event on the calling thread (with its typed payloads, metrics and error handler) and throws
   * their failure. The inbox calls it from threads of its own and decides what a failure means
   * (retry later, keep as a dead letter). Called once, when the consumer is built.
   */
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
   * Whether {@link #store} is itself the dedup, answering {@link InboxOutcome#DUPLICATE} for an
   * event already stored, in the same atomic step as the store. An inbox that keeps whatever it is
   * given returns {@code false}; the consumer then claims each event in its {@link Deduplicator}
   * before storing it and marks it done after (see the class comment).
   */
  default boolean deduplicates() {
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
