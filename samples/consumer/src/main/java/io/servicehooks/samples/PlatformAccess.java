package io.servicehooks.samples;

import static io.servicehooks.samples.ConsumerVariables.*;

import io.servicehooks.registration.WebhookClient;
import java.net.URI;
import java.time.Duration;
import java.util.Map;

/**
 * The platform's address and the app's credentials as the standalone consumer reads them from the
 * environment ({@code SERVICE_API_BASE_URL}, {@code SERVICE_API_KEY} and {@code SERVICE_API_SECRET}
 * or {@code SERVICE_BEARER_TOKEN}, {@code ALLOW_INSECURE_URL}), for what calls the platform beside
 * the consumer: catch-up and the webhook watch. {@link #toString()} leaves every secret out.
 *
 * @param bearerToken the app-only token, or null when the key and secret fetch one
 */
record PlatformAccess(
    URI baseUrl, String apiKey, String apiSecret, String bearerToken, boolean allowInsecureUrl) {

  /**
   * Reads the variables, refusing with one line what cannot be used.
   *
   * @param neededBy what needs the platform, for the message (e.g. {@code CATCH_UP=true})
   */
  static PlatformAccess parse(Map<String, String> env, String neededBy)
      throws ConsumerMain.ConfigException {
    String base = SERVICE_API_BASE_URL.value(env);
    if (base == null) {
      throw new ConsumerMain.ConfigException(
          neededBy + " needs SERVICE_API_BASE_URL (the platform's API address)");
    }
    URI baseUrl;
    try {
      baseUrl = URI.create(base);
      WebhookClient.builder().baseUrl(baseUrl); // the client's own check
    } catch (IllegalArgumentException e) {
      throw new ConsumerMain.ConfigException(
          "SERVICE_API_BASE_URL must be an absolute http(s) URL without user information");
    }
    String key = SERVICE_API_KEY.value(env);
    String secret = SERVICE_API_SECRET.value(env);
    String token = SERVICE_BEARER_TOKEN.value(env);
    if ((key == null) != (secret == null) && token == null) {
      throw new ConsumerMain.ConfigException(
          (key == null ? SERVICE_API_KEY : SERVICE_API_SECRET).name()
              + " is not set (set both SERVICE_API_KEY and SERVICE_API_SECRET, or"
              + " SERVICE_BEARER_TOKEN)");
    }
    if (token == null && (key == null || secret == null)) {
      throw new ConsumerMain.ConfigException(
          neededBy
              + " needs SERVICE_API_KEY and SERVICE_API_SECRET, or SERVICE_BEARER_TOKEN, in the"
              + " environment");
    }
    String insecure = ALLOW_INSECURE_URL.rawOr(env, "false").strip();
    if (!insecure.equals("true") && !insecure.equals("false")) {
      throw new ConsumerMain.ConfigException(
          "ALLOW_INSECURE_URL must be 'true' or 'false', was '" + insecure + "'");
    }
    return new PlatformAccess(baseUrl, key, secret, token, insecure.equals("true"));
  }

  /** A client with bounded waits; the bearer token, when given, wins over the key and secret. */
  WebhookClient client() {
    WebhookClient.Builder client =
        WebhookClient.builder()
            .baseUrl(baseUrl)
            .allowInsecureUrls(allowInsecureUrl)
            .connectTimeout(Duration.ofSeconds(3))
            .requestTimeout(Duration.ofSeconds(8));
    if (bearerToken != null) {
      client.bearerToken(bearerToken);
    } else {
      client.apiCredentials(apiKey, apiSecret);
    }
    return client.build();
  }

  @Override
  public String toString() {
    return "PlatformAccess[baseUrl="
        + baseUrl
        + ", auth="
        + (bearerToken != null ? "bearer token" : "client credentials")
        + "]";
  }
}
