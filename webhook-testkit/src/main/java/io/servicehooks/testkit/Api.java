package io.servicehooks.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.Base64;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The simulated platform's API: bearer tokens, webhooks, replay and activity subscriptions, with
 * all of their state. Transport-neutral: one {@link ApiRequest} in, one {@link ApiResponse} out.
 */
final class Api {

  private static final Logger log = LoggerFactory.getLogger(Api.class);

  private static final Pattern DIGITS = Pattern.compile("[0-9]+");
  private static final DateTimeFormatter REPLAY_DATE =
      DateTimeFormatter.ofPattern("uuuuMMddHHmm").withResolverStyle(ResolverStyle.STRICT);
  private static final Duration RATE_WINDOW = Duration.ofMinutes(15);
  private static final String TOKEN_PREFIX = "AAAAAAAAAAAAAAAAAAAAA";
  private static final String EXPIRED_TOKEN = "Invalid or expired token.";

  private final byte[] apiKey;
  private final byte[] apiSecret;
  private final boolean localMode;
  private final int webhookLimit;
  private final Duration recheckInterval;
  private final int rateLimit;
  private final SimClock clock;
  private final CrcCheck crc;
  private final Deliveries deliveries;
  private final SecureRandom random = new SecureRandom();
  private final AtomicLong ids;
  private final SubscriptionsResource subscriptions;
  private final ConnectionsResource connections;

  private final Object lock = new Object();
  // Guarded by lock.
  private String currentToken;
  private final Set<String> retiredTokens = new HashSet<>();
  private final Map<String, Webhook> webhooks = new LinkedHashMap<>();
  private final Deque<Fault> faults = new ArrayDeque<>();
  private Instant rateWindowEnd = Instant.MIN;
  private int rateRemaining;

  private volatile ResponseStyle style;
  private final AtomicBoolean replayRunning = new AtomicBoolean();
  private final AtomicInteger replayJobsToFail = new AtomicInteger();
  private final List<ReplayRequest> replayRequests = new CopyOnWriteArrayList<>();

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
    this.apiKey = apiKey.getBytes(StandardCharsets.UTF_8);
    this.apiSecret = apiSecret.getBytes(StandardCharsets.UTF_8);
    this.localMode = localMode;
    this.webhookLimit = webhookLimit;
    this.recheckInterval = recheckInterval;
    this.rateLimit = rateLimit;
    this.clock = clock;
    this.crc = crc;
    this.deliveries = deliveries;
    this.style = style;
    this.ids = new AtomicLong(1_800_000_000_000_000_000L + random.nextInt(1_000_000) * 1_000_000L);
    this.subscriptions =
        new SubscriptionsResource(clock, this::nextId, id -> find(id) != null, () -> this.style);
    this.connections = new ConnectionsResource(streams);
  }

  // ---------------------------------------------------------------- operations for the simulator

  void responseStyle(ResponseStyle style) {
    this.style = style;
  }

  void enqueue(List<Fault> more) {
    synchronized (lock) {
      faults.addAll(more);
    }
  }

  Fault pollFault() {
    synchronized (lock) {
      return faults.poll();
    }
  }

  void revokeToken() {
    synchronized (lock) {
      if (currentToken != null) {
        retiredTokens.add(currentToken);
        currentToken = null;
      }
    }
  }

  /** Makes the next {@code jobs} accepted replay jobs fail: nothing redelivered, Incomplete. */
  void failNextReplayJobs(int jobs) {
    replayJobsToFail.addAndGet(jobs);
  }

  List<ReplayRequest> replayRequests() {
    return List.copyOf(replayRequests);
  }

  List<Webhook> webhooks() {
    synchronized (lock) {
      return List.copyOf(webhooks.values());
    }
  }

  /** Runs the periodic check on the given webhooks; a failure makes a webhook invalid at once. */
  void recheck(List<Webhook> due) {
    for (Webhook webhook : due) {
      CrcCheck.Outcome outcome = crc.check(webhook.url);
      webhook.checked(outcome.passed(), clock.now().plus(recheckInterval));
      if (!outcome.passed()) {
        log.info(
            "periodic check of webhook {} failed, webhook is now invalid: {}",
            webhook.id,
            outcome.detail());
      }
    }
  }

  Duration recheckInterval() {
    return recheckInterval;
  }

  // ---------------------------------------------------------------- HTTP

  ApiResponse handle(ApiRequest request) {
    String path = request.path();
    if (path.equals("/oauth2/token")) {
      return onlyPost(request) ? token(request) : methodNotAllowed();
    }
    if (path.equals("/oauth2/invalidate_token")) {
      return onlyPost(request) ? invalidateToken(request) : methodNotAllowed();
    }
    if (path.startsWith("/2/")) {
      return v2(request);
    }
    return notFound();
  }

  /** The answer to a call consumed by a {@link Fault#rateLimited} fault. */
  ApiResponse rateLimited(Instant reset) {
    Map<String, String> headers =
        Map.of(
            "x-rate-limit-limit", Integer.toString(rateLimit),
            "x-rate-limit-remaining", "0",
            "x-rate-limit-reset", Long.toString(reset.getEpochSecond()));
    return ApiResponse.problem(429, "Too Many Requests", "Too Many Requests", "about:blank")
        .withHeaders(headers);
  }

  /**
   * The answer to a call consumed by a {@link Fault#serverError} or {@link
   * Fault#dropResponseAfterApplying} fault.
   */
  ApiResponse failure(int status) {
    String title =
        status == 503 ? "Service Unavailable" : status >= 500 ? "Internal Server Error" : "Error";
    return ApiResponse.problem(
            status, title, "Simulated failure (HTTP " + status + ")", "about:blank")
        .withHeaders(rateHeaders(false));
  }

  /**
   * Checks a call's bearer token without counting it against the rate limit (the stream connect):
   * null when it is the current token, else the 401 answer.
   */
  ApiResponse authenticate(ApiRequest request) {
    ApiResponse unauthorized = checkBearer(request);
    return unauthorized == null ? null : unauthorized.withHeaders(rateHeaders(false));
  }

  private ApiResponse v2(ApiRequest request) {
    ApiResponse unauthorized = checkBearer(request);
    if (unauthorized != null) {
      return unauthorized.withHeaders(rateHeaders(false));
    }
    Map<String, String> rate;
    synchronized (lock) {
      if (rateRemainingAfterRefresh() == 0) {
        return rateLimited(rateWindowEnd);
      }
      rate = rateHeaders(true);
    }
    return route(request).withHeaders(rate);
  }

  private ApiResponse route(ApiRequest request) {
    String[] parts = request.path().substring(1).split("/", -1);
    String method = request.method();
    if (parts.length == 2 && parts[1].equals("webhooks")) {
      return switch (method) {
        case "POST" -> createWebhook(request);
        case "GET" -> listWebhooks();
        default -> methodNotAllowed();
      };
    }
    if (parts.length == 3 && parts[1].equals("webhooks")) {
      if (parts[2].equals("replay") && method.equals("POST")) {
        return replay(request);
      }
      return switch (method) {
        case "PUT" -> revalidate(parts[2]);
        case "DELETE" -> deleteWebhook(parts[2]);
        default -> methodNotAllowed();
      };
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

  // ---------------------------------------------------------------- tokens

  private ApiResponse token(ApiRequest request) {
    if (!basicCredentialsValid(request)) {
      return authenticityError("Unable to verify your credentials");
    }
    if (!isForm(request)) {
      return authenticityError("Content-Type must be application/x-www-form-urlencoded");
    }
    if (!"client_credentials".equals(form(request).get("grant_type"))) {
      return authenticityError("grant_type must be client_credentials");
    }
    String token;
    synchronized (lock) {
      if (currentToken == null) {
        currentToken = newToken();
      }
      token = currentToken;
    }
    ObjectNode body = Json.object();
    body.put("token_type", "bearer");
    body.put("access_token", token);
    return ApiResponse.ok(body);
  }

  private ApiResponse invalidateToken(ApiRequest request) {
    if (!basicCredentialsValid(request)) {
      return authenticityError("Unable to verify your credentials");
    }
    if (!isForm(request)) {
      return authenticityError("Content-Type must be application/x-www-form-urlencoded");
    }
    String given = form(request).get("access_token");
    String raw = rawFormValue(request, "access_token");
    String invalidated = null;
    synchronized (lock) {
      // Accept the token whether or not the client form-encoded it: tokens contain "%2F"-style
      // escapes.
      if (currentToken != null
          && (sameSecret(currentToken, given) || sameSecret(currentToken, raw))) {
        invalidated = currentToken;
        retiredTokens.add(currentToken);
        currentToken = null;
      }
    }
    if (invalidated == null) {
      return ApiResponse.codedError(401, 89, null, EXPIRED_TOKEN);
    }
    ObjectNode body = Json.object();
    body.put("access_token", invalidated);
    return ApiResponse.ok(body);
  }

  private ApiResponse checkBearer(ApiRequest request) {
    String header = request.header("Authorization");
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return unauthorized();
    }
    String token = header.substring(7).trim();
    synchronized (lock) {
      if (currentToken != null && sameSecret(currentToken, token)) {
        return null;
      }
      if (retiredTokens.contains(token)) {
        return ApiResponse.codedError(401, 89, null, EXPIRED_TOKEN);
      }
    }
    return unauthorized();
  }

  private boolean basicCredentialsValid(ApiRequest request) {
    String header = request.header("Authorization");
    if (header == null || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
      return false;
    }
    String decoded;
    try {
      decoded =
          new String(
              Base64.getDecoder().decode(header.substring(6).trim()), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return false;
    }
    int colon = decoded.indexOf(':');
    if (colon < 0) {
      return false;
    }
    try {
      byte[] key =
          URLDecoder.decode(decoded.substring(0, colon), StandardCharsets.UTF_8)
              .getBytes(StandardCharsets.UTF_8);
      byte[] secret =
          URLDecoder.decode(decoded.substring(colon + 1), StandardCharsets.UTF_8)
              .getBytes(StandardCharsets.UTF_8);
      // Both comparisons always run, so timing does not tell which half was wrong.
      return MessageDigest.isEqual(key, apiKey) & MessageDigest.isEqual(secret, apiSecret);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private String newToken() {
    // Shaped like the real tokens: escapes included, so clients must send it exactly as given.
    return TOKEN_PREFIX + randomUrlSafe(18) + "%2F" + randomUrlSafe(30) + "%3D";
  }

  private String randomUrlSafe(int bytes) {
    byte[] b = new byte[bytes];
    random.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  // ---------------------------------------------------------------- webhooks

  private ApiResponse createWebhook(ApiRequest request) {
    JsonNode body = Json.parseOrNull(request.body());
    if (body == null || !body.isObject()) {
      return badRequest("The request body must be a JSON object");
    }
    String url = Json.text(body, "url");
    String violation = UrlRules.violation(url, localMode);
    if (violation != null) {
      return ApiResponse.invalidRequest("UrlValidationFailed", violation);
    }
    ApiResponse refused = refuseRegistration(url);
    if (refused != null) {
      return refused;
    }
    // The check runs outside the lock: it may take up to the CRC time-out.
    CrcCheck.Outcome outcome = crc.check(url);
    if (!outcome.passed()) {
      return ApiResponse.invalidRequest("CrcValidationFailed", outcome.detail());
    }
    Webhook webhook;
    synchronized (lock) {
      refused = refuseRegistration(url);
      if (refused != null) {
        return refused;
      }
      Instant now = clock.now();
      webhook = new Webhook(nextId(), url, now, now.plus(recheckInterval));
      webhooks.put(webhook.id, webhook);
    }
    log.info("webhook {} registered for {}", webhook.id, url);
    ObjectNode json = webhook.toJson();
    return ApiResponse.ok(style == ResponseStyle.CURRENT ? data(json) : json);
  }

  private ApiResponse refuseRegistration(String url) {
    synchronized (lock) {
      for (Webhook existing : webhooks.values()) {
        if (existing.url.equals(url)) {
          return ApiResponse.invalidRequest(
              "DuplicateUrlFailed",
              "URL is already registered for this application as webhook " + existing.id);
        }
      }
      if (webhooks.size() >= webhookLimit) {
        return ApiResponse.invalidRequest(
            "WebhookLimitExceeded",
            "This application may register at most " + webhookLimit + " webhook(s)");
      }
      return null;
    }
  }

  private ApiResponse listWebhooks() {
    List<Webhook> all = webhooks();
    ObjectNode body = Json.object();
    if (!all.isEmpty() || style == ResponseStyle.CURRENT) {
      ArrayNode data = body.putArray("data");
      all.forEach(w -> data.add(w.toJson()));
    }
    body.putObject("meta").put("result_count", all.size());
    return ApiResponse.ok(body);
  }

  private ApiResponse revalidate(String id) {
    Webhook webhook = find(id);
    if (webhook == null) {
      return webhookIdInvalid(id);
    }
    CrcCheck.Outcome outcome = crc.check(webhook.url);
    webhook.checked(outcome.passed(), clock.now().plus(recheckInterval));
    log.info("webhook {} revalidated: {}", id, outcome.passed() ? "valid" : outcome.detail());
    ObjectNode body = Json.object();
    if (style == ResponseStyle.CURRENT) {
      body.putObject("data").put("valid", outcome.passed());
      return ApiResponse.ok(body);
    }
    if (!outcome.passed()) {
      return ApiResponse.invalidRequest("CrcValidationFailed", outcome.detail());
    }
    body.putObject("data").put("attempted", true);
    return ApiResponse.ok(body);
  }

  private ApiResponse deleteWebhook(String id) {
    Webhook removed;
    synchronized (lock) {
      removed = DIGITS.matcher(id).matches() ? webhooks.remove(id) : null;
    }
    if (removed == null) {
      return webhookIdInvalid(id);
    }
    removed.markDeleted();
    log.info("webhook {} deleted", id);
    ObjectNode body = Json.object();
    body.putObject("data").put("deleted", true);
    return ApiResponse.ok(body);
  }

  private ApiResponse replay(ApiRequest request) {
    JsonNode body = Json.parseOrNull(request.body());
    if (body == null || !body.isObject()) {
      return badRequest("The request body must be a JSON object");
    }
    String id = Json.text(body, "webhook_id");
    Webhook webhook = id == null ? null : find(id);
    if (webhook == null) {
      return webhookIdInvalid(id);
    }
    Instant from = replayDate(Json.text(body, "from_date"));
    Instant to = replayDate(Json.text(body, "to_date"));
    if (from == null || to == null) {
      return badRequest("from_date and to_date are required, formatted yyyyMMddHHmm (UTC)");
    }
    Instant now = clock.now();
    if (from.isAfter(to)) {
      return badRequest("from_date must not be after to_date");
    }
    if (from.isBefore(Deliveries.oldestReplayable(now))) {
      return badRequest("from_date must be within the last 24 hours");
    }
    if (to.isAfter(now)) {
      return badRequest("to_date must not be in the future");
    }
    if (!replayRunning.compareAndSet(false, true)) {
      return ApiResponse.invalidRequest(
          "ReplayConflictError", "A replay job is already running for this application");
    }
    String jobId = nextId();
    boolean fail = replayJobsToFail.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
    log.info(
        "replay job {} for webhook {} from {} to {}{}",
        jobId,
        webhook.id,
        from,
        to,
        fail ? " (will fail: simulated fault)" : "");
    replayRequests.add(new ReplayRequest(jobId, webhook.id, from, to, now));
    // to_date names a minute: the window includes all of it.
    deliveries.replay(
        webhook, from, to.plus(1, ChronoUnit.MINUTES), jobId, fail, () -> replayRunning.set(false));
    ObjectNode job = Json.object();
    job.put("job_id", jobId);
    job.put("created_at", Webhook.TIMESTAMP.format(now));
    return ApiResponse.ok(style == ResponseStyle.CURRENT ? data(job) : job);
  }

  private static Instant replayDate(String text) {
    if (text == null) {
      return null;
    }
    try {
      return LocalDateTime.parse(text, REPLAY_DATE).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private Webhook find(String id) {
    if (id == null || !DIGITS.matcher(id).matches()) {
      return null;
    }
    synchronized (lock) {
      return webhooks.get(id);
    }
  }

  static ApiResponse webhookIdInvalid(String id) {
    return ApiResponse.invalidRequest(
        "WebhookIdInvalid",
        "Webhook id " + (id == null ? "(missing)" : id) + " is not a webhook of this application");
  }

  // ---------------------------------------------------------------- helpers

  // Caller holds lock.
  private int rateRemainingAfterRefresh() {
    Instant now = clock.now();
    if (!now.isBefore(rateWindowEnd)) {
      rateWindowEnd = now.plus(RATE_WINDOW);
      rateRemaining = rateLimit;
    }
    return rateRemaining;
  }

  private Map<String, String> rateHeaders(boolean consume) {
    synchronized (lock) {
      rateRemainingAfterRefresh();
      if (consume && rateRemaining > 0) {
        rateRemaining--;
      }
      Map<String, String> headers = new LinkedHashMap<>();
      headers.put("x-rate-limit-limit", Integer.toString(rateLimit));
      headers.put("x-rate-limit-remaining", Integer.toString(rateRemaining));
      headers.put("x-rate-limit-reset", Long.toString(rateWindowEnd.getEpochSecond()));
      return headers;
    }
  }

  private String nextId() {
    return Long.toString(ids.incrementAndGet());
  }

  private static ObjectNode data(JsonNode inner) {
    ObjectNode wrapper = Json.object();
    wrapper.set("data", inner);
    return wrapper;
  }

  private static boolean onlyPost(ApiRequest request) {
    return request.method().equals("POST");
  }

  private static boolean isForm(ApiRequest request) {
    String type = request.header("Content-Type");
    return type != null
        && type.toLowerCase(Locale.ROOT).startsWith("application/x-www-form-urlencoded");
  }

  private static Map<String, String> form(ApiRequest request) {
    Map<String, String> values = new HashMap<>();
    for (String pair : new String(request.body(), StandardCharsets.UTF_8).split("&")) {
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        continue;
      }
      try {
        values.putIfAbsent(
            URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        // A malformed escape makes the pair unusable; the caller then sees the value as missing.
      }
    }
    return values;
  }

  private static String rawFormValue(ApiRequest request, String name) {
    for (String pair : new String(request.body(), StandardCharsets.UTF_8).split("&")) {
      if (pair.startsWith(name + "=")) {
        return pair.substring(name.length() + 1);
      }
    }
    return null;
  }

  private static boolean sameSecret(String expected, String given) {
    return given != null
        && MessageDigest.isEqual(
            expected.getBytes(StandardCharsets.UTF_8), given.getBytes(StandardCharsets.UTF_8));
  }

  private static ApiResponse authenticityError(String message) {
    return ApiResponse.codedError(403, 99, "authenticity_token_error", message);
  }

  private static ApiResponse unauthorized() {
    return ApiResponse.problem(401, "Unauthorized", "Unauthorized", "about:blank");
  }

  static ApiResponse badRequest(String detail) {
    return ApiResponse.problem(400, "Invalid Request", detail, "invalid-request");
  }

  static ApiResponse notFound() {
    return ApiResponse.problem(404, "Not Found Error", "No such endpoint", "resource-not-found");
  }

  static ApiResponse methodNotAllowed() {
    return ApiResponse.problem(
        405, "Method Not Allowed", "Method not allowed for this endpoint", "about:blank");
  }

  @Override
  public String toString() {
    return "Api[webhooks=" + webhooks().size() + "]";
  }
}
