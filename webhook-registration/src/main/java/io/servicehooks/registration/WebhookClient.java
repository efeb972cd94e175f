package io.servicehooks.registration;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Registers webhooks and activity subscriptions with the platform: the one entry point of this
 * module. It holds the app-only bearer token (given, or fetched with the API key and secret and
 * cached), checks consumer URLs against the platform's rules before sending them, retries
 * rate-limited and failed reads within a bounded wait, and turns the platform's errors into {@link
 * WebhookApiException}.
 *
 * <p>At the edges:
 *
 * <ul>
 *   <li>A URL the platform would refuse (not https, any port, even an empty one as in {@code
 *       https://example.com:/hook}, over 200 characters) is an {@link IllegalArgumentException}
 *       naming the rule, before any call.
 *   <li>A 429 is retried when the platform's reset time ({@code x-rate-limit-reset}, else {@code
 *       Retry-After}) is within {@link Builder#maxRetryWait(Duration)}; whatever those headers hold
 *       (huge, negative, not a number, a date far ahead), a call still refused ends as a {@link
 *       WebhookApiException} with reason {@link WebhookApiException.Reason#RATE_LIMITED} and status
 *       429.
 *   <li>{@link #delete(String)} repeats a call whose answer was lost; an id the repeat finds
 *       unknown counts as deleted.
 *   <li>Response bodies are read up to {@link #MAX_RESPONSE_BODY_BYTES}; a larger one is a {@link
 *       WebhookApiException} saying so, and is never buffered whole.
 *   <li>The {@linkplain Builder#requestTimeout request time-out} bounds each answer whole, the
 *       token fetch included: an answer that sends its headers and then stops is an {@link
 *       java.net.http.HttpTimeoutException}, not a wait for ever.
 * </ul>
 *
 * <pre>{@code
 * WebhookClient client = WebhookClient.builder()
 *         .baseUrl(URI.create("https://api.example.com"))
 *         .apiCredentials(System.getenv("SERVICE_API_KEY"), System.getenv("SERVICE_API_SECRET"))
 *         .build();
 * Webhook webhook = client.ensureRegistered("https://hooks.example.org/service");
 * }</pre>
 *
 * <p>To act for a user (subscriptions to private events such as direct messages), sign the user in
 * with {@link #userSignIn()} and make the calls through {@link #forUser(UserCredentials)}.
 *
 * <p>Instances are immutable and thread-safe; share one per application.
 *
 * <p>This class is the facade and its builder: it wires one {@link ApiCaller} (the shared token,
 * retries and error mapping) and hands each call to the client of its resource ({@link
 * WebhooksResource}, {@link SubscriptionsResource}, {@link ReplayResource}, {@link
 * ConnectionsResource}).
 */
public final class WebhookClient {

  /**
   * The largest response body the client reads: 1 MiB, far above any answer of the registration
   * API. A larger body is not buffered: the call fails with a {@link WebhookApiException} (the
   * answer's status, reason {@link WebhookApiException.Reason#UNKNOWN}) saying it was too large,
   * and the connection is closed.
   */
  public static final int MAX_RESPONSE_BODY_BYTES = 1024 * 1024;

  /** Waits between retries; replaceable so tests move a clock instead of sleeping. */
  @FunctionalInterface
  public interface Sleeper {
    /** Waits for the given duration. */
    void sleep(Duration duration) throws InterruptedException;

    /** The real thing: {@link Thread#sleep(long)}. */
    static Sleeper system() {
      return duration -> Thread.sleep(ApiCaller.saturatedMillis(duration));
    }
  }

  private final URI baseUri;
  private final boolean allowInsecureUrls;
  private final ApiCaller api;
  private final WebhooksResource webhooks;
  private final SubscriptionsResource subscriptions;
  private final ReplayResource replays;
  private final ConnectionsResource connections;
  private final String authDescription;
  private final OAuthSigner signer;

  private WebhookClient(Builder builder, URI baseUri) {
    this.baseUri = baseUri;
    this.allowInsecureUrls = builder.allowInsecureUrls;
    HttpClient http =
        HttpClient.newBuilder()
            .connectTimeout(builder.connectTimeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    TokenSource tokens =
        builder.bearerToken != null
            ? TokenSource.fixed(builder.bearerToken)
            : TokenSource.clientCredentials(
                builder.apiKey,
                builder.apiSecret,
                http,
                baseUri,
                builder.requestTimeout,
                builder.clock);
    this.authDescription = builder.bearerToken != null ? "bearer token" : "client credentials";
    this.signer =
        builder.apiKey == null
            ? null
            : new OAuthSigner(
                builder.apiKey,
                builder.apiSecret,
                builder.clock,
                OAuthSigner.secureNonces(new SecureRandom()));
    this.api =
        new ApiCaller(
            http,
            baseUri,
            builder.requestTimeout,
            tokens,
            builder.maxRetries,
            builder.maxRetryWait,
            builder.clock,
            builder.sleeper);
    this.webhooks = new WebhooksResource(api, allowInsecureUrls);
    this.subscriptions = new SubscriptionsResource(api);
    this.replays = new ReplayResource(api);
    this.connections = new ConnectionsResource(api);
  }

  /** Starts configuring a client. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Checks a consumer URL against the platform's rules (https, no port, not even an empty one as in
   * {@code https://example.com:/hook}, at most 200 characters, well formed) without calling
   * anything.
   *
   * @param allowInsecure permit http and ports, for local rehearsal against a simulator
   * @throws IllegalArgumentException naming the rule the URL breaks
   */
  public static void checkWebhookUrl(String url, boolean allowInsecure) {
    WebhookUrls.check(url, allowInsecure);
  }

  /**
   * Registers a webhook ({@code POST /2/webhooks}); the platform checks the URL with a CRC at once.
   * If the answer is lost (a 5xx, a time-out or a dropped connection), the client does not repeat
   * the create: it lists the webhooks and returns the one with this URL if the create did happen.
   *
   * @throws IllegalArgumentException when the URL breaks the platform's rules
   * @throws WebhookApiException for example {@code DuplicateUrlFailed} or {@code
   *     CrcValidationFailed}
   * @throws IOException when the platform cannot be reached
   */
  public Webhook create(String url) throws IOException {
    return webhooks.create(url);
  }

  /**
   * Lists the application's webhooks ({@code GET /2/webhooks}); an empty list when there are none.
   */
  public List<Webhook> list() throws IOException {
    return webhooks.list();
  }

  /**
   * Asks the platform to check the webhook again ({@code PUT /2/webhooks/{id}}), for instance after
   * the consumer was down.
   *
   * @return whether the webhook is valid now
   * @throws WebhookApiException {@code WebhookIdInvalid} or {@code CrcValidationFailed}
   */
  public boolean revalidate(String webhookId) throws IOException {
    return webhooks.revalidate(webhookId);
  }

  /**
   * Removes a webhook ({@code DELETE /2/webhooks/{id}}). Deleting twice does no harm, so when the
   * answer is lost (a 5xx, a time-out or a dropped connection) the client repeats the call, within
   * {@link Builder#maxRetries(int)}; if the repeat is refused with {@code WebhookIdInvalid}, the
   * lost attempt did the deletion and this returns {@code true}.
   *
   * @return whether the platform reports it deleted
   * @throws WebhookApiException {@code WebhookIdInvalid} when the id is unknown to the first
   *     attempt (or after a 429, which applies nothing)
   * @throws IOException when the platform cannot be reached, also after the retries
   */
  public boolean delete(String webhookId) throws IOException {
    return webhooks.delete(webhookId);
  }

  /**
   * Asks the platform to deliver again the events of a time window ({@code POST
   * /2/webhooks/replay}); the window must lie within the last 24 hours and is sent to the minute,
   * in UTC.
   *
   * @throws WebhookApiException {@code ReplayConflictError} when a job is already running
   */
  public ReplayJob replay(String webhookId, Instant from, Instant to) throws IOException {
    return replays.replay(webhookId, from, to);
  }

  /**
   * Makes sure the URL is registered and valid, as an application does at start-up: keeps a valid
   * webhook with this URL, revalidates an invalid one, creates it when absent, and treats {@code
   * DuplicateUrlFailed} (another instance registered it meanwhile) as success.
   *
   * @return the webhook, with {@code valid} as last checked
   * @throws WebhookApiException for example {@code CrcValidationFailed} when the consumer does not
   *     answer
   */
  public Webhook ensureRegistered(String url) throws IOException {
    return webhooks.ensureRegistered(url);
  }

  /**
   * Subscribes to activity events ({@code POST /2/activity/subscriptions}).
   *
   * @param eventType for example {@code post.create}
   * @param filter for example {@code Map.of("user_id", "2244994945")} or {@code Map.of("keyword",
   *     "x")}, with an optional {@code direction}
   * @param tag echoed in every delivery of this subscription, or {@code null}
   * @param webhookId the webhook to deliver to, or {@code null} for the platform's default
   */
  public Subscription createSubscription(
      String eventType, Map<String, String> filter, String tag, String webhookId)
      throws IOException {
    return subscriptions.create(eventType, filter, tag, webhookId);
  }

  /** Lists the application's activity subscriptions ({@code GET /2/activity/subscriptions}). */
  public List<Subscription> listSubscriptions() throws IOException {
    return subscriptions.list();
  }

  /** Removes an activity subscription; returns whether the platform reports it deleted. */
  public boolean deleteSubscription(String subscriptionId) throws IOException {
    return subscriptions.delete(subscriptionId);
  }

  /**
   * The three legs of OAuth 1.0a sign-in, by which a user lets this application act for them; see
   * {@link UserSignIn}.
   *
   * @throws IllegalStateException when the client was given a bearer token instead of the API key
   *     and secret, which sign every leg
   */
  public UserSignIn userSignIn() {
    return new UserSignIn(api, signer());
  }

  /**
   * A view of this client that acts for the user these credentials belong to: its calls are signed
   * with OAuth 1.0a instead of carrying the app-only bearer token. Needed for subscriptions to
   * private activity ({@code dm.*}) and to revoke the user's token.
   *
   * @throws IllegalStateException when the client was given a bearer token instead of the API key
   *     and secret, which sign every user-context call
   */
  public UserClient forUser(UserCredentials credentials) {
    Objects.requireNonNull(credentials, "credentials");
    return new UserClient(api, signer(), credentials);
  }

  private OAuthSigner signer() {
    if (signer == null) {
      throw new IllegalStateException(
          "acting for a user needs the API key and secret (apiCredentials); this client was given"
              + " a bearer token");
    }
    return signer;
  }

  /**
   * Looks posts up with the app-only bearer token ({@link Posts#lookup}, {@link Posts#get}).
   * Posting acts for a user: {@link Posts#create} from here is refused before any request; create
   * posts through {@link #forUser(UserCredentials)}{@code .posts()}.
   */
  public Posts posts() {
    return new Posts(api, false, CallObserver.NONE);
  }

  /**
   * Changes a subscription's tag or webhook ({@code PUT /2/activity/subscriptions/{id}}); the
   * platform changes nothing else. Repeating it does no harm, so a lost answer is retried like a
   * read.
   *
   * @return the subscription as the platform now has it
   * @throws IllegalArgumentException when {@code update} changes nothing
   * @throws WebhookApiException for example 404 for an unknown subscription, {@code
   *     WebhookIdInvalid} for an unknown webhook
   */
  public Subscription updateSubscription(String subscriptionId, SubscriptionUpdate update)
      throws IOException {
    return subscriptions.update(subscriptionId, update);
  }

  /**
   * Lists the application's open activity-stream connections ({@code GET /2/connections}); empty
   * when there are none.
   */
  public List<StreamConnection> listConnections() throws IOException {
    return connections.list();
  }

  /**
   * Ends one activity-stream connection ({@code DELETE /2/connections/{endpoint_id}}); the consumer
   * holding it sees its stream end (and reconnects, unless it was stopped).
   *
   * @return how many connections the platform reports ended (1), or 1 when it did not say
   * @throws WebhookApiException for example 404 when no connection has that id
   */
  public int killConnection(String endpointId) throws IOException {
    return connections.kill(endpointId);
  }

  /**
   * Ends every activity-stream connection of the application ({@code DELETE /2/connections/all}),
   * for instance before a deploy or after a token leak.
   *
   * @return how many connections the platform reports ended, or -1 when it did not say
   */
  public int killAllConnections() throws IOException {
    return connections.killAll();
  }

  /**
   * Invalidates the application's bearer token ({@code POST /oauth2/invalidate_token}), for
   * instance after it leaked; the next call fetches a new one.
   *
   * @throws IllegalStateException when the client was given a bearer token instead of the API key
   *     and secret
   */
  public void invalidateToken() throws IOException {
    api.tokens().invalidate();
  }

  /**
   * Opens the activity stream ({@code GET /2/activity/stream}) with the bearer token, for {@code
   * webhook-stream}'s {@code ActivityStream}, which applications use instead. Returns as soon as
   * the answer's headers arrived, within the request time-out: a 200 with its body unread (one JSON
   * object per line, read and closed by the caller), any other status with the first 4 KiB of its
   * error body already read, or what of it arrived within the time-out. A 401 fetches a new token
   * once when the client has the API key and secret.
   *
   * @param backfillMinutes 0 to 5: the minutes before now whose events the platform sends again
   * @throws IOException when the platform cannot be reached, or a {@link WebhookApiException} when
   *     the token itself cannot be had
   */
  public HttpResponse<InputStream> openActivityStream(int backfillMinutes) throws IOException {
    return connections.openActivityStream(backfillMinutes);
  }

  /** The platform address this client calls. */
  public URI baseUrl() {
    return baseUri;
  }

  @Override
  public String toString() {
    return "WebhookClient[baseUrl="
        + baseUri
        + ", auth="
        + authDescription
        + ", allowInsecureUrls="
        + allowInsecureUrls
        + "]";
  }

  /**
   * Configures a {@link WebhookClient}. Required: {@link #baseUrl} and either {@link #bearerToken}
   * or {@link #apiCredentials}.
   */
  public static final class Builder {
    private URI baseUrl;
    private String bearerToken;
    private String apiKey;
    private String apiSecret;
    private boolean allowInsecureUrls;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration requestTimeout = Duration.ofSeconds(15);
    private int maxRetries = 3;
    private Duration maxRetryWait = Duration.ofSeconds(60);
    private Clock clock = Clock.systemUTC();
    private Sleeper sleeper = Sleeper.system();

    private Builder() {}

    /**
     * The platform address, such as {@code https://api.example.com}. Plain http is accepted only
     * for a loopback host (a local simulator) or with {@link #allowInsecureUrls(boolean)}, since
     * the credentials travel with every call.
     */
    public Builder baseUrl(URI baseUrl) {
      Objects.requireNonNull(baseUrl, "baseUrl");
      String scheme =
          baseUrl.getScheme() == null ? "" : baseUrl.getScheme().toLowerCase(Locale.ROOT);
      if (!scheme.equals("https") && !scheme.equals("http") || baseUrl.getHost() == null) {
        throw new IllegalArgumentException(
            "baseUrl must be an absolute http(s) URL, was: " + baseUrl);
      }
      if (baseUrl.getRawQuery() != null
          || baseUrl.getRawFragment() != null
          || baseUrl.getRawUserInfo() != null) {
        throw new IllegalArgumentException(
            "baseUrl must not have user information, a query or a fragment, was: "
                + baseUrl.getHost());
      }
      this.baseUrl = baseUrl;
      return this;
    }

    /** Uses this app-only bearer token as is; it cannot be renewed by the client. */
    public Builder bearerToken(String bearerToken) {
      if (bearerToken == null || bearerToken.isBlank()) {
        throw new IllegalArgumentException("bearerToken must not be empty");
      }
      this.bearerToken = bearerToken;
      return this;
    }

    /**
     * Fetches the bearer token with these credentials ({@code POST /oauth2/token}) and renews it
     * when refused.
     */
    public Builder apiCredentials(String apiKey, String apiSecret) {
      if (apiKey == null || apiKey.isBlank()) {
        throw new IllegalArgumentException("apiKey must not be empty");
      }
      if (apiSecret == null || apiSecret.isBlank()) {
        throw new IllegalArgumentException("apiSecret must not be empty");
      }
      this.apiKey = apiKey;
      this.apiSecret = apiSecret;
      return this;
    }

    /**
     * Permits http and ports in webhook URLs (and an http platform address), for local rehearsal
     * against a simulator; the real platform refuses such URLs. Default false.
     */
    public Builder allowInsecureUrls(boolean allowInsecureUrls) {
      this.allowInsecureUrls = allowInsecureUrls;
      return this;
    }

    /** How long to wait for a connection; default 5 seconds. */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = positive(connectTimeout, "connectTimeout");
      return this;
    }

    /**
     * How long to wait for each answer, whole: its status, headers and body (an answer that stops
     * part-way fails with an {@link java.net.http.HttpTimeoutException} when this passes, and the
     * usual retry rules apply); default 15 seconds (the platform's CRC alone may take 10).
     */
    public Builder requestTimeout(Duration requestTimeout) {
      this.requestTimeout = positive(requestTimeout, "requestTimeout");
      return this;
    }

    /** How often a 429, or a 5xx of a call safe to repeat, is retried; default 3, 0 disables. */
    public Builder maxRetries(int maxRetries) {
      if (maxRetries < 0 || maxRetries > 10) {
        throw new IllegalArgumentException(
            "maxRetries must be between 0 and 10, was " + maxRetries);
      }
      this.maxRetries = maxRetries;
      return this;
    }

    /**
     * The longest wait before one retry; when the platform's reset time is further away the call
     * fails at once with {@link WebhookApiException.Reason#RATE_LIMITED}. Default 60 seconds.
     *
     * <p>The reset time is {@code x-rate-limit-reset} (unix seconds) of a 429, else {@code
     * Retry-After} (seconds or an HTTP date). A value that is not a time (not a number, signed or
     * negative, a date that does not parse) is ignored, and the client backs off on its own (1, 2,
     * 4, ... seconds, at most this wait); a number too large for any clock counts as further away.
     * Whatever the headers hold, a refused call ends as a {@link WebhookApiException}, never a
     * date-time or arithmetic exception.
     */
    public Builder maxRetryWait(Duration maxRetryWait) {
      Objects.requireNonNull(maxRetryWait, "maxRetryWait");
      if (maxRetryWait.isNegative()) {
        throw new IllegalArgumentException(
            "maxRetryWait must not be negative, was " + maxRetryWait);
      }
      this.maxRetryWait = maxRetryWait;
      return this;
    }

    /** The clock the rate-limit reset time is compared with; default the system clock. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** How the client waits between retries; default {@link Sleeper#system()}. */
    public Builder sleeper(Sleeper sleeper) {
      this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
      return this;
    }

    /**
     * Builds the client.
     *
     * @throws IllegalStateException when the base URL or the credentials are missing, both a token
     *     and credentials are given, or http is used for a remote platform
     */
    public WebhookClient build() {
      if (baseUrl == null) {
        throw new IllegalStateException("baseUrl is required");
      }
      if (bearerToken == null && apiKey == null) {
        throw new IllegalStateException("either bearerToken or apiCredentials is required");
      }
      if (bearerToken != null && apiKey != null) {
        throw new IllegalStateException("give either bearerToken or apiCredentials, not both");
      }
      if (baseUrl.getScheme().equalsIgnoreCase("http")
          && !allowInsecureUrls
          && !isLoopback(baseUrl.getHost())) {
        throw new IllegalStateException(
            "baseUrl must use https for a remote platform, was http://"
                + baseUrl.getHost()
                + " (allowInsecureUrls(true) permits it)");
      }
      return new WebhookClient(this, normalized(baseUrl));
    }

    /**
     * Without trailing slashes, so call paths are appended (a path prefix such as {@code /api} is
     * kept).
     */
    private static URI normalized(URI uri) {
      String text = uri.toString();
      while (text.endsWith("/")) {
        text = text.substring(0, text.length() - 1);
      }
      return URI.create(text);
    }

    private static boolean isLoopback(String host) {
      if (host.equalsIgnoreCase("localhost")) {
        return true;
      }
      if (!host.matches("[0-9.]+|\\[?[0-9a-fA-F:]+]?")) {
        return false;
      }
      try {
        return InetAddress.getByName(host).isLoopbackAddress();
      } catch (UnknownHostException e) {
        return false;
      }
    }

    private static Duration positive(Duration value, String name) {
      Objects.requireNonNull(value, name);
      if (value.isZero() || value.isNegative()) {
        throw new IllegalArgumentException(name + " must be positive, was " + value);
      }
      return value;
    }

    @Override
    public String toString() {
      return "WebhookClient.Builder[baseUrl="
          + baseUrl
          + ", auth="
          + (bearerToken != null ? "bearer token" : apiKey != null ? "client credentials" : "none")
          + "]";
    }
  }
}
