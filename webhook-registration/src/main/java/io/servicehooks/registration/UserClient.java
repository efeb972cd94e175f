package io.servicehooks.registration;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A view of {@link WebhookClient} that acts for one user: every call is signed with OAuth 1.0a
 * (HMAC-SHA1) with the application's API key and secret and the user's {@link UserCredentials}
 * instead of carrying the app-only bearer token. Subscriptions to private activity (direct
 * messages, {@code dm.*}) are made this way; the platform refuses them with the app-only token
 * ({@link WebhookApiException.Reason#USER_CONTEXT_REQUIRED}).
 *
 * <pre>{@code
 * UserClient alice = client.forUser(credentials);
 * alice.createSubscription("dm.received", Map.of("user_id", credentials.userId()), "alice-dms", null);
 * }</pre>
 *
 * <p>Obtained from {@link WebhookClient#forUser(UserCredentials)}; immutable and thread-safe.
 */
public final class UserClient {

  private static final Logger LOG = LoggerFactory.getLogger(WebhookClient.class);

  private final ApiCaller api;
  private final UserCredentials credentials;
  private final SubscriptionsResource subscriptions;
  private final CallObserver observer;

  UserClient(ApiCaller api, OAuthSigner signer, UserCredentials credentials) {
    this.credentials = credentials;
    this.observer = CallObserver.NONE;
    this.api =
        api.signedBy(
            (method, uri) ->
                signer.authorization(
                    method,
                    uri,
                    List.of(),
                    credentials.token(),
                    credentials.tokenSecret(),
                    List.of()));
    this.subscriptions = new SubscriptionsResource(this.api);
  }

  private UserClient(UserClient signed, CallObserver observer) {
    this.credentials = signed.credentials;
    this.api = signed.api;
    this.subscriptions = signed.subscriptions;
    this.observer = observer;
  }

  /** The same client, its posts and direct messages traced by {@code observer}. */
  UserClient observedBy(CallObserver observer) {
    return new UserClient(this, observer);
  }

  /**
   * Looks posts up and creates them, for the user: {@link Posts#create} posts as the user, and a
   * lookup sees what the user may see.
   */
  public Posts posts() {
    return new Posts(api, true, observer);
  }

  /** Sends direct messages as the user. */
  public DirectMessages directMessages() {
    return new DirectMessages(api, observer);
  }

  /** The user's id, when the credentials name it. */
  public String userId() {
    return credentials.userId();
  }

  /**
   * Subscribes to activity events in the user's context ({@code POST /2/activity/subscriptions});
   * the arguments are those of {@link WebhookClient#createSubscription}.
   */
  public Subscription createSubscription(
      String eventType, Map<String, String> filter, String tag, String webhookId)
      throws IOException {
    return subscriptions.create(eventType, filter, tag, webhookId);
  }

  /** Lists the activity subscriptions, in the user's context. */
  public List<Subscription> listSubscriptions() throws IOException {
    return subscriptions.list();
  }

  /** Removes an activity subscription, in the user's context. */
  public boolean deleteSubscription(String subscriptionId) throws IOException {
    return subscriptions.delete(subscriptionId);
  }

  /**
   * Revokes the user's access token ({@code POST /1.1/oauth/invalidate_token}, signed with that
   * token), as after a sign-out or a leak: from now on the platform refuses it, and the user must
   * sign in again.
   *
   * @throws WebhookApiException {@link WebhookApiException.Reason#TOKEN_INVALID} when the token was
   *     revoked already
   */
  public void invalidateToken() throws IOException {
    api.call("POST", "/1.1/oauth/invalidate_token", null, ApiCaller.Repeat.UNSAFE);
    LOG.info("access token of user {} invalidated", credentials.userId());
  }

  @Override
  public String toString() {
    return "UserClient[baseUrl="
        + api.baseUri()
        + ", userId="
        + credentials.userId()
        + ", screenName="
        + credentials.screenName()
        + "]";
  }
}
