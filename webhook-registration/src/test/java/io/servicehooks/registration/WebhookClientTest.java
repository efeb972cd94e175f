package io.servicehooks.registration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.servicehooks.registration.WebhookApiException.Reason;
import io.servicehooks.testkit.ConsumerStub;
import io.servicehooks.testkit.Fault;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testkit.ResponseStyle;
import io.servicehooks.testsupport.FakeClock;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.ThrowingSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The client against the real simulator on port 0, with a consumer answering its CRC checks. */
final class WebhookClientTest {

  private PlatformSimulator platform;
  private ConsumerStub consumer;
  private final FakeClock time = FakeClock.at(Instant.now().truncatedTo(ChronoUnit.SECONDS));

  @BeforeEach
  void start() throws Exception {
    platform = PlatformSimulator.builder().localMode(true).webhookLimit(2).build().start();
    consumer = ConsumerStub.start(platform.consumerSecret());
  }

  @AfterEach
  void stop() {
    consumer.close();
    platform.close();
  }

  private WebhookClient.Builder clientBuilder() {
    return WebhookClient.builder()
        .baseUrl(platform.baseUrl())
        .apiCredentials(platform.apiKey(), platform.apiSecret())
        .allowInsecureUrls(true)
        .clock(time)
        .sleeper(time::sleep);
  }

  private WebhookClient client() {
    return clientBuilder().build();
  }

  private static WebhookApiException apiFailure(ThrowingSupplier<?> call) {
    try {
      call.get();
    } catch (WebhookApiException e) {
      return e;
    } catch (Throwable other) {
      throw new AssertionError("expected a WebhookApiException but got " + other, other);
    }
    throw new AssertionError("expected a WebhookApiException but the call succeeded");
  }

  // ------------------------------------------------------------------ successes, both response
  // styles

  @ParameterizedTest
  @EnumSource(ResponseStyle.class)
  void create_answeringConsumer_returnsValidWebhook(ResponseStyle style) throws Exception {
    platform.responseStyle(style);
    String url = consumer.url("/webhook");

    Webhook webhook = client().create(url);

    assertThat(webhook.id()).matches("[0-9]+");
    assertThat(webhook.url()).isEqualTo(url);
    assertThat(webhook.valid()).isTrue();
    assertThat(webhook.createdAt()).isNotNull();
    assertThat(consumer.crcRequests()).isEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(ResponseStyle.class)
  void list_noneAndOne_returnsWhatIsRegistered(ResponseStyle style) throws Exception {
    platform.responseStyle(style);
    WebhookClient client = client();
    assertThat(client.list()).isEmpty();

    Webhook created = client.create(consumer.url("/webhook"));

    assertThat(client.list()).containsExactly(created);
  }

  @ParameterizedTest
  @EnumSource(ResponseStyle.class)
  void revalidate_answeringConsumer_returnsTrue(ResponseStyle style) throws Exception {
    platform.responseStyle(style);
    WebhookClient client = client();
    Webhook webhook = client.create(consumer.url("/webhook"));

    assertThat(client.revalidate(webhook.id())).isTrue();
    assertThat(consumer.crcRequests()).isEqualTo(2);
  }

  @Test
  void revalidate_failingConsumerCurrentStyle_returnsFalse() throws Exception {
    WebhookClient client = client();
    Webhook webhook = client.create(consumer.url("/webhook"));
    consumer.crcAnswer(ConsumerStub.CrcAnswer.SERVER_ERROR);

    assertThat(client.revalidate(webhook.id())).isFalse();
    assertThat(client.list()).extracting(Webhook::valid).containsExactly(false);
  }

  @Test
  void revalidate_failingConsumerLegacyStyle_isCrcValidationFailed() throws Exception {
    platform.responseStyle(ResponseStyle.LEGACY);
    WebhookClient client = client();
    Webhook webhook = client.create(consumer.url("/webhook"));
    consumer.crcAnswer(ConsumerStub.CrcAnswer.SERVER_ERROR);

    WebhookApiException e = apiFailure(() -> client.revalidate(webhook.id()));

    assertThat(e.reason()).isEqualTo(Reason.CRC_VALIDATION_FAILED);
    assertThat(e.reasonName()).contains("CrcValidationFailed");
  }

  @Test
  void delete_registered_removesIt() throws Exception {
    WebhookClient client = client();
    Webhook webhook = client.create(consumer.url("/webhook"));

    assertThat(client.delete(webhook.id())).isTrue();
    assertThat(client.list()).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(ResponseStyle.class)
  void replay_registeredWebhook_returnsJob(ResponseStyle style) throws Exception {
    platform.responseStyle(style);
    WebhookClient client = client();
    Webhook webhook = client.create(consumer.url("/webhook"));
    Instant now = platform.now();

    ReplayJob job = client.replay(webhook.id(), now.minus(Duration.ofHours(2)), now);

    assertThat(job.jobId()).matches("[0-9]+");
    assertThat(job.createdAt()).isNotNull();
    assertThat(platform.awaitIdle(Duration.ofSeconds(5))).isTrue();
    assertThat(consumer.deliveries()).hasSize(1); // the replay_job_status control message
  }

  // ------------------------------------------------------------------ every reason

  @Test
  void create_failingConsumer_isCrcValidationFailed() {
    consumer.crcAnswer(ConsumerStub.CrcAnswer.SERVER_ERROR);

    WebhookApiException e = apiFailure(() -> client().create(consumer.url("/webhook")));

    assertThat(e.status()).isEqualTo(400);
    assertThat(e.reason()).isEqualTo(Reason.CRC_VALIDATION_FAILED);
    assertThat(e.getMessage()).contains("CrcValidationFailed");
  }

  @Test
  void create_urlThePlatformRefuses_isUrlValidationFailed() {
    // passes the client's relaxed local rules, but the platform accepts http only for loopback
    // hosts
    WebhookApiException e = apiFailure(() -> client().create("http://hooks.example.org/webhook"));

    assertThat(e.reason()).isEqualTo(Reason.URL_VALIDATION_FAILED);
    assertThat(e.reasonName()).contains("UrlValidationFailed");
  }

  @Test
  void create_sameUrlTwice_isDuplicateUrlFailed() throws Exception {
    WebhookClient client = client();
    client.create(consumer.url("/webhook"));

    WebhookApiException e = apiFailure(() -> client.create(consumer.url("/webhook")));

    assertThat(e.reason()).isEqualTo(Reason.DUPLICATE_URL_FAILED);
    assertThat(e.reasonName()).contains("DuplicateUrlFailed");
    assertThat(e.platformMessage()).startsWith("DuplicateUrlFailed:");
    assertThat(e.body()).contains("\"errors\"");
  }

  @Test
  void create_beyondPlanLimit_isWebhookLimitExceeded() throws Exception {
    WebhookClient client = client();
    client.create(consumer.url("/webhook/1"));
    client.create(consumer.url("/webhook/2"));

    WebhookApiException e = apiFailure(() -> client.create(consumer.url("/webhook/3")));

    assertThat(e.reason()).isEqualTo(Reason.WEBHOOK_LIMIT_EXCEEDED);
  }

  @Test
  void revalidateAndDelete_unknownId_areWebhookIdInvalid() {
    WebhookClient client = client();

    assertThat(apiFailure(() -> client.revalidate("123456")).reason())
        .isEqualTo(Reason.WEBHOOK_ID_INVALID);
    assertThat(apiFailure(() -> client.delete("123456")).reason())
        .isEqualTo(Reason.WEBHOOK_ID_INVALID);
  }

  @Test
  void replay_whileAJobRuns_isReplayConflict() throws Exception {
    WebhookClient client = client();
    Webhook webhook = client.create(consumer.url("/webhook"));
    consumer.holdDeliveries(1); // the job's status delivery, so the job is still running
    Instant now = platform.now();
    client.replay(webhook.id(), now.minus(Duration.ofHours(1)), now);

    WebhookApiException e =
        apiFailure(() -> client.replay(webhook.id(), now.minus(Duration.ofHours(1)), now));

    assertThat(e.reason()).isEqualTo(Reason.REPLAY_CONFLICT);
    assertThat(e.reasonName()).contains("ReplayConflictError");
    consumer.releaseDeliveries();
  }

  // ------------------------------------------------------------------ ensureRegistered

  @Test
  void ensureRegistered_absent_createsIt() throws Exception {
    Webhook webhook = client().ensureRegistered(consumer.url("/webhook"));

    assertThat(webhook.valid()).isTrue();
    assertThat(client().list()).containsExactly(webhook);
  }

  @Test
  void ensureRegistered_validPresent_keepsItWithoutACheck() throws Exception {
    WebhookClient client = client();
    Webhook created = client.create(consumer.url("/webhook"));

    assertThat(client.ensureRegistered(consumer.url("/webhook"))).isEqualTo(created);
    assertThat(consumer.crcRequests()).isEqualTo(1);
  }

  @Test
  void ensureRegistered_invalidPresent_revalidatesIt() throws Exception {
    WebhookClient client = client();
    Webhook created = client.create(consumer.url("/webhook"));
    consumer.crcAnswer(ConsumerStub.CrcAnswer.SERVER_ERROR);
    platform.runScheduledChecks();
    consumer.crcAnswer(ConsumerStub.CrcAnswer.CORRECT);

    Webhook ensured = client.ensureRegistered(consumer.url("/webhook"));

    assertThat(ensured.id()).isEqualTo(created.id());
    assertThat(ensured.valid()).isTrue();
    assertThat(client.list()).extracting(Webhook::valid).containsExactly(true);
  }

  @Test
  void ensureRegistered_raceWithAnotherInstance_treatsDuplicateAsRegistered() throws Exception {
    // both CRC checks are held until both creates are in flight, so one of them must meet
    // DuplicateUrlFailed
    consumer.holdCrcAnswersUntil(2);
    String url = consumer.url("/webhook");
    CompletableFuture<Webhook> first = CompletableFuture.supplyAsync(() -> ensure(url));
    CompletableFuture<Webhook> second = CompletableFuture.supplyAsync(() -> ensure(url));

    assertThat(first.get().id()).isEqualTo(second.get().id());
    assertThat(consumer.crcRequests()).isEqualTo(2);
    assertThat(client().list()).hasSize(1);
  }

  private Webhook ensure(String url) {
    try {
      return client().ensureRegistered(url);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  // ------------------------------------------------------------------ rate limits, 5xx, time-outs,
  // lost answers

  @Test
  void list_429WithResetHeader_waitsUntilResetAndRetries() throws Exception {
    platform.enqueueFault(Fault.rateLimited(time.instant().plusSeconds(30)));

    assertThat(client().list()).isEmpty();
    assertThat(time.sleeps()).containsExactly(Duration.ofSeconds(30));
  }

  @Test
  void list_429ResetBeyondMaximumWait_isRateLimitedWithoutWaiting() {
    Instant reset = time.instant().plus(Duration.ofMinutes(15));
    platform.enqueueFault(Fault.rateLimited(reset));

    WebhookApiException e =
        apiFailure(() -> clientBuilder().maxRetryWait(Duration.ofSeconds(60)).build().list());

    assertThat(e.status()).isEqualTo(429);
    assertThat(e.reason()).isEqualTo(Reason.RATE_LIMITED);
    assertThat(e.rateLimitReset()).contains(reset);
    assertThat(time.sleeps()).isEmpty();
  }

  @Test
  void list_5xxTwice_retriesWithBackoff() throws Exception {
    platform.enqueueFault(Fault.serverError(503), Fault.serverError(500));

    assertThat(client().list()).isEmpty();
    assertThat(time.sleeps()).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2));
  }

  @Test
  void list_5xxBeyondMaxRetries_failsWithTheLastStatus() {
    platform.enqueueFault(Fault.serverError(503), Fault.serverError(503), Fault.serverError(502));

    WebhookApiException e = apiFailure(() -> clientBuilder().maxRetries(2).build().list());

    assertThat(e.status()).isEqualTo(502);
    assertThat(e.reason()).isEqualTo(Reason.UNKNOWN);
    assertThat(time.sleeps()).hasSize(2);
  }

  @Test
  void revalidateAndDelete_5xx_areRetried() throws Exception {
    WebhookClient client = client();
    Webhook webhook = client.create(consumer.url("/webhook"));
    platform.enqueueFault(Fault.serverError(500));
    assertThat(client.revalidate(webhook.id())).isTrue();

    platform.enqueueFault(Fault.serverError(503));
    assertThat(client.delete(webhook.id())).isTrue();
    assertThat(time.sleeps()).hasSize(2);
  }

  @Test
  void create_429_isRetriedSinceNothingWasApplied() throws Exception {
    platform.enqueueFault(Fault.rateLimited(time.instant().plusSeconds(5)));

    assertThat(client().create(consumer.url("/webhook")).valid()).isTrue();
    assertThat(time.sleeps()).containsExactly(Duration.ofSeconds(5));
  }

  @Test
  void create_answerLostAsServerError_returnsTheWebhookFromTheList() throws Exception {
    platform.enqueueFault(Fault.dropResponseAfterApplying());
    WebhookClient client = client();

    Webhook webhook = client.create(consumer.url("/webhook"));

    assertThat(client.list()).containsExactly(webhook);
    assertThat(consumer.crcRequests()).isEqualTo(1); // not created twice
  }

  @Test
  void create_connectionClosedAfterApplying_returnsTheWebhookFromTheList() throws Exception {
    platform.enqueueFault(Fault.closeConnectionAfterApplying());
    WebhookClient client = client();

    Webhook webhook = client.create(consumer.url("/webhook"));

    assertThat(client.list()).containsExactly(webhook);
    assertThat(consumer.crcRequests()).isEqualTo(1);
  }

  @Test
  void create_answerSlowerThanRequestTimeout_returnsTheWebhookFromTheList() throws Exception {
    // The answer is held until the simulator closes, so the time-out always fires; the simulator
    // serves the client's follow-up list only once the create (with its CRC check) is applied, so
    // a slow machine cannot make the list miss it.
    platform.enqueueFault(Fault.delay(Duration.ofMinutes(5)));
    WebhookClient client = clientBuilder().requestTimeout(Duration.ofSeconds(1)).build();

    Webhook webhook = client.create(consumer.url("/webhook"));

    assertThat(webhook.url()).isEqualTo(consumer.url("/webhook"));
    assertThat(client.list()).containsExactly(webhook);
    assertThat(consumer.crcRequests()).isEqualTo(1);
  }

  @Test
  void create_serverErrorNothingApplied_isNotRepeatedAndFails() throws Exception {
    platform.enqueueFault(Fault.serverError(500));
    WebhookClient client = client();

    WebhookApiException e = apiFailure(() -> client.create(consumer.url("/webhook")));

    assertThat(e.status()).isEqualTo(500);
    assertThat(consumer.crcRequests()).isEqualTo(0);
    assertThat(client.list()).isEmpty();
    assertThat(time.sleeps()).isEmpty();
  }

  @Test
  void list_answerSlowerThanRequestTimeout_isHttpTimeoutException() {
    // held until the simulator closes: the time-out always fires first, however slow the machine
    platform.enqueueFault(Fault.delay(Duration.ofMinutes(5)));
    WebhookClient client = clientBuilder().requestTimeout(Duration.ofMillis(300)).build();

    assertThatThrownBy(client::list)
        .isInstanceOf(HttpTimeoutException.class)
        .isNotInstanceOf(WebhookApiException.class);
  }

  // ------------------------------------------------------------------ subscriptions

  @ParameterizedTest
  @EnumSource(ResponseStyle.class)
  void subscriptions_createListDelete_roundTrip(ResponseStyle style) throws Exception {
    platform.responseStyle(style);
    WebhookClient client = client();
    Webhook webhook = client.create(consumer.url("/webhook"));

    Subscription created =
        client.createSubscription(
            "post.create", Map.of("user_id", "2244994945"), "mine", webhook.id());

    assertThat(created.eventType()).isEqualTo("post.create");
    assertThat(created.filter()).containsExactly(Map.entry("user_id", "2244994945"));
    assertThat(created.tag()).isEqualTo("mine");
    assertThat(created.webhookId()).isEqualTo(webhook.id());
    assertThat(client.listSubscriptions()).containsExactly(created);
    assertThat(client.deleteSubscription(created.id())).isTrue();
    assertThat(client.listSubscriptions()).isEmpty();
  }

  @Test
  void deleteSubscription_unknown_isProblemWithTitleAsName() {
    WebhookApiException e = apiFailure(() -> client().deleteSubscription("42"));

    assertThat(e.status()).isEqualTo(404);
    assertThat(e.reason()).isEqualTo(Reason.UNKNOWN);
    assertThat(e.reasonName()).contains("Not Found Error");
    assertThat(e.platformMessage()).contains("does not exist");
  }

  @Test
  void createSubscription_emptyFilter_isRefusedBeforeAnyCall() {
    assertThatThrownBy(() -> client().createSubscription("post.create", Map.of(), null, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("filter");
  }

  // ------------------------------------------------------------------ listing helpers used above

  @Test
  void list_twoWebhooks_keepsPlatformOrder() throws Exception {
    WebhookClient client = client();
    Webhook one = client.create(consumer.url("/webhook/1"));
    Webhook two = client.create(consumer.url("/webhook/2"));

    assertThat(client.list()).isEqualTo(List.of(one, two));
  }
}
