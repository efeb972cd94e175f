package io.servicehooks.testkit;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpHandler;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An in-process stand-in for the platform, the "far side" of webhook tests, the CLI's {@code
 * simulate} command and the demo. It serves the token, webhook, replay, activity subscription and
 * connections API on a local port, runs real CRC checks against registered webhook URLs, signs and
 * POSTs deliveries with retries and replay, and serves the activity stream ({@code GET
 * /2/activity/stream}) with backfill and its faults ({@link StreamFault}, {@link #dropStreams()},
 * {@link #stallStreams()}, {@link #disconnectStreams()}). With {@link Builder#controlEndpoint} it
 * can be driven over HTTP under {@code /_sim/}. Its HMAC code is its own, so it checks the consumer
 * side independently. It also serves OAuth 1.0a sign-in ({@code /oauth/request_token}, an authorize
 * page, {@code /oauth/access_token}, {@code /1.1/oauth/invalidate_token}) and user-context calls,
 * verifying each signature with its own code; {@link #approveRequestToken} plays the user. It
 * serves the bot's side too: the post lookup ({@code GET /2/posts}) with fields and expansions,
 * {@code POST /2/posts} and direct messages in user context with the platform's refusals, and
 * delivers the events they cause to the matching activity subscriptions; {@link #addUser}, {@link
 * #signIn}, {@link #mention}, {@link #sendDm} and {@link #awaitPostsBy} let a test drive a bot that
 * answers.
 *
 * <pre>{@code
 * try (PlatformSimulator platform = PlatformSimulator.builder().localMode(true).build().start()) {
 *     // Point the client under test at platform.baseUrl() with platform.apiKey() and apiSecret();
 *     // it registers the consumer under test, whose CRC answers are keyed with consumerSecret().
 *     String webhookId = registerConsumer(platform.baseUrl(), consumerUrl);
 *     platform.deliver(Events.postCreate("2244994945", "1876", "hello"));
 *     assertThat(platform.awaitIdle(Duration.ofSeconds(5))).isTrue();
 *     assertThat(platform.attempts()).singleElement().satisfies(attempt -> {
 *         assertThat(attempt.webhookId()).isEqualTo(webhookId);
 *         assertThat(attempt.succeeded()).isTrue();
 *     });
 * }
 * }</pre>
 *
 * <p>This class is the facade and its builder: it wires the parts and delegates to them, the API
 * ({@code Api} and its resource handlers), deliveries ({@code Deliveries}), the activity stream
 * ({@code StreamHub}) and the server's lifecycle ({@code SimulatorServer}); it is long only because
 * its Javadoc is the testkit's reference.
 */
public final class PlatformSimulator implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(PlatformSimulator.class);

  private final String host;
  private final String apiKey;
  private final String apiSecret;
  private final String consumerSecret;
  private final Duration recheckEvery;
  private final SimClock clock;
  private final SimulatorServer server;
  private final Api api;
  private final Deliveries deliveries;
  private final StreamHub streams;
  private final boolean controlEndpoint;

  private PlatformSimulator(Builder builder) {
    this.host = builder.host;
    this.server = new SimulatorServer(builder.host, builder.port);
    this.apiKey = builder.apiKey;
    this.apiSecret = builder.apiSecret;
    this.consumerSecret =
        builder.consumerSecret != null ? builder.consumerSecret : builder.apiSecret;
    this.recheckEvery = builder.recheckEvery;
    this.controlEndpoint = builder.controlEndpoint;
    this.clock = new SimClock(builder.clock);
    HttpClient client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER) // a 3xx CRC answer is a failure, not a hop
            .executor(server.workers())
            .build();
    Hmac hmac = new Hmac(consumerSecret);
    this.deliveries =
        new Deliveries(
            client,
            hmac,
            clock,
            server.scheduler(),
            builder.retrySchedule,
            builder.deliveryTimeout,
            builder.retriesOnSimulatorClock);
    CrcCheck crc = new CrcCheck(client, hmac, builder.crcTimeout);
    this.streams =
        new StreamHub(
            clock,
            builder.streamKeepAlive,
            builder.streamKeepAliveOnSimulatorClock,
            builder.streamConnectionLimit,
            builder.streamBuffer,
            1_900_000_000_000_000_000L + new java.security.SecureRandom().nextInt(1_000_000));
    this.api =
        new Api(
            apiKey,
            apiSecret,
            builder.localMode,
            builder.webhookLimit,
            builder.recheckInterval,
            builder.rateLimit,
            clock,
            crc,
            deliveries,
            streams,
            builder.responseStyle);
    builder.callbackUrls.forEach(api.oauth()::approveCallback);
  }

  /** Starts configuring a simulator; every setting has a default suitable for tests. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Binds the HTTP server (127.0.0.1, port 0 unless configured) and starts serving.
   *
   * @return this simulator, started
   * @throws UncheckedIOException when the address cannot be bound
   * @throws IllegalStateException when already started or closed
   */
  public PlatformSimulator start() {
    Map<String, HttpHandler> contexts = new LinkedHashMap<>();
    contexts.put("/", new SimulatorHttpHandler(api));
    contexts.put(StreamHandler.PATH, new StreamHandler(api, streams, clock));
    if (controlEndpoint) {
      contexts.put(ControlHandler.PREFIX, new ControlHandler(this, host));
    }
    server.start(contexts, recheckEvery, this::backgroundChecks);
    log.info("platform simulator listening on {}", baseUrl());
    return this;
  }

  /** The bound port. */
  public int port() {
    return server.port();
  }

  /**
   * The API's base URL, e.g. {@code http://127.0.0.1:41234}; paths such as {@code /2/webhooks} go
   * below it.
   */
  public URI baseUrl() {
    return URI.create("http://" + host + ":" + port());
  }

  /** The API key that {@code POST /oauth2/token} accepts as the Basic user. */
  public String apiKey() {
    return apiKey;
  }

  /** The API key secret that {@code POST /oauth2/token} accepts as the Basic password. */
  public String apiSecret() {
    return apiSecret;
  }

  /**
   * The consumer secret that keys CRC answers and delivery signatures (the API secret unless
   * configured).
   */
  public String consumerSecret() {
    return consumerSecret;
  }

  /**
   * The simulator's current time: the builder's clock plus everything passed to {@link #advance}.
   */
  public Instant now() {
    return clock.now();
  }

  /** Switches the response shapes of the API from now on. */
  public void responseStyle(ResponseStyle style) {
    api.responseStyle(Objects.requireNonNull(style, "style"));
  }

  /** Queues faults for the next {@code /2/...} calls: each call consumes at most one, in order. */
  public void enqueueFault(Fault... faults) {
    api.enqueue(List.of(faults));
  }

  /**
   * Revokes the current bearer token: using it now gets 401 with code 89, and the next token
   * request yields a different token.
   */
  public void revokeToken() {
    api.revokeToken();
    // The platform ends the streams a revoked token holds; their reconnects then meet the 401.
    streams.killAll();
  }

  /**
   * Plays the user on the authorize page: approves the request token (the {@code oauth_token} of
   * the URL the application sent the user to) as this user, as a click on "Authorize app" does. The
   * access token the application then obtains acts for {@code userId}.
   *
   * @return the verifier: the PIN the page shows when the callback is {@code oob}, else the {@code
   *     oauth_verifier} the callback receives
   * @throws IllegalArgumentException when no such request token is pending (unknown, expired or
   *     exchanged already)
   */
  public String approveRequestToken(String requestToken, String userId, String screenName) {
    Objects.requireNonNull(requestToken, "requestToken");
    Objects.requireNonNull(userId, "userId");
    Objects.requireNonNull(screenName, "screenName");
    return api.oauth().approve(requestToken, userId, screenName);
  }

  /**
   * The request tokens issued and neither exchanged nor expired (they live 15 minutes on the
   * simulator's clock), oldest first.
   */
  public List<String> pendingRequestTokens() {
    return api.oauth().pendingRequestTokens();
  }

  /** How many user access tokens are valid now: issued and not invalidated. */
  public int activeUserTokens() {
    return api.oauth().activeAccessTokens();
  }

  // ---------------------------------------------------------------- users, posts, messages

  /**
   * Adds a user to the simulator's directory (or replaces the one with this id): lookups expand it
   * as an author or a mention, and {@code @username} in a new post's text mentions it. Users who
   * sign in through the OAuth legs are added on their own; the demo user {@code 2244994945} ({@code
   * hooks_demo}) is always known.
   *
   * @throws IllegalArgumentException when the id is not digits or the username not 1 to 15 of
   *     {@code [A-Za-z0-9_]}
   */
  public void addUser(String id, String username, String name) {
    requireUserId(id, "id");
    Objects.requireNonNull(username, "username");
    Objects.requireNonNull(name, "name");
    if (!username.matches("[A-Za-z0-9_]{1,15}")) {
      throw new IllegalArgumentException(
          "username must be 1 to 15 of [A-Za-z0-9_] but was " + username);
    }
    api.users().put(id, username, name, clock.now());
  }

  /**
   * Issues an OAuth 1.0a access token for a known user, as if the user had signed in: the
   * credentials a bot under test acts with. {@code POST /1.1/oauth/invalidate_token} with it makes
   * every later call answer 401 with code 89.
   *
   * @throws IllegalArgumentException when the user is unknown (see {@link #addUser})
   */
  public SimulatedUserToken signIn(String userId) {
    String username = knownUsername(userId);
    String[] issued = api.oauth().issueAccessToken(userId, username);
    return new SimulatedUserToken(userId, username, issued[0], issued[1]);
  }

  /**
   * Creates an activity subscription as {@code POST /2/activity/subscriptions} does, with the
   * filter {@code {"user_id": userId}}: the events of posts and direct messages made on the
   * simulator for that user go to it.
   *
   * @param webhookId the webhook to deliver to (see {@link #webhookIds()}), or null for the
   *     activity stream only
   * @return the subscription id
   * @throws IllegalArgumentException when the webhook is unknown
   */
  public String subscribe(String eventType, String userId, String webhookId) {
    Objects.requireNonNull(eventType, "eventType");
    requireUserId(userId, "userId");
    return api.subscriptions().add(eventType, userId, webhookId);
  }

  /**
   * Stores a post by a known user without causing any event, as one posted before the test began:
   * the lookup finds it, and a bot may reply to it or quote it.
   *
   * @return the post's id
   */
  public String addPost(String authorId, String text) {
    knownUsername(authorId);
    return api.posts().seed(authorId, Objects.requireNonNull(text, "text"));
  }

  /**
   * Creates a post as a known user would through {@code POST /2/posts}, with the same refusals, and
   * delivers the events it causes to the subscriptions they match: the author's {@code post.create}
   * and, for each known user its text mentions ({@code @username}), {@code post.mention.create}.
   *
   * @return the post's id
   * @throws IllegalArgumentException when the user is unknown or the platform refuses the post
   */
  public String createPost(String authorId, String text) {
    knownUsername(authorId);
    ObjectNode body = Json.object();
    body.put("text", Objects.requireNonNull(text, "text"));
    return created(api.posts().create(authorId, body, true), "id");
  }

  /**
   * Another user mentions {@code mentionedUserId}: creates a post by {@code authorId} whose text is
   * {@code "@<username> " + text}, as {@link #createPost}, so the mentioned user's {@code
   * post.mention.create} subscriptions receive it. What a test of a replying bot starts with.
   *
   * @return the post's id
   */
  public String mention(String authorId, String mentionedUserId, String text) {
    String username = knownUsername(mentionedUserId);
    return createPost(authorId, "@" + username + " " + Objects.requireNonNull(text, "text"));
  }

  /**
   * A known user sends a direct message, as through {@code POST
   * /2/dm_conversations/with/{participant_id}/messages}: the recipient's {@code dm.received} and
   * the sender's {@code dm.sent} subscriptions receive it.
   *
   * @return the message's id ({@code dm_event_id})
   */
  public String sendDm(String senderId, String recipientId, String text) {
    knownUsername(senderId);
    requireUserId(recipientId, "recipientId");
    ObjectNode body = Json.object();
    body.put("text", Objects.requireNonNull(text, "text"));
    SimResponse answer = api.directMessages().send(senderId, recipientId, body);
    if (answer.status() != 201) {
      throw new IllegalArgumentException(
          "the direct message was refused: " + new String(answer.body(), StandardCharsets.UTF_8));
    }
    return Json.parseOrNull(answer.body()).path("data").path("dm_event_id").asText();
  }

  /** The posts of {@code userId} the simulator holds, oldest first; an immutable snapshot. */
  public List<SimulatedPost> postsBy(String userId) {
    return api.posts().by(Objects.requireNonNull(userId, "userId"));
  }

  /**
   * Waits until {@code userId} has at least {@code count} posts, e.g. the answer of a bot under
   * test, and returns them, oldest first.
   *
   * @throws AssertionError naming the posts seen when {@code timeout} passes first
   */
  public List<SimulatedPost> awaitPostsBy(String userId, int count, Duration timeout) {
    Objects.requireNonNull(userId, "userId");
    return api.posts()
        .await(userId, requireCount(count), Builder.requirePositive(timeout, "timeout"));
  }

  /** The direct messages sent to {@code userId}, oldest first; an immutable snapshot. */
  public List<SimulatedDirectMessage> directMessagesTo(String userId) {
    return api.directMessages().to(Objects.requireNonNull(userId, "userId"));
  }

  /**
   * Waits until {@code userId} has received at least {@code count} direct messages and returns
   * them, oldest first.
   *
   * @throws AssertionError naming the messages seen when {@code timeout} passes first
   */
  public List<SimulatedDirectMessage> awaitDirectMessagesTo(
      String userId, int count, Duration timeout) {
    Objects.requireNonNull(userId, "userId");
    return api.directMessages()
        .await(userId, requireCount(count), Builder.requirePositive(timeout, "timeout"));
  }

  /**
   * Whether the app holds the direct-message permission (default true). Without it, sending a
   * direct message is refused with 403 and code 93.
   */
  public void directMessagesPermitted(boolean permitted) {
    api.directMessages().permitted(permitted);
  }

  /**
   * Keeps the post of a triggered sample event ({@code post.*} but {@code post.delete}) and its
   * expanded users, so that a bot answering it finds it by lookup and may reply to it.
   */
  void rememberSamplePost(String event) {
    api.posts().remember(Json.parseOrNull(event.getBytes(StandardCharsets.UTF_8)));
  }

  private String knownUsername(String userId) {
    requireUserId(userId, "userId");
    String username = api.users().username(userId);
    if (username == null) {
      throw new IllegalArgumentException(
          "user " + userId + " is unknown to the simulator: addUser(id, username, name) first");
    }
    return username;
  }

  private static String created(SimResponse answer, String field) {
    if (answer.status() != 201) {
      throw new IllegalArgumentException(
          "the post was refused: " + new String(answer.body(), StandardCharsets.UTF_8));
    }
    return Json.parseOrNull(answer.body()).path("data").path(field).asText();
  }

  private static void requireUserId(String id, String name) {
    Objects.requireNonNull(id, name);
    if (!id.matches("[0-9]{1,19}")) {
      throw new IllegalArgumentException(name + " must be a user id (digits) but was " + id);
    }
  }

  private static int requireCount(int count) {
    if (count < 1) {
      throw new IllegalArgumentException("count must be at least 1 but was " + count);
    }
    return count;
  }

  /**
   * Produces an event of a subscription with a webhook: adds {@code body} (UTF-8) to the delivery
   * history of every registered webhook at the simulator's current time, then signs and POSTs it to
   * every valid webhook, retrying on the schedule and dropping it when the retries are exhausted,
   * as the platform does. Only a replay brings a dropped event back; a webhook that is invalid now
   * keeps the event in its history too.
   *
   * <p>An activity envelope ({@code {"data":{...}}}) also goes, as one line, to every open activity
   * stream and into the stream's backfill history: the platform sends events of subscriptions with
   * a webhook to the stream too while one is open. See {@link #deliverToStream(String)} for the
   * events of subscriptions without a webhook.
   *
   * @return the number of deliveries started (one per valid webhook)
   */
  public int deliver(String body) {
    return deliver(body, 1);
  }

  /**
   * Like {@link #deliver(String)}, sending the same body {@code copies} times to each webhook, as
   * duplicates.
   */
  public int deliver(String body, int copies) {
    return deliver(Objects.requireNonNull(body, "body").getBytes(StandardCharsets.UTF_8), copies);
  }

  /** Delivers raw bytes exactly as given (they need not be JSON). */
  public int deliver(byte[] body) {
    return deliver(body, 1);
  }

  /** Delivers raw bytes {@code copies} times to each valid webhook. */
  public int deliver(byte[] body, int copies) {
    Objects.requireNonNull(body, "body");
    if (copies < 1) {
      throw new IllegalArgumentException("copies must be at least 1 but was " + copies);
    }
    byte[] bytes = body.clone();
    streams.publish(bytes, copies);
    int started = 0;
    for (RegisteredWebhook webhook : api.webhooks()) {
      // Duplicates are one event delivered several times: the history holds it once.
      deliveries.remember(webhook, bytes);
      if (!webhook.receivesDeliveries()) {
        continue;
      }
      for (int i = 0; i < copies; i++) {
        deliveries.start(webhook, bytes);
        started++;
      }
    }
    return started;
  }

  /**
   * Produces an event of a subscription without a webhook: it goes only to the activity stream, as
   * one line on every open {@code GET /2/activity/stream} connection, and into the stream's
   * backfill history (kept five minutes on the simulator's clock). No webhook sees it.
   *
   * @param body an activity envelope {@code {"data":{...}}}
   * @return the number of open streams it was sent on
   * @throws IllegalArgumentException when {@code body} is not an activity envelope
   */
  public int deliverToStream(String body) {
    return deliverToStream(body, 1);
  }

  /** Like {@link #deliverToStream(String)}, sending the event {@code copies} times per stream. */
  public int deliverToStream(String body, int copies) {
    Objects.requireNonNull(body, "body");
    if (copies < 1) {
      throw new IllegalArgumentException("copies must be at least 1 but was " + copies);
    }
    int reached = streams.publish(body.getBytes(StandardCharsets.UTF_8), copies);
    if (reached < 0) {
      throw new IllegalArgumentException("not an activity envelope {\"data\":{...}}");
    }
    return reached;
  }

  /**
   * Makes a webhook invalid as a failed CRC check would: its deliveries stop (pending retries are
   * dropped) until a {@code PUT /2/webhooks/{id}} revalidates it. For rehearsing what a consumer
   * does when the platform switches its webhook off.
   *
   * @return false when no webhook has that id
   */
  public boolean invalidateWebhook(String webhookId) {
    for (RegisteredWebhook webhook : api.webhooks()) {
      if (webhook.id.equals(webhookId)) {
        Instant now = clock.now();
        webhook.checked(
            false, now, "invalidated through the simulator", now.plus(api.recheckInterval()));
        log.info("webhook {} invalidated through the simulator", webhookId);
        return true;
      }
    }
    return false;
  }

  /**
   * Why an event produced now would start no webhook delivery, in one line, or null when some
   * webhook receives deliveries.
   */
  String whyNoWebhookDeliveries() {
    List<RegisteredWebhook> all = api.webhooks();
    if (all.isEmpty()) {
      return "no webhook is registered (servicehooks webhooks create URL, or a consumer that"
          + " registers itself)";
    }
    List<String> reasons = new ArrayList<>();
    for (RegisteredWebhook webhook : all) {
      String why = webhook.whyNoDeliveries();
      if (why == null) {
        return null;
      }
      reasons.add(why);
    }
    return String.join("; ", reasons);
  }

  List<RegisteredWebhook> webhooks() {
    return api.webhooks();
  }

  /**
   * The ids of the registered webhooks, oldest first: for {@link #subscribe} when the consumer
   * under test registered its webhook itself.
   */
  public List<String> webhookIds() {
    return api.webhooks().stream().map(webhook -> webhook.id).toList();
  }

  /** Forgets the open streams whose client has gone; see {@link StreamHub#forgetGone}. */
  void forgetGoneStreams() {
    streams.forgetGone();
  }

  /** The activity streams open now, oldest first; an immutable snapshot. */
  public List<OpenStream> openStreams() {
    return streams.openStreams();
  }

  /**
   * Queues faults for the next {@code GET /2/activity/stream} connects: each connect consumes at
   * most one, in order, before its token is checked.
   */
  public void enqueueStreamFault(StreamFault... faults) {
    streams.enqueue(List.of(faults));
  }

  /**
   * Drops every open stream abruptly: the TCP connection closes without the end of the chunked
   * body, so the reader sees an I/O error, as when a network path or a server dies.
   *
   * @return how many streams were dropped
   */
  public int dropStreams() {
    return streams.dropAll();
  }

  /**
   * Stalls every open stream: the connection stays open but nothing more is written, not even a
   * keep-alive, as when the platform hangs. A stalled stream ends when dropped, killed through
   * {@code DELETE /2/connections} or when the simulator closes; it no longer counts against the
   * connection limit, so the reader's reconnect is accepted.
   *
   * @return how many streams were stalled
   */
  public int stallStreams() {
    return streams.stallAll();
  }

  /**
   * Sends on every open stream the platform's operational-disconnect error object {@code
   * {"errors":[{"title":"operational-disconnect","disconnect_type":"UpstreamOperationalDisconnect",
   * ...}]}} as one line, then ends the stream.
   *
   * @return how many streams were disconnected
   */
  public int disconnectStreams() {
    return streams.disconnectAll();
  }

  /** Sets the keep-alive interval of every open and future stream. */
  public void streamKeepAlive(Duration interval) {
    streams.keepAlive(Builder.requirePositive(interval, "interval"));
  }

  /**
   * Every delivery attempt so far, in the order their outcomes were known; an immutable snapshot.
   */
  public List<DeliveryAttempt> attempts() {
    return deliveries.attempts();
  }

  /**
   * The events produced for {@code webhookId} within the replay reach (24 hours back from {@link
   * #now()}, to the start of that minute), oldest first, whether or not they were delivered. Older
   * events are forgotten, as on the platform; a replay window selects on {@link
   * HistoryEntry#producedAt()}.
   */
  public List<HistoryEntry> deliveryHistory(String webhookId) {
    return deliveries.history(Objects.requireNonNull(webhookId, "webhookId"));
  }

  /**
   * How many deliveries the simulator gave up on so far, as the platform does: every attempt failed
   * (connection refused, a non-2xx answer, a time-out) until the retry schedule ended, or the
   * webhook became invalid or was deleted before a retry. Replay redeliveries and {@code
   * replay_job_status} deliveries count too. A dropped event stays in the {@link #deliveryHistory
   * history}.
   */
  public long droppedEvents() {
    return deliveries.dropped();
  }

  /** Every replay job accepted so far, in the order requested; an immutable snapshot. */
  public List<ReplayRequest> replayRequests() {
    return api.replayRequests();
  }

  /**
   * Fault injection for replay: each of the next {@code jobs} accepted replay jobs redelivers none
   * of its events and ends with a {@code replay_job_status} of {@code Incomplete}. Jobs after them
   * run normally.
   *
   * @throws IllegalArgumentException when {@code jobs} is below 1
   */
  public void failNextReplayJobs(int jobs) {
    if (jobs < 1) {
      throw new IllegalArgumentException("jobs must be at least 1 but was " + jobs);
    }
    api.failNextReplayJobs(jobs);
  }

  /**
   * Waits until no delivery, retry or replay job is in flight.
   *
   * @return false when {@code timeout} passed first
   */
  public boolean awaitIdle(Duration timeout) {
    return deliveries.awaitIdle(Objects.requireNonNull(timeout, "timeout"));
  }

  /**
   * Moves the simulator's clock forward, then runs, synchronously, the periodic check of every
   * webhook whose check has come due (one re-check interval after its last check), and forgets the
   * history that fell out of the replay reach.
   *
   * <p>With {@link Builder#retriesOnSimulatorClock(boolean)}, it also runs the delivery retries
   * that come due on the way, in time order: it first waits for the answers of the attempts already
   * started, then stops the clock at each retry's due time, runs it and waits for its answer
   * (bounded by the {@linkplain Builder#deliveryTimeout delivery time-out}) before going on. A
   * failed retry's next retry is thus scheduled from its own time and runs in the same call when it
   * also falls within {@code by}; an event whose last retry fails is dropped. So a test can produce
   * events over 30 simulated minutes while the consumer is down, quickly: {@code deliver(...)} then
   * {@code advance(ofMinutes(1))}, thirty times, then {@code advance(ofMinutes(5))} for the last
   * retries (3 s, 27 s and 242 s by default).
   */
  public void advance(Duration by) {
    Objects.requireNonNull(by, "by");
    if (by.isNegative()) {
      throw new IllegalArgumentException("by must not be negative but was " + by);
    }
    deliveries.advance(by);
    deliveries.prune();
    streams.advanced();
    Instant now = clock.now();
    List<RegisteredWebhook> due = new ArrayList<>();
    for (RegisteredWebhook webhook : api.webhooks()) {
      if (webhook.checkDue(now)) {
        due.add(webhook);
      }
    }
    api.recheck(due);
  }

  /**
   * Runs the periodic check of every webhook now, synchronously, whether due or not: a failure
   * makes the webhook invalid and stops its deliveries.
   */
  public void runScheduledChecks() {
    api.recheck(api.webhooks());
  }

  /** Stops the server, the scheduler and any delivery still waiting for a retry. */
  @Override
  public void close() {
    server.close(streams::killAll);
  }

  private void backgroundChecks() {
    try {
      runScheduledChecks();
    } catch (RuntimeException e) {
      log.warn("periodic webhook checks failed", e);
    }
  }

  @Override
  public String toString() {
    return "PlatformSimulator[" + server.where() + ", webhooks=" + api.webhooks().size() + "]";
  }

  /**
   * Configures a {@link PlatformSimulator}. Every method validates its argument at once; every
   * setting has a default, so {@code builder().build()} is ready to start.
   */
  public static final class Builder {

    private String host = "127.0.0.1";
    private int port;
    private String apiKey = "DemoApiKey4servicehooks";
    private String apiSecret = "DemoApiSecret4servicehooksNotForProduction";
    private String consumerSecret;
    private boolean localMode;
    private int webhookLimit = 1;
    private Duration crcTimeout = Duration.ofSeconds(10);
    private Duration recheckInterval = Duration.ofHours(1);
    private Duration recheckEvery;
    private List<Duration> retrySchedule =
        List.of(Duration.ofSeconds(3), Duration.ofSeconds(27), Duration.ofSeconds(242));
    private Duration deliveryTimeout = Duration.ofSeconds(3);
    private boolean retriesOnSimulatorClock;
    private Clock clock = Clock.systemUTC();
    private ResponseStyle responseStyle = ResponseStyle.CURRENT;
    private int rateLimit = 450;
    private final List<String> callbackUrls = new ArrayList<>();
    private Duration streamKeepAlive = Duration.ofSeconds(20);
    private boolean streamKeepAliveOnSimulatorClock;
    private int streamConnectionLimit = 2;
    private int streamBuffer = 10_000;
    private boolean controlEndpoint;

    private Builder() {}

    /**
     * Approves these OAuth 1.0a callback URLs, as the application's settings do; a request token
     * asked for another callback is refused (code 415). {@code oob} (the PIN flow) is always
     * accepted, and in {@link #localMode} so is any callback on 127.0.0.1 or localhost. The query
     * is not compared.
     */
    public Builder callbackUrls(String... urls) {
      for (String url : urls) {
        URI uri = URI.create(requireText(url, "callback URL"));
        if (uri.getScheme() == null || uri.getHost() == null) {
          throw new IllegalArgumentException("callback URL must be absolute but was " + url);
        }
        callbackUrls.add(url);
      }
      return this;
    }

    /** The address to bind; default {@code 127.0.0.1}. */
    public Builder host(String host) {
      this.host = requireText(host, "host");
      return this;
    }

    /** The port to bind; default 0 (any free port, see {@link PlatformSimulator#port()}). */
    public Builder port(int port) {
      if (port < 0 || port > 65_535) {
        throw new IllegalArgumentException("port must be 0..65535 but was " + port);
      }
      this.port = port;
      return this;
    }

    /** The API key accepted by the token endpoints; default a fixed demo key. */
    public Builder apiKey(String apiKey) {
      this.apiKey = requireText(apiKey, "apiKey");
      return this;
    }

    /** The API key secret accepted by the token endpoints; default a fixed demo secret. */
    public Builder apiSecret(String apiSecret) {
      this.apiSecret = requireText(apiSecret, "apiSecret");
      return this;
    }

    /**
     * The key of CRC answers and delivery signatures; default the API secret, as on the platform.
     */
    public Builder consumerSecret(String consumerSecret) {
      this.consumerSecret = requireText(consumerSecret, "consumerSecret");
      return this;
    }

    /**
     * Whether webhook URLs {@code http(s)://127.0.0.1:PORT/...} and {@code
     * http(s)://localhost:PORT/...} are accepted besides the strict rule (https, no port, at most
     * 200 characters); default false.
     */
    public Builder localMode(boolean localMode) {
      this.localMode = localMode;
      return this;
    }

    /** How many webhooks the app may register; default 1 (self-serve plans). */
    public Builder webhookLimit(int webhookLimit) {
      if (webhookLimit < 1) {
        throw new IllegalArgumentException(
            "webhookLimit must be at least 1 but was " + webhookLimit);
      }
      this.webhookLimit = webhookLimit;
      return this;
    }

    /** How long a CRC answer may take; default 10 s. */
    public Builder crcTimeout(Duration crcTimeout) {
      this.crcTimeout = requirePositive(crcTimeout, "crcTimeout");
      return this;
    }

    /**
     * The interval of the periodic re-check on the simulator's clock (driven by {@link
     * PlatformSimulator#advance}); default 1 hour.
     */
    public Builder recheckInterval(Duration recheckInterval) {
      this.recheckInterval = requirePositive(recheckInterval, "recheckInterval");
      return this;
    }

    /**
     * Also re-checks every webhook on a real background timer with this period, for the CLI and the
     * demo; off by default (tests use {@link PlatformSimulator#advance}).
     */
    public Builder recheckEvery(Duration period) {
      this.recheckEvery = requirePositive(period, "recheckEvery");
      return this;
    }

    /**
     * The waits before each retry of a failed delivery; default 3 s, 27 s, 242 s. Tests compress
     * it, e.g. {@code List.of(ofMillis(50), ofMillis(100))}; an empty list disables retries.
     */
    public Builder retrySchedule(List<Duration> retrySchedule) {
      Objects.requireNonNull(retrySchedule, "retrySchedule");
      for (Duration wait : retrySchedule) {
        if (wait == null || wait.isNegative()) {
          throw new IllegalArgumentException(
              "retrySchedule entries must be non-negative but were " + retrySchedule);
        }
      }
      this.retrySchedule = List.copyOf(retrySchedule);
      return this;
    }

    /**
     * Whether a failed delivery's retries wait on the simulator's clock instead of real timers: a
     * retry then starts only when {@link PlatformSimulator#advance} moves the clock past its wait,
     * so a test steps through the retry schedule exactly, without sleeping. Default false (real
     * timers, for the CLI and the demo). Until its retries ran, a delivery is still in flight for
     * {@link PlatformSimulator#awaitIdle}.
     */
    public Builder retriesOnSimulatorClock(boolean retriesOnSimulatorClock) {
      this.retriesOnSimulatorClock = retriesOnSimulatorClock;
      return this;
    }

    /** How long one delivery attempt may take before it counts as failed; default 3 s. */
    public Builder deliveryTimeout(Duration deliveryTimeout) {
      this.deliveryTimeout = requirePositive(deliveryTimeout, "deliveryTimeout");
      return this;
    }

    /**
     * The base clock of the simulator's time (timestamps, replay window, rate-limit reset); default
     * UTC system clock.
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The initial response shapes; default {@link ResponseStyle#CURRENT}. */
    public Builder responseStyle(ResponseStyle responseStyle) {
      this.responseStyle = Objects.requireNonNull(responseStyle, "responseStyle");
      return this;
    }

    /** {@code /2/...} calls allowed per 15-minute window before 429; default 450. */
    public Builder rateLimit(int rateLimit) {
      if (rateLimit < 1) {
        throw new IllegalArgumentException("rateLimit must be at least 1 but was " + rateLimit);
      }
      this.rateLimit = rateLimit;
      return this;
    }

    /**
     * The interval of the activity stream's keep-alive (a bare newline written when no event was);
     * default 20 s, as on the platform. Tests shorten it to watch keep-alives arrive.
     */
    public Builder streamKeepAlive(Duration interval) {
      this.streamKeepAlive = requirePositive(interval, "streamKeepAlive");
      return this;
    }

    /**
     * Whether stream keep-alives follow the simulator's clock instead of real time: then a stream
     * gets one keep-alive for each {@linkplain #streamKeepAlive interval} that {@link
     * PlatformSimulator#advance} moves past, and none otherwise. Default false (real time).
     */
    public Builder streamKeepAliveOnSimulatorClock(boolean onSimulatorClock) {
      this.streamKeepAliveOnSimulatorClock = onSimulatorClock;
      return this;
    }

    /**
     * How many activity streams the app may hold at once; one more is refused with {@code
     * TooManyConnections}. Default 2, enough for the platform's advice of two redundant
     * connections.
     */
    public Builder streamConnectionLimit(int limit) {
      if (limit < 1) {
        throw new IllegalArgumentException(
            "streamConnectionLimit must be at least 1 but was " + limit);
      }
      this.streamConnectionLimit = limit;
      return this;
    }

    /**
     * How many events may wait for a slow stream reader; when one more arrives, the platform cuts
     * the slow stream off (the reader then reconnects with backfill). Default 10,000.
     */
    public Builder streamBuffer(int events) {
      if (events < 1) {
        throw new IllegalArgumentException("streamBuffer must be at least 1 but was " + events);
      }
      this.streamBuffer = events;
      return this;
    }

    /**
     * Whether to serve the control endpoint under {@code /_sim/} (trigger events, play faults, move
     * the clock, see state), for driving a running simulator from a shell; default false. It has no
     * authentication: keep such a simulator on 127.0.0.1. {@code servicehooks simulate} turns it
     * on; the routes are in {@code docs/simulator.md}.
     */
    public Builder controlEndpoint(boolean controlEndpoint) {
      this.controlEndpoint = controlEndpoint;
      return this;
    }

    /** Creates the simulator; call {@link PlatformSimulator#start()} to serve. */
    public PlatformSimulator build() {
      return new PlatformSimulator(this);
    }

    private static String requireText(String value, String name) {
      Objects.requireNonNull(value, name);
      if (value.isBlank()) {
        throw new IllegalArgumentException(name + " must not be blank");
      }
      return value;
    }

    static Duration requirePositive(Duration value, String name) {
      Objects.requireNonNull(value, name);
      if (value.isZero() || value.isNegative()) {
        throw new IllegalArgumentException(name + " must be positive but was " + value);
      }
      return value;
    }

    @Override
    public String toString() {
      return "PlatformSimulator.Builder[host="
          + host
          + ", port="
          + port
          + ", localMode="
          + localMode
          + ", webhookLimit="
          + webhookLimit
          + "]";
    }
  }
}
