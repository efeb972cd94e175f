package io.servicehooks.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The simulator's OAuth 1.0a endpoints over real HTTP. Requests are signed here by hand with the
 * testkit's own code; the client's independent signer is checked against them in
 * webhook-registration.
 */
final class OAuthEndpointsTest {

  private static final Instant NOW = Instant.parse("2026-03-20T12:00:00Z");

  private final PlatformSimulator simulator =
      PlatformSimulator.builder()
          .clock(Clock.fixed(NOW, ZoneOffset.UTC))
          .callbackUrls("https://bot.example.org/callback")
          .build()
          .start();
  private final HttpClient http = HttpClient.newHttpClient();
  private int nonces;

  @AfterEach
  void close() {
    simulator.close();
  }

  private String sign(
      String method,
      String pathAndQuery,
      Map<String, String> extra,
      String token,
      String tokenSecret,
      String nonce,
      Instant at) {
    URI uri = simulator.baseUrl().resolve(pathAndQuery);
    Map<String, String> oauth = new LinkedHashMap<>();
    oauth.put("oauth_consumer_key", simulator.apiKey());
    oauth.put("oauth_nonce", nonce);
    oauth.put("oauth_signature_method", "HMAC-SHA1");
    oauth.put("oauth_timestamp", Long.toString(at.getEpochSecond()));
    if (token != null) {
      oauth.put("oauth_token", token);
    }
    oauth.put("oauth_version", "1.0");
    oauth.putAll(extra);
    List<String[]> params = new ArrayList<>(OAuthSignature.pairs(uri.getRawQuery()));
    oauth.forEach((k, v) -> params.add(new String[] {k, v}));
    String base = "http://" + uri.getHost() + ":" + uri.getPort() + uri.getPath();
    oauth.put(
        "oauth_signature",
        OAuthSignature.compute(method, base, params, simulator.apiSecret(), tokenSecret));
    List<String> parts = new ArrayList<>();
    oauth.forEach(
        (k, v) -> parts.add(OAuthSignature.encode(k) + "=\"" + OAuthSignature.encode(v) + "\""));
    return "OAuth " + String.join(", ", parts);
  }

  private HttpResponse<String> post(String pathAndQuery, String authorization, String json)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(simulator.baseUrl().resolve(pathAndQuery))
            .header("Authorization", authorization)
            .POST(
                json == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(json));
    if (json != null) {
      request.header("Content-Type", "application/json");
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private Map<String, String> form(HttpResponse<String> response) {
    Map<String, String> values = new HashMap<>();
    OAuthSignature.pairs(response.body()).forEach(p -> values.put(p[0], p[1]));
    return values;
  }

  private String nonce() {
    return "nonce" + (++nonces);
  }

  private Map<String, String> requestToken(String callback) throws Exception {
    HttpResponse<String> answer =
        post(
            "/oauth/request_token",
            sign(
                "POST",
                "/oauth/request_token",
                Map.of("oauth_callback", callback),
                null,
                null,
                nonce(),
                NOW),
            null);
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    return form(answer);
  }

  private Map<String, String> userToken(String userId) throws Exception {
    Map<String, String> request = requestToken("oob");
    String pin = simulator.approveRequestToken(request.get("oauth_token"), userId, "alice");
    HttpResponse<String> answer =
        post(
            "/oauth/access_token",
            sign(
                "POST",
                "/oauth/access_token",
                Map.of("oauth_verifier", pin),
                request.get("oauth_token"),
                request.get("oauth_token_secret"),
                nonce(),
                NOW),
            null);
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    return form(answer);
  }

  @Test
  void requestToken_oob_confirmedTokenAndPendingForApproval() throws Exception {
    Map<String, String> answer = requestToken("oob");

    assertThat(answer.get("oauth_callback_confirmed")).isEqualTo("true");
    assertThat(answer.get("oauth_token_secret")).isNotBlank();
    assertThat(simulator.pendingRequestTokens()).containsExactly(answer.get("oauth_token"));
  }

  @Test
  void requestToken_callbackNotApproved_403WithCode415() throws Exception {
    String header =
        sign(
            "POST",
            "/oauth/request_token",
            Map.of("oauth_callback", "https://elsewhere.example/cb"),
            null,
            null,
            nonce(),
            NOW);

    HttpResponse<String> answer = post("/oauth/request_token", header, null);

    assertThat(answer.statusCode()).isEqualTo(403);
    assertThat(answer.body()).contains("\"code\":415", "Callback URL not approved");
    assertThat(simulator.pendingRequestTokens()).isEmpty();
  }

  @Test
  void requestToken_approvedCallbackWithQuery_accepted() throws Exception {
    assertThat(requestToken("https://bot.example.org/callback?session=1"))
        .containsEntry("oauth_callback_confirmed", "true");
  }

  @Test
  void signedRequest_sameNonceTwice_secondRefused() throws Exception {
    String header =
        sign(
            "POST",
            "/oauth/request_token",
            Map.of("oauth_callback", "oob"),
            null,
            null,
            "n-1",
            NOW);

    HttpResponse<String> first = post("/oauth/request_token", header, null);
    HttpResponse<String> replayed = post("/oauth/request_token", header, null);

    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(replayed.statusCode()).isEqualTo(401);
    assertThat(replayed.body()).contains("\"code\":32", "nonce");
  }

  @Test
  void signedRequest_timestampSixMinutesOffEitherWay_refusedWithCode135() throws Exception {
    for (Duration off : List.of(Duration.ofMinutes(6), Duration.ofMinutes(-6))) {
      String header =
          sign(
              "POST",
              "/oauth/request_token",
              Map.of("oauth_callback", "oob"),
              null,
              null,
              nonce(),
              NOW.plus(off));

      HttpResponse<String> answer = post("/oauth/request_token", header, null);

      assertThat(answer.statusCode()).as(off.toString()).isEqualTo(401);
      assertThat(answer.body()).contains("\"code\":135", "Timestamp out of bounds");
    }
  }

  @Test
  void signedRequest_fourMinutesOff_accepted() throws Exception {
    String header =
        sign(
            "POST",
            "/oauth/request_token",
            Map.of("oauth_callback", "oob"),
            null,
            null,
            nonce(),
            NOW.minus(Duration.ofMinutes(4)));

    assertThat(post("/oauth/request_token", header, null).statusCode()).isEqualTo(200);
  }

  @Test
  void signedRequest_signatureOfAnotherPath_refusedWithCode32() throws Exception {
    String header =
        sign(
            "POST",
            "/oauth/access_token",
            Map.of("oauth_callback", "oob"),
            null,
            null,
            nonce(),
            NOW);

    HttpResponse<String> answer = post("/oauth/request_token", header, null);

    assertThat(answer.statusCode()).isEqualTo(401);
    assertThat(answer.body()).contains("\"code\":32");
  }

  @Test
  void accessToken_wrongPin_401InvalidVerifier_rightPinThenBindsUser() throws Exception {
    Map<String, String> request = requestToken("oob");
    String pin = simulator.approveRequestToken(request.get("oauth_token"), "42", "alice");
    String wrong = pin.equals("0000000") ? "1111111" : "0000000";

    HttpResponse<String> refused =
        post(
            "/oauth/access_token",
            sign(
                "POST",
                "/oauth/access_token",
                Map.of("oauth_verifier", wrong),
                request.get("oauth_token"),
                request.get("oauth_token_secret"),
                nonce(),
                NOW),
            null);
    HttpResponse<String> granted =
        post(
            "/oauth/access_token",
            sign(
                "POST",
                "/oauth/access_token",
                Map.of("oauth_verifier", pin),
                request.get("oauth_token"),
                request.get("oauth_token_secret"),
                nonce(),
                NOW),
            null);

    assertThat(pin).matches("[0-9]{7}");
    assertThat(refused.statusCode()).isEqualTo(401);
    assertThat(refused.body()).contains("Invalid oauth_verifier parameter");
    assertThat(granted.statusCode()).isEqualTo(200);
    assertThat(form(granted))
        .containsEntry("user_id", "42")
        .containsEntry("screen_name", "alice")
        .containsKeys("oauth_token", "oauth_token_secret");
    assertThat(form(granted).get("oauth_token")).startsWith("42-");
    assertThat(simulator.pendingRequestTokens()).isEmpty();
  }

  @Test
  void authorizePage_oobFormPosted_showsPinThatBuysTheToken() throws Exception {
    Map<String, String> request = requestToken("oob");
    URI page =
        simulator.baseUrl().resolve("/oauth/authorize?oauth_token=" + request.get("oauth_token"));

    HttpResponse<String> shown =
        http.send(HttpRequest.newBuilder(page).build(), HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> decided =
        http.send(
            HttpRequest.newBuilder(page)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "oauth_token="
                            + request.get("oauth_token")
                            + "&screen_name=bob&authorize=1"))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(shown.statusCode()).isEqualTo(200);
    assertThat(shown.body()).contains("Authorize app", "hooks_demo");
    Matcher pin = Pattern.compile("id=\"oauth_pin\">([0-9]{7})<").matcher(decided.body());
    assertThat(pin.find()).as(decided.body()).isTrue();
    HttpResponse<String> granted =
        post(
            "/oauth/access_token",
            sign(
                "POST",
                "/oauth/access_token",
                Map.of("oauth_verifier", pin.group(1)),
                request.get("oauth_token"),
                request.get("oauth_token_secret"),
                nonce(),
                NOW),
            null);
    assertThat(form(granted)).containsEntry("screen_name", "bob");
  }

  @Test
  void authorizePage_callbackFlow_redirectsWithTokenAndVerifier() throws Exception {
    Map<String, String> request = requestToken("https://bot.example.org/callback?s=1");
    URI page =
        simulator.baseUrl().resolve("/oauth/authorize?oauth_token=" + request.get("oauth_token"));

    HttpResponse<String> decided =
        http.send(
            HttpRequest.newBuilder(page)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "oauth_token=" + request.get("oauth_token")))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(decided.statusCode()).isEqualTo(302);
    assertThat(decided.headers().firstValue("location").orElseThrow())
        .startsWith(
            "https://bot.example.org/callback?s=1&oauth_token="
                + request.get("oauth_token")
                + "&oauth_verifier=");
  }

  @Test
  void invalidateToken_signedWithTheToken_thenTheTokenIsRefused() throws Exception {
    Map<String, String> user = userToken("42");
    String token = user.get("oauth_token");
    String secret = user.get("oauth_token_secret");

    HttpResponse<String> revoked =
        post(
            "/1.1/oauth/invalidate_token",
            sign("POST", "/1.1/oauth/invalidate_token", Map.of(), token, secret, nonce(), NOW),
            null);
    HttpResponse<String> after =
        post(
            "/2/activity/subscriptions",
            sign("POST", "/2/activity/subscriptions", Map.of(), token, secret, nonce(), NOW),
            "{\"event_type\":\"dm.received\",\"filter\":{\"user_id\":\"42\"}}");

    assertThat(revoked.statusCode()).isEqualTo(200);
    assertThat(revoked.body()).contains(token);
    assertThat(after.statusCode()).isEqualTo(401);
    assertThat(after.body()).contains("\"code\":89");
    assertThat(simulator.activeUserTokens()).isZero();
  }

  @Test
  void dmSubscription_userContextOfThatUser_created_otherUserRefused() throws Exception {
    Map<String, String> user = userToken("42");
    String token = user.get("oauth_token");
    String secret = user.get("oauth_token_secret");

    HttpResponse<String> own =
        post(
            "/2/activity/subscriptions",
            sign("POST", "/2/activity/subscriptions", Map.of(), token, secret, nonce(), NOW),
            "{\"event_type\":\"dm.received\",\"filter\":{\"user_id\":\"42\"}}");
    HttpResponse<String> other =
        post(
            "/2/activity/subscriptions",
            sign("POST", "/2/activity/subscriptions", Map.of(), token, secret, nonce(), NOW),
            "{\"event_type\":\"dm.received\",\"filter\":{\"user_id\":\"43\"}}");

    assertThat(own.statusCode()).as(own.body()).isEqualTo(200);
    assertThat(own.body()).contains("dm.received");
    assertThat(other.statusCode()).isEqualTo(403);
  }

  @Test
  void dmSubscription_appOnlyToken_403ProblemSaysUserContext() throws Exception {
    String bearer =
        PlatformClient.MAPPER
            .readTree(new PlatformClient(simulator).requestToken().body())
            .get("access_token")
            .asText();

    HttpResponse<String> answer =
        post(
            "/2/activity/subscriptions",
            "Bearer " + bearer,
            "{\"event_type\":\"dm.received\",\"filter\":{\"user_id\":\"42\"}}");
    HttpResponse<String> publicEvent =
        post(
            "/2/activity/subscriptions",
            "Bearer " + bearer,
            "{\"event_type\":\"post.create\",\"filter\":{\"user_id\":\"42\"}}");

    assertThat(answer.statusCode()).isEqualTo(403);
    assertThat(answer.headers().firstValue("content-type")).hasValue("application/problem+json");
    assertThat(PlatformClient.MAPPER.readTree(answer.body()).get("detail").asText())
        .contains("need user context");
    assertThat(publicEvent.statusCode()).isEqualTo(200);
  }

  @Test
  void userContextCall_unknownToken_401Code89() throws Exception {
    HttpResponse<String> answer =
        post(
            "/2/activity/subscriptions",
            sign("GET", "/2/activity/subscriptions", Map.of(), "1-unknown", "s", nonce(), NOW),
            null);

    assertThat(answer.statusCode()).isEqualTo(401);
    assertThat(answer.body()).contains("\"code\":89");
  }
}
