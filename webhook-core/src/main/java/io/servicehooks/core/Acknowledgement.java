package io.servicehooks.core;

/** When a delivery is answered relative to running its listeners. */
public enum Acknowledgement {
  /**
   * The default: answer after every listener finished, 200 when all succeeded and 500 when one
   * threw, so the platform retries what failed.
   */
  SYNCHRONOUS,
  /**
   * Answer 200 as soon as the delivery's events are on a bounded in-memory queue; listeners run
   * later on the consumer's own daemon threads. A full queue answers 503 and the platform retries.
   *
   * <p>The 200 is sent before the listeners run, so the platform never retries what this mode loses
   * after it; such an event comes back only through a replay (at most 24 hours back). It loses:
   *
   * <ul>
   *   <li>an event whose listener fails: the failure reaches only the {@link ErrorHandler} (the
   *       event's dedup claim is released, so a replay runs it);
   *   <li>every event queued or running when the process crashes, is killed, or exits without
   *       {@link WebhookConsumer#close()} (the listener threads are daemon threads and do not hold
   *       the JVM);
   *   <li>every event still queued when {@link WebhookConsumer#close()} gives up after the {@link
   *       WebhookConsumer.Builder#drainTimeout drain time-out} (logged with their count).
   * </ul>
   *
   * Use it only where a lost event is acceptable; otherwise stay {@link #SYNCHRONOUS} or {@link
   * #DURABLE}.
   */
  ASYNCHRONOUS,
  /**
   * Answer 200 only once every event of the delivery is committed to a durable {@link EventInbox}
   * (given with {@link WebhookConsumer.Builder#inbox}); the inbox then runs the listeners through
   * its {@link InboxProcessor}, retrying failures, and keeps what keeps failing as a dead letter. A
   * copy of a stored event is answered 200 {@code duplicate}: an inbox that {@linkplain
   * EventInbox#deduplicates() deduplicates} says so itself and the {@link Deduplicator} is not
   * used; for one that does not, each event is claimed in the {@link Deduplicator} before it is
   * stored and marked done once the inbox has it (a copy arriving meanwhile is answered 503 {@code
   * in_flight}). An inbox that cannot store in time is answered 503 {@code inbox_unavailable} with
   * {@code Retry-After} (the claims released): nothing is acknowledged that is not stored.
   * Listeners run at least once: one running when its process dies runs again elsewhere.
   */
  DURABLE
}
