package io.servicehooks.registration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.servicehooks.registration.WebhookApiException.Reason;
import io.servicehooks.testkit.ConsumerStub;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.PlatformSimulator;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.ThrowingSupplier;
import org.slf4j.LoggerFactory;

/**
 * OAuth 1.0a sign-in and user context, the client's own signer against the simulator's independent
 * verifier, over real HTTP.
 */
final class UserSignInTest {

  private final PlatformSimulator platform =
      PlatformSimulator.builder()
          .localMode(true)
          .callbackUrls("https://bot.example.org/signed-in")
          .build()
          .start();

  /** The simulator's time, so moving it does not make the client's timestamps skewed. */
  private final Clock platformClock =
      new Clock() {
        @Override
        public Instant instant() {
          return platform.now();
        }

        @Override
        public ZoneId getZone() {
          return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
          return this;
        }
      };

  @AfterEach
  void stop() {
    platform.close();
  }

  private WebhookClient.Builder builder() {
    return WebhookClient.builder()
        .baseUrl(platform.baseUrl())
        .apiCredentials(platform.apiKey(), platform.apiSecret())
        .allowInsecureUrls(true)
        .clock(platformClock);
  }

  private WebhookClient client() {
    return builder().build();
  }

  private UserCredentials signIn(WebhookClient client, String userId, String screenName)
      throws Exception {
    UserSignIn signIn = client.userSignIn();
    RequestToken requestToken = signIn.requestToken(UserSignIn.OUT_OF_BAND, AccessType.READ);
    String pin = platform.approveRequestToken(requestToken.token(), userId, screenName);
    return signIn.accessToken(requestToken, pin);
  }

  private static WebhookApiException apiFailure(ThrowingSupplier<?> call) {
    try {
      call.get();
    } catch (WebhookApiException e) {
      return e;
    } catch (Throwable other) {
      throw new AssertionError("expected a WebhookApiException, got " + other, other);
    }
    throw new AssertionError("expected a WebhookApiException, the call succeeded");
  }

  @Test
  void pinFlow_approvedRequestToken_credentialsBoundToTheUser() throws Exception {
    UserCredentials credentials = signIn(client(), "2244994945", "alice");

    assertThat(credentials.userId()).isEqualTo("2244994945");
    assertThat(credentials.screenName()).isEqualTo("alice");
    assertThat(credentials.token()).startsWith("2244994945-");
    assertThat(credentials.toString()).doesNotContain(credentials.tokenSecret());
    assertThat(platform.activeUserTokens()).isEqualTo(1);
  }

  @Test
  void requestToken_approvedCallback_confirmedAndAuthorizeUrlsNameIt() throws Exception {
    UserSignIn signIn = client().userSignIn();

    RequestToken token = signIn.requestToken("https://bot.example.org/signed-in?state=x");

    assertThat(token.callbackConfirmed()).isTrue();
    assertThat(token.toString()).doesNotContain(token.tokenSecret());
    assertThat(signIn.authorizeUrl(token).toString())
        .isEqualTo(platform.baseUrl() + "/oauth/authorize?oauth_token=" + token.token());
    assertThat(signIn.authenticateUrl(token, true, "al ice").toString())
        .isEqualTo(
            platform.baseUrl()
                + "/oauth/authenticate?oauth_token="
                + token.token()
                + "&force_login=true&screen_name=al%20ice");
  }

  @Test
  void requestToken_callbackNotApproved_reasonAndPlatformMessage() {
    WebhookApiException e =
        apiFailure(() -> client().userSignIn().requestToken("https://evil.example/cb"));

    assertThat(e.reason()).isEqualTo(Reason.CALLBACK_NOT_APPROVED);
    assertThat(e.status()).isEqualTo(403);
    assertThat(e.platformMessage()).startsWith("Callback URL not approved");
  }

  @Test
  void accessToken_wrongPin_invalidVerifierWithPlatformMessage() throws Exception {
    UserSignIn signIn = client().userSignIn();
    RequestToken requestToken = signIn.requestToken(UserSignIn.OUT_OF_BAND);
    String pin = platform.approveRequestToken(requestToken.token(), "42", "bob");
    String wrong = pin.equals("1234567") ? "7654321" : "1234567";

    WebhookApiException e = apiFailure(() -> signIn.accessToken(requestToken, wrong));

    assertThat(e.reason()).isEqualTo(Reason.INVALID_VERIFIER);
    assertThat(e.status()).isEqualTo(401);
    assertThat(e.platformMessage()).contains("Invalid oauth_verifier parameter");
    assertThat(e.getMessage()).doesNotContain(requestToken.tokenSecret());
  }

  @Test
  void accessToken_requestTokenExpired_invalidVerifier() throws Exception {
    UserSignIn signIn = client().userSignIn();
    RequestToken requestToken = signIn.requestToken(UserSignIn.OUT_OF_BAND);
    String pin = platform.approveRequestToken(requestToken.token(), "42", "bob");
    platform.advance(Duration.ofMinutes(16));

    WebhookApiException e = apiFailure(() -> signIn.accessToken(requestToken, pin));

    assertThat(e.reason()).isEqualTo(Reason.INVALID_VERIFIER);
  }

  @Test
  void accessToken_pinUsedTwice_secondIsInvalidVerifier() throws Exception {
    UserSignIn signIn = client().userSignIn();
    RequestToken requestToken = signIn.requestToken(UserSignIn.OUT_OF_BAND);
    String pin = platform.approveRequestToken(requestToken.token(), "42", "bob");
    signIn.accessToken(requestToken, pin);

    WebhookApiException e = apiFailure(() -> signIn.accessToken(requestToken, pin));

    assertThat(e.reason()).isEqualTo(Reason.INVALID_VERIFIER);
    assertThat(e.status()).isEqualTo(401);
  }

  @Test
  void requestToken_wrongApiSecret_invalidSignature() {
    WebhookClient wrong =
        WebhookClient.builder()
            .baseUrl(platform.baseUrl())
            .apiCredentials(platform.apiKey(), platform.apiSecret() + "x")
            .clock(platformClock)
            .build();

    WebhookApiException e =
        apiFailure(() -> wrong.userSignIn().requestToken(UserSignIn.OUT_OF_BAND));

    assertThat(e.reason()).isEqualTo(Reason.INVALID_SIGNATURE);
    assertThat(e.platformMessage()).isEqualTo("Could not authenticate you.");
    assertThat(e.getMessage()).doesNotContain(platform.apiSecret());
  }

  @Test
  void userContextCall_wrongTokenSecret_invalidSignature() throws Exception {
    WebhookClient client = client();
    UserCredentials real = signIn(client, "42", "bob");
    UserCredentials forged = UserCredentials.of(real.token(), real.tokenSecret() + "x");

    WebhookApiException e = apiFailure(() -> client.forUser(forged).listSubscriptions());

    assertThat(e.reason()).isEqualTo(Reason.INVALID_SIGNATURE);
    assertThat(e.getMessage() + e.body()).doesNotContain(real.tokenSecret());
  }

  @Test
  void requestToken_clientClockSixMinutesBehind_clockSkew() {
    Clock behind = Clock.offset(platformClock, Duration.ofMinutes(-6));
    WebhookClient skewed = builder().clock(behind).build();

    WebhookApiException e =
        apiFailure(() -> skewed.userSignIn().requestToken(UserSignIn.OUT_OF_BAND));

    assertThat(e.reason()).isEqualTo(Reason.CLOCK_SKEW);
    assertThat(e.platformMessage()).isEqualTo("Timestamp out of bounds.");
  }

  @Test
  void dmSubscription_appOnly_userContextRequired_userContext_created() throws Exception {
    WebhookClient client = client();
    UserCredentials alice = signIn(client, "2244994945", "alice");
    Map<String, String> filter = Map.of("user_id", "2244994945");

    WebhookApiException appOnly =
        apiFailure(() -> client.createSubscription("dm.received", filter, null, null));
    Subscription created =
        client.forUser(alice).createSubscription("dm.received", filter, "alice-dms", null);

    assertThat(appOnly.reason()).isEqualTo(Reason.USER_CONTEXT_REQUIRED);
    assertThat(appOnly.status()).isEqualTo(403);
    assertThat(appOnly.platformMessage()).contains("need user context");
    assertThat(created.eventType()).isEqualTo("dm.received");
    assertThat(created.tag()).isEqualTo("alice-dms");
    assertThat(client.forUser(alice).listSubscriptions())
        .extracting(Subscription::id)
        .containsExactly(created.id());
  }

  @Test
  void dmSubscription_userContext_eventsDeliveredToTheWebhook() throws Exception {
    try (ConsumerStub consumer = ConsumerStub.start(platform.consumerSecret())) {
      WebhookClient client = client();
      Webhook webhook = client.create(consumer.url("/webhook"));
      UserCredentials alice = signIn(client, "2244994945", "alice");
      client
          .forUser(alice)
          .createSubscription(
              "dm.received", Map.of("user_id", alice.userId()), "alice-dms", webhook.id());

      platform.deliver(
          Events.activity(
              "dm.received",
              alice.userId(),
              Map.of("direct_message_events", List.of(Map.of("id", "99", "text", "hi")))));

      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> consumer.deliveryBodies().stream().anyMatch(b -> b.contains("dm.received")));
    }
  }

  @Test
  void invalidateToken_userToken_refusedAfterwards() throws Exception {
    WebhookClient client = client();
    UserCredentials alice = signIn(client, "2244994945", "alice");
    UserClient asAlice = client.forUser(alice);

    asAlice.invalidateToken();
    WebhookApiException after = apiFailure(asAlice::listSubscriptions);
    WebhookApiException again =
        apiFailure(
            () -> {
              asAlice.invalidateToken();
              return null;
            });

    assertThat(after.status()).isEqualTo(401);
    assertThat(after.reason()).isEqualTo(Reason.TOKEN_INVALID);
    assertThat(after.platformMessage()).isEqualTo("Invalid or expired token.");
    assertThat(again.reason()).isEqualTo(Reason.TOKEN_INVALID);
    assertThat(platform.activeUserTokens()).isZero();
  }

  @Test
  void forUser_clientWithBearerTokenOnly_isIllegalState() {
    WebhookClient client =
        WebhookClient.builder().baseUrl(platform.baseUrl()).bearerToken("t").build();

    assertThatThrownBy(() -> client.forUser(UserCredentials.of("a", "b")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("apiCredentials");
    assertThatThrownBy(client::userSignIn).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void secrets_wholeSignInAndUserSession_neverInLogsMessagesOrToString() throws Exception {
    Logger logger = (Logger) LoggerFactory.getLogger("io.servicehooks.registration");
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    List<String> texts = new ArrayList<>();
    UserCredentials alice;
    RequestToken requestToken;
    try {
      WebhookClient client = client();
      UserSignIn signIn = client.userSignIn();
      requestToken = signIn.requestToken(UserSignIn.OUT_OF_BAND, AccessType.WRITE);
      String pin = platform.approveRequestToken(requestToken.token(), "42", "bob");
      try {
        signIn.accessToken(requestToken, "0");
      } catch (WebhookApiException e) {
        texts.add(e.getMessage());
        texts.add(e.body());
      }
      alice = signIn.accessToken(requestToken, pin);
      UserClient user = client.forUser(alice);
      user.createSubscription("dm.received", Map.of("user_id", "42"), null, null);
      user.invalidateToken();
      try {
        user.listSubscriptions();
      } catch (WebhookApiException e) {
        texts.add(e.getMessage());
        texts.add(e.body());
      }
      texts.add(alice.toString());
      texts.add(requestToken.toString());
      texts.add(user.toString());
      texts.add(signIn.toString());
    } finally {
      logger.detachAppender(appender);
    }
    appender.list.forEach(event -> texts.add(event.getFormattedMessage()));

    assertThat(appender.list).isNotEmpty();
    for (String text : texts) {
      assertThat(text)
          .doesNotContain(alice.tokenSecret())
          .doesNotContain(requestToken.tokenSecret())
          .doesNotContain(platform.apiSecret());
    }
  }
}
