package io.servicehooks.registration;

import io.servicehooks.core.TypedEventListener;
import java.util.Objects;

/**
 * Lets listeners answer the events they get, in one line, as Slack Bolt's {@code say()}: the
 * consumer knows which user an event is for ({@code for_user_id}), this finds that user's
 * credentials in the {@link UserCredentialsSource} the application gives and hands the listener a
 * {@link Say} acting for them.
 *
 * <pre>{@code
 * Answering answering = Answering.with(client, UserCredentialsSource.fromEnvironment());
 * WebhookConsumer consumer = WebhookConsumer.builder()
 *     .consumerSecrets(secret)
 *     .onEvent(PostCreated.class, answering.listener(PostCreated.class, (event, post, say) -> {
 *       if (post.isMentionOf(say.userId())) {
 *         say.reply("@" + post.authorUsername() + " thanks!");
 *       }
 *     }))
 *     .onEvent(DirectMessage.class, answering.listener(DirectMessage.class,
 *         (event, dm, say) -> say.reply("got it")))
 *     .build();
 * }</pre>
 *
 * <p><b>Threads and failures.</b> The answer runs on the listener's own thread, inside its own
 * failure handling: the core runs listeners off the network IO thread (on its worker executor)
 * unless they were declared non-blocking ({@code WebhookConsumer.Builder#listenersNonBlocking}),
 * which a listener that answers is not: leave that setting off. A failed answer (no credentials for
 * the user, a refusal of the platform, a lost connection) is a failed listener: the delivery is
 * answered as failed, and in durable mode the event is tried again later; it is never lost
 * silently. A post or a direct message is sent once per run, never repeated automatically; with a
 * store that survives restarts a redelivered event is not run (nor answered) twice.
 *
 * <p><b>Tracing.</b> With {@link
 * #observationRegistry(io.micrometer.observation.ObservationRegistry)} each call an answer makes is
 * an observation {@code servicehooks.answer}, a child of the current one: the listener's ({@code
 * servicehooks.listener}), itself a child of the delivery's.
 *
 * <p>Immutable and thread-safe.
 */
public final class Answering {

  private final WebhookClient client;
  private final UserCredentialsSource credentials;
  private final Object registry; // an ObservationRegistry, held untyped: Micrometer is optional

  private Answering(WebhookClient client, UserCredentialsSource credentials, Object registry) {
    this.client = client;
    this.credentials = credentials;
    this.registry = registry;
  }

  /**
   * Answers with {@code client} (its API key and secret sign every call made for a user) as the
   * users whose credentials {@code credentials} finds.
   */
  public static Answering with(WebhookClient client, UserCredentialsSource credentials) {
    return new Answering(
        Objects.requireNonNull(client, "client"),
        Objects.requireNonNull(credentials, "credentials"),
        null);
  }

  /**
   * The same, each call an answer makes observed in {@code registry} as {@code
   * servicehooks.answer}, a child of the current observation (give the consumer's registry).
   */
  public Answering observationRegistry(io.micrometer.observation.ObservationRegistry registry) {
    return new Answering(client, credentials, Objects.requireNonNull(registry, "registry"));
  }

  /**
   * A listener for {@code WebhookConsumer.Builder#onEvent(Class, TypedEventListener)} that hands
   * {@code listener} a {@link Say} for each event.
   *
   * @param type the payload record, as given to {@code onEvent}
   */
  public <T> TypedEventListener<T> listener(Class<T> type, AnsweringListener<T> listener) {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(listener, "listener");
    return (event, payload) -> {
      CallObserver observer =
          registry == null ? CallObserver.NONE : AnswerObservations.of(registry, event);
      listener.onEvent(event, payload, new Say(client, credentials, event, payload, observer));
    };
  }

  @Override
  public String toString() {
    return "Answering[" + credentials + "]";
  }
}
