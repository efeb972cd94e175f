package io.servicehooks.samples;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.servicehooks.registration.RequestToken;
import io.servicehooks.registration.UserCredentials;
import io.servicehooks.registration.UserSignIn;
import io.servicehooks.registration.WebhookApiException;
import io.servicehooks.registration.WebhookClient;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * "Acting for a user" with a web callback (docs/acting-for-a-user.md; a test keeps the page's
 * snippet identical): {@code /login} sends the browser to the platform's authorize page, the
 * platform sends it back to {@code /callback} with the verifier, and the application exchanges it
 * for the user's credentials and subscribes to the user's direct messages in their context.
 */
public final class SignInWithCallback implements AutoCloseable {

  private final HttpServer server;
  private final WebhookClient client;
  private final String callbackUrl;
  private final String webhookId;
  // DOC-BEGIN
  // Request tokens waiting for their callback, by oauth_token (a real application keeps them in
  // the user's session); credentials by user id (keep them encrypted: they act for the user).
  private final Map<String, RequestToken> pending = new ConcurrentHashMap<>();
  private final Map<String, UserCredentials> users = new ConcurrentHashMap<>();

  private void login(HttpExchange exchange) throws IOException {
    UserSignIn signIn = client.userSignIn();
    RequestToken requestToken = signIn.requestToken(callbackUrl); // approved in the app's settings
    pending.put(requestToken.token(), requestToken);
    redirect(exchange, signIn.authorizeUrl(requestToken));
  }

  private void callback(HttpExchange exchange) throws IOException {
    Map<String, String> query = query(exchange.getRequestURI());
    RequestToken requestToken = pending.remove(query.getOrDefault("oauth_token", ""));
    if (requestToken == null || query.containsKey("denied")) {
      respond(exchange, 400, "Sign-in was cancelled or has expired: start again at /login");
      return;
    }
    try {
      UserCredentials user =
          client.userSignIn().accessToken(requestToken, query.get("oauth_verifier"));
      users.put(user.userId(), user);
      client
          .forUser(user)
          .createSubscription("dm.received", Map.of("user_id", user.userId()), "dms", webhookId);
      respond(exchange, 200, "Signed in as @" + user.screenName() + "; direct messages follow.");
    } catch (WebhookApiException e) { // INVALID_VERIFIER, CLOCK_SKEW, ...
      respond(exchange, 400, "Sign-in failed (" + e.reason() + "): " + e.platformMessage());
    }
  }

  // DOC-END

  private SignInWithCallback(WebhookClient client, int port, String webhookId) throws IOException {
    this.client = client;
    this.webhookId = webhookId;
    this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
    this.callbackUrl = "http://127.0.0.1:" + server.getAddress().getPort() + "/callback";
    server.createContext("/login", exchange -> handle(exchange, this::login));
    server.createContext("/callback", exchange -> handle(exchange, this::callback));
  }

  /**
   * Serves {@code /login} and {@code /callback} on 127.0.0.1.
   *
   * @param webhookId the webhook the users' direct messages go to, or {@code null}
   */
  public static SignInWithCallback start(WebhookClient client, int port, String webhookId)
      throws IOException {
    SignInWithCallback app = new SignInWithCallback(client, port, webhookId);
    app.server.start();
    return app;
  }

  /** The address the browser starts at. */
  public URI loginUrl() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/login");
  }

  /** The users signed in so far, by user id. */
  public Map<String, UserCredentials> users() {
    return Map.copyOf(users);
  }

  @Override
  public void close() {
    server.stop(0);
  }

  /** Runs against {@code servicehooks simulate} (its export lines in the environment). */
  public static void main(String[] args) throws IOException {
    WebhookClient client =
        WebhookClient.builder()
            .baseUrl(URI.create(System.getenv("SERVICE_API_BASE_URL")))
            .apiCredentials(System.getenv("SERVICE_API_KEY"), System.getenv("SERVICE_API_SECRET"))
            .build();
    SignInWithCallback app = start(client, 8081, null);
    System.out.println("open " + app.loginUrl() + " in a browser");
  }

  private interface Handler {
    void handle(HttpExchange exchange) throws IOException;
  }

  private static void handle(HttpExchange exchange, Handler handler) throws IOException {
    try {
      if (!exchange.getRequestMethod().equals("GET")) {
        respond(exchange, 405, "GET only");
        return;
      }
      handler.handle(exchange);
    } catch (IOException e) {
      respond(exchange, 502, "The platform could not be reached: " + e.getClass().getSimpleName());
    } finally {
      exchange.close();
    }
  }

  private static Map<String, String> query(URI uri) {
    Map<String, String> values = new HashMap<>();
    String raw = uri.getRawQuery();
    if (raw == null) {
      return values;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        values.putIfAbsent(
            URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return values;
  }

  private static void redirect(HttpExchange exchange, URI location) throws IOException {
    exchange.getResponseHeaders().set("Location", location.toString());
    exchange.sendResponseHeaders(302, -1);
  }

  private static void respond(HttpExchange exchange, int status, String text) throws IOException {
    byte[] body = text.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }
}
