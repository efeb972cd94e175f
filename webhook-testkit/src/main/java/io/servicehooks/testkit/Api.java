package io.servicehooks.testkit;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The simulated platform's API: authenticates each call (bearer token or user context), applies the
 * rate limit, and routes it to the handler of its resource (tokens, webhooks, replay, activity
 * subscriptions, connections, OAuth 1.0a). Transport-neutral: one {@link ApiRequest} in, one {@link
 * SimResponse} out.
 */
final class Api {

  private final Duration recheckInterval;
  private final SecureRandom random = new SecureRandom();
  private final AtomicLong ids;
  private final AppTokens tokens;
  private final RateLimit rate;
  private final WebhooksResource webhooks;
  private final ReplayResource replay;
  private final OAuthEndpoints oauth;
  private final SubscriptionsResource subscriptions;
  private final ConnectionsResource connections;
  private final UserDirectory users;
  private final PostsResource posts;
  private final DirectMessagesResource directMessages;

  private final Deque<Fault> faults = new ArrayDeque<>(); // guarded by itself
  private volatile ResponseStyle style;

  Api(
      String apiKey,
      String apiSecret,
      boolean localMode,
      int webhookLimit,
      Duration recheckInterval,
      int rateLimit,
      SimClock clock,
      CrcCheck crc,
      Deliveries deliveries,
      StreamHub streams,
      ResponseStyle style) {
    this.recheckInterval = recheckInterval;
    this.style = style;
    this.ids = new AtomicLong(1_800_000_000_000_000_000L + random.nextInt(1_000_000) * 1_000_000L);
    this.tokens = new AppTokens(apiKey, apiSecret, random);
    this.rate = new RateLimit(rateLimit, clock);
    this.webhooks =
        new WebhooksResource(
            localMode, webhookLimit, recheckInterval, clock, crc, this::nextId, () -> this.style);
    this.replay =
        new ReplayResource(clock, deliveries, webhooks::find, this::nextId, () -> this.style);
    this.users = new UserDirectory();
    users.put(
        OAuthEndpoints.DEMO_USER_ID,
        OAuthEndpoints.DEMO_SCREEN_NAME,
        "servicehooks demo",
        clock.now());
    this.oauth = new OAuthEndpoints(apiKey, apiSecret, clock, localMode, users);
    this.subscriptions =
        new SubscriptionsResource(
            clock, this::nextId, id -> webhooks.find(id) != null, () -> this.style);
    this.connections = new ConnectionsResource(streams);
    ActivityRouter router =
        new ActivityRouter(subscriptions::all, webhooks::find, deliveries, streams, this::nextId);
    this.posts = new PostsResource(clock, this::nextId, users, router);
    this.directMessages = new DirectMessagesResource(clock, this::nextId, users, router);
  }

  /** The users the platform knows. */
  UserDirectory users() {
    return users;
  }

  /** The posts: lookup, creation, what was created. */
  PostsResource posts() {
    return posts;
  }

  /** The direct messages sent. */
  DirectMessagesResource directMessages() {
    return directMessages;
  }

  /** The activity subscriptions. */
  SubscriptionsResource subscriptions() {
    return subscriptions;
  }

  /** The OAuth 1.0a side: sign-in legs, user tokens, user-context checks. */
  OAuthEndpoints oauth() {
    return oauth;
  }

  // ---------------------------------------------------------------- operations for the simulator

  void responseStyle(ResponseStyle style) {
    this.style = style;
  }

  void enqueue(List<Fault> more) {
    synchronized (faults) {
      faults.addAll(more);
    }
  }

  Fault pollFault() {
    synchronized (faults) {
      return faults.poll();
    }
  }

  void revokeToken() {
    tokens.revoke();
  }

  /** Makes the next {@code jobs} accepted replay jobs fail: nothing redelivered, Incomplete. */
  void failNextReplayJobs(int jobs) {
    replay.failNextJobs(jobs);
  }

  List<ReplayRequest> replayRequests() {
    return replay.requests();
  }

  List<RegisteredWebhook> webhooks() {
    return webhooks.all();
  }

  /** Runs the periodic check on the given webhooks; a failure makes a webhook invalid at once. */
  void recheck(List<RegisteredWebhook> due) {
    webhooks.recheck(due);
  }

  Duration recheckInterval() {
    return recheckInterval;
  }

  // ---------------------------------------------------------------- HTTP

  SimResponse handle(ApiRequest request) {
    String path = request.path();
    if (path.equals("/oauth2/token")) {
      return onlyPost(request) ? tokens.token(request) : methodNotAllowed();
    }
    if (path.equals("/oauth2/invalidate_token")) {
      return onlyPost(request) ? tokens.invalidate(request) : methodNotAllowed();
    }
    if (path.startsWith("/2/")) {
      return v2(request);
    }
    if (OAuthEndpoints.handles(path)) {
      return oauth.handle(request);
    }
    return notFound();
  }

  /** The answer to a call consumed by a {@link Fault#rateLimited} fault. */
  SimResponse rateLimited(Instant reset) {
    return rate.rateLimited(reset);
  }

  /**
   * The answer to a call consumed by a {@link Fault#serverError} or {@link
   * Fault#dropResponseAfterApplying} fault.
   */
  SimResponse failure(int status) {
    String title =
        status == 503 ? "Service Unavailable" : status >= 500 ? "Internal Server Error" : "Error";
    return SimResponse.problem(
            status, title, "Simulated failure (HTTP " + status + ")", "about:blank")
        .withHeaders(rate.headers());
  }

  /**
   * Checks a call's bearer token without counting it against the rate limit (the stream connect):
   * null when it is the current token, else the 401 answer.
   */
  SimResponse authenticate(ApiRequest request) {
    SimResponse unauthorized = tokens.check(request);
    return unauthorized == null ? null : unauthorized.withHeaders(rate.headers());
  }

  private SimResponse v2(ApiRequest request) {
    String[] user = new String[1];
    SimResponse unauthorized =
        OAuthEndpoints.isUserContext(request)
            ? oauth.verifyUserContext(request, user)
            : tokens.check(request);
    if (unauthorized != null) {
      return unauthorized.withHeaders(rate.headers());
    }
    RateLimit.Admission admission = rate.admit();
    if (admission.refusal() != null) {
      return admission.refusal();
    }
    Map<String, String> headers = admission.headers();
    SimResponse privateRefused = OAuthEndpoints.refusePrivateSubscription(request, user[0]);
    if (privateRefused != null) {
      return privateRefused.withHeaders(headers);
    }
    return route(request, user[0]).withHeaders(headers);
  }

  private SimResponse route(ApiRequest request, String userId) {
    String[] parts = request.path().substring(1).split("/", -1);
    if ((parts.length == 2 || parts.length == 3) && parts[1].equals("posts")) {
      return posts.handle(request, parts, userId);
    }
    if (parts.length == 5
        && parts[1].equals("dm_conversations")
        && parts[2].equals("with")
        && parts[4].equals("messages")) {
      return directMessages.handle(request, parts, userId);
    }
    if ((parts.length == 2 || parts.length == 3) && parts[1].equals("webhooks")) {
      if (parts.length == 3 && parts[2].equals("replay") && request.method().equals("POST")) {
        return replay.replay(request);
      }
      return webhooks.handle(request, parts);
    }
    if ((parts.length == 3 || parts.length == 4)
        && parts[1].equals("activity")
        && parts[2].equals("subscriptions")) {
      return subscriptions.handle(request, parts);
    }
    if (parts[1].equals("connections") && (parts.length == 2 || parts.length == 3)) {
      return connections.handle(request, parts);
    }
    return notFound();
  }

  private String nextId() {
    return Long.toString(ids.incrementAndGet());
  }

  // ---------------------------------------------------------------- answers shared by handlers

  static SimResponse webhookIdInvalid(String id) {
    return SimResponse.invalidRequest(
        "WebhookIdInvalid",
        "Webhook id " + (id == null ? "(missing)" : id) + " is not a webhook of this application");
  }

  private static boolean onlyPost(ApiRequest request) {
    return request.method().equals("POST");
  }

  static SimResponse badRequest(String detail) {
    return SimResponse.problem(400, "Invalid Request", detail, "invalid-request");
  }

  static SimResponse notFound() {
    return SimResponse.problem(404, "Not Found Error", "No such endpoint", "resource-not-found");
  }

  static SimResponse methodNotAllowed() {
    return SimResponse.problem(
        405, "Method Not Allowed", "Method not allowed for this endpoint", "about:blank");
  }

  @Override
  public String toString() {
    return "Api[webhooks=" + webhooks().size() + "]";
  }
}
