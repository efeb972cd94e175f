package io.servicehooks.registration;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Supplies the app-only bearer token: either one given as is, or one fetched with the API key and
 * secret ({@code POST /oauth2/token}), cached, fetched by one thread while the others wait, and
 * fetched again only when the platform rejects the cached one.
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
    private final ReentrantLock lock = new ReentrantLock();
    private volatile String cached;

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
      if (token != null) {
        return token;
      }
      lockInterruptibly();
      try {
        if (cached == null) {
          cached = fetch();
        }
        return cached;
      } finally {
        lock.unlock();
      }
    }

    @Override
    boolean canRefresh() {
      return true;
    }

    @Override
    String refreshAfterRejection(String rejected) throws IOException {
      lockInterruptibly();
      try {
        if (cached == null || Objects.equals(cached, rejected)) {
          cached = null;
          LOG.info("bearer token rejected by the platform, fetching a new one");
          cached = fetch();
        }
        return cached;
      } finally {
        lock.unlock();
      }
    }

    @Override
    void invalidate() throws IOException {
      lockInterruptibly();
      try {
        String token = cached != null ? cached : fetch();
        ApiResponse response =
            post(
                "/oauth2/invalidate_token",
                "access_token=" + URLEncoder.encode(token, StandardCharsets.UTF_8));
        cached = null;
        if (!response.isSuccess()) {
          throw ApiErrors.from(response, clock);
        }
        LOG.info("bearer token invalidated");
      } finally {
        lock.unlock();
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
      try {
        HttpResponse<BoundedBody.Result> response =
            http.send(request, BoundedBody.handler(WebhookClient.MAX_RESPONSE_BODY_BYTES));
        LOG.debug("POST {} -> {}", path, response.statusCode());
        if (response.body().tooLarge()) {
          throw ApiErrors.bodyTooLarge(
              "POST", path, response.statusCode(), WebhookClient.MAX_RESPONSE_BODY_BYTES);
        }
        return new ApiResponse(
            "POST", path, response.statusCode(), response.headers(), response.body().bytes());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted during POST " + path);
      }
    }

    private void lockInterruptibly() throws InterruptedIOException {
      try {
        lock.lockInterruptibly();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while waiting for the bearer token");
      }
    }

    @Override
    public String toString() {
      return "TokenSource[client credentials]";
    }
  }
}
