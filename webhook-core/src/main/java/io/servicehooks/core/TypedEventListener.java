package io.servicehooks.core;

/**
 * A listener that takes an event together with its payload as a typed record of {@link
 * io.servicehooks.core.payload} ({@link WebhookConsumer.Builder#onEvent(Class,
 * TypedEventListener)}): the event says which type arrived ({@code post.mention.create} or {@code
 * post.reply.create} for a {@code PostCreated}), its id and the subscribed user, the record the
 * payload's fields.
 *
 * <pre>{@code
 * .onEvent(PostCreated.class, (event, post) -> {
 *   if (post.isMentionOf(botUserId) && !botUserId.equals(post.authorId())) {
 *     answer(post.id(), "@" + post.authorUsername());
 *   }
 * })
 * }</pre>
 *
 * @param <T> the payload record
 */
@FunctionalInterface
public interface TypedEventListener<T> {

  /**
   * Handles one event; an exception fails it as any listener's does.
   *
   * @param event the event, with its {@link WebhookEvent#type() type}, id and raw JSON
   * @param payload its payload as the record
   */
  void onEvent(WebhookEvent event, T payload) throws Exception;
}
