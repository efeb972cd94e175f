package io.servicehooks.registration;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends one bearer-authenticated call to the platform, with the two recoveries every call shares: a
 * new token once after a 401, and bounded retries after a 429 (any call: the platform refused it
 * before doing anything) or a 5xx (only calls that are safe to repeat). A DELETE is also repeated
 * after a time-out or a dropped connection, and an id unknown on a repeat after such a lost answer
 * means the lost attempt deleted it.
 *
 * <p>One piece on purpose: the branches of the retry loop read each other's state (the token
 * renewed once, retries counted across 429s, 5xx and lost answers, whether an answer was lost).
 */
final class ApiCaller {

  private static final Logger LOG = LoggerFactory.getLogger(WebhookClient.class);
  private static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);

  /** How much of an error answer to a long-lived GET is read: enough for a problem object. */
  static final int MAX_OPEN_ERROR_BYTES = 4096;

  /** Whether a call may be repeated when its answer is lost, and what a lost answer means. */
  enum Repeat {
    /** Reads and revalidation: repeated after a 5xx. */
    SAFE,
    /** Creates: never repeated after a 5xx or a network failure; the caller recovers by listing. */
    UNSAFE,
    /**
     * Posts and direct messages made for a user: sent once, never repeated, not even after a 429
     * (whose wait may be minutes): the refusal comes back at once with its reset time, and the
     * caller (a listener's own failure handling) decides when to try again.
     */
    NEVER,
    /**
     * Deletes, only through {@link #delete}: repeated after a 5xx, a time-out or a dropped
     * connection, since the platform may have applied the lost attempt and deleting twice does no
     * harm.
     */
    DELETE
  }

  /**
   * Produces the {@code Authorization} header of one attempt in place of the bearer token: user
   * context and the sign-in legs sign each attempt anew (fresh nonce and timestamp).
   */
  @FunctionalInterface
  interface Signing {
    String header(String method, URI uri);
  }

  private final HttpClient http;
  private final URI baseUri;
  private final Duration requestTimeout;
  private final TokenSource tokens;
  private final int maxRetries;
  private final Duration maxRetryWait;
  private final Clock clock;
  private final WebhookClient.Sleeper sleeper;
  private final Signing signing;

  ApiCaller(
      HttpClient http,
      URI baseUri,
      Duration requestTimeout,
      TokenSource tokens,
      int maxRetries,
      Duration maxRetryWait,
      Clock clock,
      WebhookClient.Sleeper sleeper) {
    this(http, baseUri, requestTimeout, tokens, maxRetries, maxRetryWait, clock, sleeper, null);
  }

  private ApiCaller(
      HttpClient http,
      URI baseUri,
      Duration requestTimeout,
      TokenSource tokens,
      int maxRetries,
      Duration maxRetryWait,
      Clock clock,
      WebhookClient.Sleeper sleeper,
      Signing signing) {
    this.signing = signing;
    this.http = http;
    this.baseUri = baseUri;
    this.requestTimeout = requestTimeout;
    this.tokens = tokens;
    this.maxRetries = maxRetries;
    this.maxRetryWait = maxRetryWait;
    this.clock = clock;
    this.sleeper = sleeper;
  }

  /**
   * The same caller, with every attempt signed by {@code signing} instead of carrying the bearer
   * token; a 401 is then final (no token to fetch anew).
   */
  ApiCaller signedBy(Signing signing) {
    return new ApiCaller(
        http, baseUri, requestTimeout, tokens, maxRetries, maxRetryWait, clock, sleeper, signing);
  }

  URI baseUri() {
    return baseUri;
  }

  Clock clock() {
    return clock;
  }

  /**
   * Sends the call and returns its 2xx answer; any other answer becomes a {@link
   * WebhookApiException}.
   */
  ApiResponse call(String method, String path, byte[] jsonBody, Repeat repeat) throws IOException {
    if (repeat == Repeat.DELETE) {
      throw new IllegalArgumentException(
          "a DELETE that tolerates lost answers goes through delete");
    }
    return exchange(method, path, jsonBody, repeat)
        .orElseThrow(() -> new IllegalStateException("only a DELETE ends without an answer"));
  }

  /**
   * Sends a DELETE, repeated after a lost answer (a 5xx, a time-out or a dropped connection).
   *
   * @return the 2xx answer, or empty when a repeat after a lost answer was refused with {@code
   *     WebhookIdInvalid}: the lost attempt did the deletion. {@code WebhookIdInvalid} without an
   *     earlier lost answer (the first attempt, or after a 429, which applies nothing) stays a
   *     {@link WebhookApiException}.
   */
  Optional<ApiResponse> delete(String path) throws IOException {
    return exchange("DELETE", path, null, Repeat.DELETE);
  }

  private Optional<ApiResponse> exchange(String method, String path, byte[] jsonBody, Repeat repeat)
      throws IOException {
    boolean refreshed = false;
    int retries = 0;
    boolean answerLost = false;
    while (true) {
      String token = signing == null ? tokens.current() : null;
      ApiResponse response;
      try {
        response = sendOnce(method, path, jsonBody, token);
      } catch (IOException e) {
        if (repeat != Repeat.DELETE
            || retries >= maxRetries
            || e instanceof WebhookApiException
            || e instanceof InterruptedIOException
            || Thread.currentThread().isInterrupted()) {
          throw e;
        }
        answerLost |= mayHaveReachedThePlatform(e);
        Duration wait = backoff(retries);
        retries++;
        LOG.info(
            "{} {} failed ({}), retry {} of {} in {} ms",
            method,
            path,
            e.getClass().getSimpleName(),
            retries,
            maxRetries,
            saturatedMillis(wait));
        sleep(wait);
        continue;
      }
      if (response.isSuccess()) {
        return Optional.of(response);
      }
      if (response.status() == 401 && signing == null && !refreshed && tokens.canRefresh()) {
        refreshed = true;
        tokens.refreshAfterRejection(token);
        continue;
      }
      boolean retryable =
          repeat != Repeat.NEVER
              && (response.status() == 429
                  || (response.status() >= 500 && repeat != Repeat.UNSAFE));
      if (retryable && retries < maxRetries) {
        Optional<Duration> wait = waitBeforeRetry(response, retries);
        if (wait.isPresent()) {
          retries++;
          // a 5xx may come after the platform applied the call; a 429 means it applied nothing
          answerLost |= response.status() >= 500;
          LOG.info(
              "{} {} answered {}, retry {} of {} in {} ms",
              method,
              path,
              response.status(),
              retries,
              maxRetries,
              saturatedMillis(wait.get()));
          sleep(wait.get());
          continue;
        }
        LOG.info(
            "{} {} answered {}; the platform asks to wait longer than {} ms, giving up",
            method,
            path,
            response.status(),
            saturatedMillis(maxRetryWait));
      }
      WebhookApiException failure = ApiErrors.from(response, clock, signing != null);
      if (repeat == Repeat.DELETE
          && answerLost
          && failure.reason() == WebhookApiException.Reason.WEBHOOK_ID_INVALID) {
        LOG.info(
            "{} {}: the id is unknown now, so the attempt whose answer was lost deleted it",
            method,
            path);
        return Optional.empty();
      }
      if (response.status() == 401 && signing == null && !tokens.canRefresh()) {
        throw new WebhookApiException(
            failure.getMessage()
                + " (the bearer token given was refused:"
                + " it was invalidated or has expired)",
            failure.status(),
            failure.reason(),
            failure.reasonName().orElse(null),
            failure.platformMessage(),
            failure.body(),
            null,
            failure.parameters());
      }
      throw failure;
    }
  }

  /** How long to wait, or empty when the platform asks for more than the allowed maximum. */
  private Optional<Duration> waitBeforeRetry(ApiResponse response, int retriesSoFar) {
    Optional<Instant> reset = RetryAfter.resetTime(response, clock);
    Duration wait;
    if (reset.isPresent()) {
      wait = Duration.between(clock.instant(), reset.get());
      if (wait.isNegative()) {
        wait = Duration.ZERO;
      }
    } else {
      wait = backoff(retriesSoFar);
    }
    return wait.compareTo(maxRetryWait) > 0 ? Optional.empty() : Optional.of(wait);
  }

  /** The client's own wait when the platform names none: 1, 2, 4, ... seconds, at most the cap. */
  private Duration backoff(int retriesSoFar) {
    Duration wait = FIRST_BACKOFF.multipliedBy(1L << Math.min(retriesSoFar, 16));
    return wait.compareTo(maxRetryWait) > 0 ? maxRetryWait : wait;
  }

  /** Whether the request may have been applied: not when the connection was never made. */
  private static boolean mayHaveReachedThePlatform(IOException e) {
    return !(e instanceof ConnectException || e instanceof HttpConnectTimeoutException);
  }

  /**
   * Whole milliseconds, saturated: a wait as long as {@code maxRetryWait} allows may not fit a long
   * of them.
   */
  static long saturatedMillis(Duration duration) {
    if (duration.isNegative()) {
      return 0;
    }
    try {
      return duration.toMillis();
    } catch (ArithmeticException tooLong) {
      return Long.MAX_VALUE;
    }
  }

  private ApiResponse sendOnce(String method, String path, byte[] jsonBody, String token)
      throws IOException {
    URI uri = URI.create(baseUri + path);
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(requestTimeout)
            .header(
                "Authorization", signing == null ? "Bearer " + token : signing.header(method, uri))
            .header("Accept", "application/json");
    if (jsonBody != null) {
      request.header("Content-Type", "application/json");
      request.method(method, HttpRequest.BodyPublishers.ofByteArray(jsonBody));
    } else {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    }
    long started = System.nanoTime();
    HttpResponse<BoundedBody.Result> response =
        BoundedExchange.send(
            http,
            request.build(),
            BoundedBody.handler(WebhookClient.MAX_RESPONSE_BODY_BYTES),
            requestTimeout,
            method + " " + path);
    LOG.debug(
        "{} {} -> {} in {} ms",
        method,
        path,
        response.statusCode(),
        (System.nanoTime() - started) / 1_000_000);
    if (response.body().tooLarge()) {
      throw ApiErrors.bodyTooLarge(
          method, path, response.statusCode(), WebhookClient.MAX_RESPONSE_BODY_BYTES);
    }
    return new ApiResponse(
        method, path, response.statusCode(), response.headers(), response.body().bytes());
  }

  /**
   * Opens a long-lived GET and returns its answer as soon as the headers arrived: a 200 with its
   * body unread, any other status with the first {@link #MAX_OPEN_ERROR_BYTES} of its body already
   * read, all within the request time-out (see {@link BoundedExchange#open}); a 401 gets a new
   * token once when the token can be renewed.
   */
  HttpResponse<java.io.InputStream> open(String pathAndQuery) throws IOException {
    boolean refreshed = false;
    while (true) {
      String token = tokens.current();
      HttpRequest request =
          HttpRequest.newBuilder(URI.create(baseUri + pathAndQuery))
              .timeout(requestTimeout)
              .header("Authorization", "Bearer " + token)
              .header("Accept", "application/json")
              .GET()
              .build();
      HttpResponse<java.io.InputStream> response =
          BoundedExchange.open(
              http, request, requestTimeout, MAX_OPEN_ERROR_BYTES, "GET " + pathAndQuery);
      if (response.statusCode() == 401 && !refreshed && tokens.canRefresh()) {
        response.body().close();
        refreshed = true;
        tokens.refreshAfterRejection(token);
        continue;
      }
      return response;
    }
  }

  private void sleep(Duration wait) throws InterruptedIOException {
    try {
      sleeper.sleep(wait);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting to retry");
    }
  }

  TokenSource tokens() {
    return tokens;
  }
}
