package io.servicehooks.registration;

import io.servicehooks.core.WebhookEvent;
import io.servicehooks.core.payload.DirectMessage;
import io.servicehooks.core.payload.PostCreated;
import java.io.IOException;
import java.util.Objects;

/**
 * Answers one event as the user it is for ({@code for_user_id}), from an {@link AnsweringListener}:
 * {@link #reply(String)} answers the post or the direct message the event carries, {@link #post},
 * {@link #dm} and {@link #client()} do anything else the user may.
 *
 * <p>The user's credentials are looked up in the {@link UserCredentialsSource} on the first answer;
 * when it has none, that answer fails (and with it the listener) saying so. Every call is made
 * once, on the listener's thread, never repeated automatically (a repeat may post twice); a refusal
 * is a {@link WebhookApiException} with its {@link WebhookApiException.Reason}, which fails the
 * listener like any exception: in durable mode the event is tried again later.
 *
 * <p>One per event; not to be kept beyond the listener's call.
 */
public final class Say {

  private final WebhookClient client;
  private final UserCredentialsSource credentials;
  private final WebhookEvent event;
  private final Object payload;
  private final CallObserver observer;
  private UserClient user;

  Say(
      WebhookClient client,
      UserCredentialsSource credentials,
      WebhookEvent event,
      Object payload,
      CallObserver observer) {
    this.client = client;
    this.credentials = credentials;
    this.event = event;
    this.payload = payload;
    this.observer = observer;
  }

  /**
   * Answers the event with {@code text}: a post ({@code PostCreated}: a mention, a reply, any
   * {@code post.*} creation) gets a reply post; a received direct message ({@code DirectMessage})
   * gets a direct message back to its sender.
   *
   * @return the id of what was created: the reply post's id, or the direct message's event id
   * @throws IllegalStateException before any request, when the event is neither, when the direct
   *     message was sent by the user itself, or when the source has no credentials for the user
   * @throws WebhookApiException when the platform refuses the answer
   */
  public String reply(String text) throws IOException {
    Objects.requireNonNull(text, "text");
    if (payload instanceof PostCreated post) {
      return post(NewPost.text(text).replyTo(post.id())).id();
    }
    if (payload instanceof DirectMessage message) {
      if (message.senderId().equals(userId())) {
        throw new IllegalStateException(
            "reply answers a direct message the user received; "
                + event.type()
                + " "
                + event.id()
                + " was sent by the user itself");
      }
      return dm(message.senderId(), text).dmEventId();
    }
    throw new IllegalStateException(
        "reply answers a post or a direct message; "
            + event.type()
            + " carries "
            + (payload == null ? "no payload record" : payload.getClass().getSimpleName())
            + ": use post(...) or dm(...)");
  }

  /** Creates a post as the user; see {@link Posts#create}. */
  public CreatedPost post(NewPost post) throws IOException {
    return client().posts().create(post);
  }

  /** Sends a direct message as the user; see {@link DirectMessages#send}. */
  public SentMessage dm(String userId, String text) throws IOException {
    return client().directMessages().send(userId, text);
  }

  /**
   * The client acting for the user the event is for: lookups, posts, direct messages,
   * subscriptions. Its posts and direct messages are traced as this answer's.
   *
   * @throws IllegalStateException when the source has no credentials for the user
   */
  public UserClient client() {
    UserClient current = user;
    if (current == null) {
      String userId = userId();
      UserCredentials found =
          credentials
              .forUser(userId)
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "cannot answer "
                              + event.type()
                              + " "
                              + event.id()
                              + ": no credentials for user "
                              + userId
                              + " in "
                              + credentials
                              + " (UserCredentialsSource.fromEnvironment() reads "
                              + UserCredentialsSource.TOKEN_VARIABLE
                              + " and "
                              + UserCredentialsSource.TOKEN_SECRET_VARIABLE
                              + ", or the file of `servicehooks auth login`)"));
      current = client.forUser(found).observedBy(observer);
      user = current;
    }
    return current;
  }

  /** The user the event is for. */
  public String userId() {
    return event
        .forUserId()
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "cannot answer "
                        + event.type()
                        + " "
                        + event.id()
                        + ": the event names no user it is for (for_user_id)"));
  }

  /** The event this answers. */
  public WebhookEvent event() {
    return event;
  }

  @Override
  public String toString() {
    return "Say[" + event.type() + " " + event.id() + "]";
  }
}
