package io.servicehooks.samples;

import io.servicehooks.core.EventInbox;
import io.servicehooks.core.InboxOutcome;
import io.servicehooks.core.InboxProcessor;
import io.servicehooks.core.StoredEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * A new way of keeping events, added without touching the core: an {@link EventInbox} that hands
 * each event to a spool (a message broker's topic, a queue, a directory) which keeps whatever it is
 * given and does not deduplicate. The consumer therefore claims each event in its {@code
 * Deduplicator} before handing it in and marks it done once the spool acknowledged it; a delivery
 * is answered 200 only once every event it owned was acknowledged.
 *
 * <p>Whatever reads the spool (this process or another one built with the same listeners) gives
 * each event to {@link #process}, which runs the consumer's listeners with their typed payloads,
 * metrics and error handler, and throws their failure: retrying and keeping dead letters are the
 * reader's business.
 *
 * <p>Give it to a consumer with {@code WebhookConsumer.Builder.inbox(new SpoolInbox(append))},
 * where {@code append} sends one event and completes once the spool keeps it; {@code
 * SpoolInboxTest} shows the whole round trip over a real server.
 */
public final class SpoolInbox implements EventInbox {

  private final Function<StoredEvent, CompletionStage<?>> append;
  private volatile InboxProcessor processor;

  /**
   * @param append hands one event to the spool; its stage completes once the spool keeps the event
   *     (the broker acknowledged it), exceptionally when it will not
   */
  public SpoolInbox(Function<StoredEvent, CompletionStage<?>> append) {
    this.append = Objects.requireNonNull(append, "append");
  }

  /** {@code false}: the spool keeps every event it is given, copies too. */
  @Override
  public boolean deduplicates() {
    return false;
  }

  /** {@code false}: appending only sends; the spool's acknowledgement completes the stage. */
  @Override
  public boolean mayBlock() {
    return false;
  }

  @Override
  public CompletionStage<List<InboxOutcome>> store(List<StoredEvent> events) {
    CompletableFuture<?>[] acks = new CompletableFuture<?>[events.size()];
    for (int i = 0; i < acks.length; i++) {
      acks[i] = append.apply(events.get(i)).toCompletableFuture();
    }
    List<InboxOutcome> stored = new ArrayList<>(events.size());
    for (int i = 0; i < acks.length; i++) {
      stored.add(InboxOutcome.STORED);
    }
    return CompletableFuture.allOf(acks).thenApply(ignored -> stored);
  }

  @Override
  public void start(InboxProcessor processor) {
    this.processor = processor;
  }

  /**
   * Runs the consumer's listeners for one event read back from the spool, on the calling thread.
   *
   * @throws Exception the first listener failure, for the reader to retry or keep as a dead letter
   */
  public void process(StoredEvent event) throws Exception {
    InboxProcessor p = processor;
    if (p == null) {
      throw new IllegalStateException("the inbox is not started: give it to a consumer first");
    }
    p.process(event);
  }

  /** Nothing to stop: the spool and its reader belong to the application. */
  @Override
  public void close() {}

  @Override
  public String toString() {
    return "SpoolInbox";
  }
}
