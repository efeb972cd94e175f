package io.servicehooks.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * What an HTTP adapter needs from a {@link WebhookConsumer} beyond {@link
 * WebhookConsumer#handle(WebhookRequest)}: the one place that documents how a server serves a
 * consumer. Applications never need it; the Undertow handler, the Spring servlet and anything you
 * write for another server do. Get it with {@link WebhookConsumer#adapterSupport()}.
 *
 * <p>An adapter must:
 *
 * <ol>
 *   <li>answer a request whose declared length exceeds {@link #maxBodyBytes()} with {@link
 *       #payloadTooLarge()} without reading it, and stop reading a streamed body once it passes
 *       that limit (same answer); close the connection after either, since the rest is unread;
 *   <li>pass the body's exact bytes and the {@code x-service-webhooks-signature} header, never a
 *       re-encoded body;
 *   <li>answer a body that could not be read (a broken chunk, a reset) with {@link
 *       #unreadableBody()} when the connection can still carry an answer;
 *   <li>call {@link #handle(WebhookRequest, Executor)} from a thread that must not block (an IO
 *       thread) only with its executor for blocking work (a worker pool); the consumer decides what
 *       runs there;
 *   <li>copy the {@link WebhookResponse}'s status, headers and body back unchanged;
 *   <li>run every task its executor accepted from {@link #handle(WebhookRequest, Executor)}, or
 *       pass the task to {@link #refuse(Runnable)} when it finds later that it cannot (an executor
 *       that queues tasks and then loses its threads): either way the request is answered.
 * </ol>
 */
public final class AdapterSupport {

  private final WebhookConsumer consumer;

  AdapterSupport(WebhookConsumer consumer) {
    this.consumer = consumer;
  }

  /**
   * Answers one request from a thread that must not block, such as a server's IO thread: CRC
   * checks, refusals, duplicates and events nobody listens to are answered right here; only when
   * listeners that may block have to run (or a {@link Deduplicator} or {@link EventInbox} that
   * {@linkplain Deduplicator#mayBlock() may block} has to be asked) does the work move to {@code
   * workers}, and the future completes there. Listeners declared {@linkplain
   * #listenersNonBlocking() non-blocking} run on the calling thread. A rejected hand-off answers
   * 503 and releases the claims. The future never completes exceptionally.
   *
   * @param workers the adapter's executor for blocking work, the same one for every request; {@code
   *     null} when the calling thread may block, which then runs everything
   */
  public CompletableFuture<WebhookResponse> handle(WebhookRequest request, Executor workers) {
    return consumer.handle(request, workers);
  }

  /**
   * Answers the delivery behind {@code task}, a task the adapter's executor took from {@link
   * #handle(WebhookRequest, Executor)} and cannot run after all, as if the executor had refused it
   * at once: 503 {@code busy}, its dedup claims released so the platform's retry runs its events.
   * Does nothing to a task that already ran or was refused.
   *
   * @throws IllegalArgumentException if {@code task} is not one the consumer handed to an executor
   */
  public static void refuse(Runnable task) {
    HandOff.refuse(task);
  }

  /** The body size limit in bytes; an adapter must not buffer past it. */
  public int maxBodyBytes() {
    return consumer.maxBodyBytes();
  }

  /**
   * The 413 answer for a body the adapter stopped reading at {@link #maxBodyBytes()}, so never
   * built a request for. Counts and logs the refusal like any other.
   */
  public WebhookResponse payloadTooLarge() {
    return consumer.payloadTooLarge();
  }

  /**
   * The 400 answer for a body that could not be read to its end (a malformed chunk, a connection
   * reset, a time-out): {@code {"error":"unreadable_body",...}}. Counts and logs it.
   */
  public WebhookResponse unreadableBody() {
    return consumer.unreadableBody();
  }

  /**
   * Whether the listeners were declared non-blocking, so that {@link #handle(WebhookRequest,
   * Executor)} runs them on the calling thread (a network IO thread) instead of handing off to a
   * worker. For information: adapters pass their worker executor either way.
   */
  public boolean listenersNonBlocking() {
    return consumer.listenersNonBlocking();
  }

  @Override
  public String toString() {
    return "AdapterSupport[" + consumer + "]";
  }
}
