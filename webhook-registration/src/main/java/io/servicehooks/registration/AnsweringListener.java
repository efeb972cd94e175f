package io.servicehooks.registration;

import io.servicehooks.core.WebhookEvent;

/**
 * A listener that may answer the event it gets, through {@link Say}: registered with {@link
 * Answering#listener(Class, AnsweringListener)}.
 *
 * <pre>{@code
 * (event, post, say) -> {
 *   if (post.isMentionOf(botUserId)) {
 *     say.reply("@" + post.authorUsername() + " thanks!");
 *   }
 * }
 * }</pre>
 *
 * @param <T> the payload record ({@code PostCreated}, {@code DirectMessage}, ...)
 */
@FunctionalInterface
public interface AnsweringListener<T> {

  /**
   * Handles one event; an exception (a refused answer included) fails it as any listener's does.
   *
   * @param event the event, with its type, id and the user it is for
   * @param payload its payload as the record
   * @param say answers as the user the event is for
   */
  void onEvent(WebhookEvent event, T payload, Say say) throws Exception;
}
