package io.servicehooks.registration;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Supplies the app-only bearer token: either one given as is, or one fetched with the API key and
 * secret ({@code POST /oauth2/token}), cached, fetched by one thread while the others wait for that
 * fetch (no lock is held across it, and the request time-out bounds it), and fetched again only
 * when the platform rejects the cached one.
 */
abstract class TokenSource {

  /** The token to send now. */
  abstract String current() throws IOException;

  /** Whether {@link #refreshAfterRejection} can produce a different token. */
  abstract boolean canRefresh();

  /**
   * Called after a 401 with the token that was rejected: forgets it (unless another thread already
   * replaced it) and returns a fresh one.
   */
  abstract String refreshAfterRejection(String rejected) throws IOException;

  /** Asks the platform to invalidate the app's token, and forgets it. */
  abstract void invalidate() throws IOException;

  static TokenSource fixed(String token) {
    return new Fixed(token);
  }

  static TokenSource clientCredentials(
      String apiKey,
      String apiSecret,
      HttpClient http,
      URI baseUri,
      Duration requestTimeout,
      Clock clock) {
    return new ClientCredentials(apiKey, apiSecret, http, baseUri, requestTimeout, clock);
  }

  private static final class Fixed extends TokenSource {
    private final String token;

    Fixed(String token) {
      this.token = token;
    }

    @Override
    String current() {
      return token;
    }

    @Override
    boolean canRefresh() {
      return false;
    }

    @Override
    String refreshAfterRejection(String rejected) {
      return token;
    }

    @Override
    void invalidate() {
      throw new IllegalStateException(
          "invalidating the token needs the API key and secret; this client was given a bearer token");
    }

    @Override
    public String toString() {
      return "TokenSource[bearer token given]";
    }
  }

  private static final class ClientCredentials extends TokenSource {
    private static final Logger LOG = LoggerFactory.getLogger(WebhookClient.class);

    private final String basicCredentials;
    private final HttpClient http;
    private final URI baseUri;
    private final Duration requestTimeout;
    private final Clock clock;
    // Both guarded by this; cached is also read without it on the fast path.
    private volatile String cached;
    private CompletableFuture<String> inFlight; // the fetch under way, if any

    ClientCredentials(
        String apiKey,
        String apiSecret,
        HttpClient http,
        URI baseUri,
        Duration requestTimeout,
        Clock clock) {
      this.basicCredentials = BasicCredentials.encode(apiKey, apiSecret);
      this.http = http;
      this.baseUri = baseUri;
      this.requestTimeout = requestTimeout;
      this.clock = clock;
    }

    @Override
    String current() throws IOException {
      String token = cached;
      return token != null ? token : renewed(null);
    }

    @Override
    boolean canRefresh() {
      return true;
    }

    @Override
    String refreshAfterRejection(String rejected) throws IOException {
      return renewed(Objects.requireNonNull(rejected, "rejected"));
    }

    @Override
    void invalidate() throws IOException {
      String token = current();
      ApiResponse response =
          post(
              "/oauth2/invalidate_token",
              "access_token=" + URLEncoder.encode(token, StandardCharsets.UTF_8));
      synchronized (this) {
        if (Objects.equals(cached, token)) {
          cached = null;
        }
      }
      if (!response.isSuccess()) {
        throw ApiErrors.from(response, clock);
      }
      LOG.info("bearer token invalidated");
    }

    /**
     * The cached token unless it is {@code rejected} (or there is none); otherwise a fetched one.
     * One fetch at a time: the first caller fetches on its own thread, the others wait for its
     * result. No lock is held while the fetch talks to the platform, and the fetch is bounded by
     * the request time-out, so no caller waits longer than one fetch.
     */
    private String renewed(String rejected) throws IOException {
      CompletableFuture<String> fetching;
      boolean mine = false;
      synchronized (this) {
        if (cached != null && !cached.equals(rejected)) {
          return cached;
        }
        if (cached != null) {
          cached = null;
          LOG.info("bearer token rejected by the platform, fetching a new one");
        }
        fetching = inFlight;
        if (fetching == null) {
          fetching = new CompletableFuture<>();
          inFlight = fetching;
          mine = true;
        }
      }
      if (!mine) {
        return awaitFetch(fetching);
      }
      try {
        String token = fetch();
        synchronized (this) {
          cached = token;
          inFlight = null;
        }
        fetching.complete(token);
        return token;
      } catch (IOException | RuntimeException | Error e) {
        synchronized (this) {
          inFlight = null;
        }
        fetching.completeExceptionally(e);
        throw e;
      }
    }

    /** Waits for another caller's fetch, which its own request time-out bounds. */
    private String awaitFetch(CompletableFuture<String> fetching) throws IOException {
      try {
        return fetching.get(requestTimeout.toNanos() * 2, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while waiting for the bearer token");
      } catch (TimeoutException e) {
        throw new HttpTimeoutException(
            "POST /oauth2/token: no bearer token within "
                + ApiCaller.saturatedMillis(requestTimeout.multipliedBy(2))
                + " ms");
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof IOException io) {
          throw io;
        }
        if (cause instanceof RuntimeException runtime) {
          throw runtime;
        }
        if (cause instanceof Error error) {
          throw error;
        }
        throw new IOException(cause);
      }
    }

    private String fetch() throws IOException {
      ApiResponse response = post("/oauth2/token", "grant_type=client_credentials");
      if (!response.isSuccess()) {
        ApiErrors.Parsed parsed = ApiErrors.parse(response.body());
        if (response.status() == 403
            || response.status() == 401
            || Integer.valueOf(ApiErrors.CODE_CREDENTIALS_REFUSED).equals(parsed.code())) {
          throw credentialsRefused(response, parsed);
        }
        throw ApiErrors.from(response, clock);
      }
      JsonNode root;
      try {
        root = Responses.JSON.readTree(response.body());
      } catch (IOException e) {
        root = null;
      }
      String token = root == null ? null : Responses.text(root, "access_token");
      String type = root == null ? null : Responses.text(root, "token_type");
      if (token == null || token.isBlank() || (type != null && !type.equalsIgnoreCase("bearer"))) {
        // never echo this body: it may hold a token
        throw ApiErrors.unexpected(response, "no bearer access_token in the token response");
      }
      LOG.debug("bearer token fetched");
      return token;
    }

    private WebhookApiException credentialsRefused(ApiResponse response, ApiErrors.Parsed parsed) {
      String code = parsed.code() == null ? "" : ", code " + parsed.code();
      String label = parsed.label() == null ? "" : " " + parsed.label();
      return new WebhookApiException(
          "POST /oauth2/token failed: HTTP "
              + response.status()
              + code
              + label
              + ": the platform refused the API key and secret (wrong credentials, or a token requested"
              + " too often)",
          response.status(),
          WebhookApiException.Reason.AUTHENTICATION,
          parsed.label() != null ? parsed.label() : parsed.reasonName(),
          parsed.message(),
          response.bodyText(),
          null);
    }

    private ApiResponse post(String path, String form) throws IOException {
      HttpRequest request =
          HttpRequest.newBuilder(URI.create(baseUri + path))
              .timeout(requestTimeout)
              .header("Authorization", "Basic " + basicCredentials)
              .header("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8")
              .header("Accept", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(form, StandardCharsets.UTF_8))
              .build();
      HttpResponse<BoundedBody.Result> response =
          BoundedExchange.send(
              http,
              request,
              BoundedBody.handler(WebhookClient.MAX_RESPONSE_BODY_BYTES),
              requestTimeout,
              "POST " + path);
      LOG.debug("POST {} -> {}", path, response.statusCode());
      if (response.body().tooLarge()) {
        throw ApiErrors.bodyTooLarge(
            "POST", path, response.statusCode(), WebhookClient.MAX_RESPONSE_BODY_BYTES);
      }
      return new ApiResponse(
          "POST", path, response.statusCode(), response.headers(), response.body().bytes());
    }

    @Override
    public String toString() {
      return "TokenSource[client credentials]";
    }
  }
}
