package io.servicehooks.registration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.testkit.ConsumerStub;
import io.servicehooks.testkit.OpenStream;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testkit.ResponseStyle;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Connections and subscription updates against the real simulator, with real open streams. */
final class ConnectionsAndUpdateTest {

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private PlatformSimulator platform;
  private ConsumerStub consumer;
  private final List<InputStream> streams = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    platform = PlatformSimulator.builder().localMode(true).streamConnectionLimit(3).build().start();
    consumer = ConsumerStub.start(platform.consumerSecret());
  }

  @AfterEach
  void stop() throws IOException {
    for (InputStream stream : streams) {
      stream.close();
    }
    consumer.close();
    platform.close();
  }

  private WebhookClient client() {
    return WebhookClient.builder()
        .baseUrl(platform.baseUrl())
        .apiCredentials(platform.apiKey(), platform.apiSecret())
        .allowInsecureUrls(true)
        .build();
  }

  /** Opens a real stream the way a consumer would: its own token request, then the GET. */
  private InputStream openStream() throws Exception {
    String basic =
        URLEncoder.encode(platform.apiKey(), StandardCharsets.UTF_8)
            + ":"
            + URLEncoder.encode(platform.apiSecret(), StandardCharsets.UTF_8);
    HttpResponse<String> token =
        HTTP.send(
            HttpRequest.newBuilder(platform.baseUrl().resolve("/oauth2/token"))
                .header(
                    "Authorization",
                    "Basic "
                        + Base64.getEncoder()
                            .encodeToString(basic.getBytes(StandardCharsets.UTF_8)))
                .header("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8")
                .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    String bearer = new ObjectMapper().readTree(token.body()).get("access_token").asText();
    HttpResponse<InputStream> stream =
        HTTP.send(
            HttpRequest.newBuilder(platform.baseUrl().resolve("/2/activity/stream"))
                .header("Authorization", "Bearer " + bearer)
                .timeout(Duration.ofSeconds(5))
                .build(),
            HttpResponse.BodyHandlers.ofInputStream());
    assertThat(stream.statusCode()).isEqualTo(200);
    streams.add(stream.body());
    return stream.body();
  }

  @Test
  void listConnections_twoOpen_idsAndFieldsAsGiven() throws Exception {
    openStream();
    openStream();

    List<StreamConnection> connections = client().listConnections();

    assertThat(connections)
        .extracting(StreamConnection::endpointId)
        .containsExactlyElementsOf(
            platform.openStreams().stream().map(OpenStream::endpointId).toList());
    assertThat(connections.get(0).connectedAt())
        .isEqualTo(platform.openStreams().get(0).connectedAt().truncatedTo(ChronoUnit.MILLIS));
    assertThat(connections.get(0).fields())
        .containsEntry("endpoint_id", connections.get(0).endpointId())
        .containsKey("endpoint");
  }

  @Test
  void listConnections_none_empty() throws Exception {
    assertThat(client().listConnections()).isEmpty();
  }

  @Test
  void killConnection_open_thatStreamEnds() throws Exception {
    InputStream first = openStream();
    openStream();
    String id = platform.openStreams().get(0).endpointId();

    assertThat(client().killConnection(id)).isEqualTo(1);

    assertThat(first.readAllBytes()).isEmpty(); // ends cleanly: EOF, no more lines
    assertThat(platform.openStreams()).extracting(OpenStream::endpointId).doesNotContain(id);
    assertThat(platform.openStreams()).hasSize(1);
  }

  @Test
  void killConnection_unknown_apiExceptionWith404() {
    assertThatThrownBy(() -> client().killConnection("424242"))
        .isInstanceOfSatisfying(
            WebhookApiException.class, e -> assertThat(e.status()).isEqualTo(404));
  }

  @Test
  void killConnection_badId_refusedBeforeAnyCall() {
    assertThatThrownBy(() -> client().killConnection("all"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> client().killConnection("a/b"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void killAllConnections_threeOpen_countAndAllEnd() throws Exception {
    openStream();
    openStream();
    openStream();

    assertThat(client().killAllConnections()).isEqualTo(3);

    await().until(() -> platform.openStreams().isEmpty());
    assertThat(client().killAllConnections()).isZero();
  }

  @ParameterizedTest
  @EnumSource(ResponseStyle.class)
  void updateSubscription_tagAndWebhook_returnedAsPlatformHasIt(ResponseStyle style)
      throws Exception {
    platform.responseStyle(style);
    WebhookClient client = client();
    Webhook webhook = client.create(consumer.url("/webhook"));
    Subscription created =
        client.createSubscription("post.create", Map.of("user_id", "1"), "old", null);

    Subscription updated =
        client.updateSubscription(
            created.id(), SubscriptionUpdate.change().tag("new").webhookId(webhook.id()));

    assertThat(updated.id()).isEqualTo(created.id());
    assertThat(updated.tag()).isEqualTo("new");
    assertThat(updated.webhookId()).isEqualTo(webhook.id());
    assertThat(updated.filter()).isEqualTo(Map.of("user_id", "1"));
    assertThat(client.listSubscriptions()).singleElement().isEqualTo(updated);
  }

  @Test
  void updateSubscription_noWebhook_detached() throws Exception {
    WebhookClient client = client();
    Webhook webhook = client.create(consumer.url("/webhook"));
    Subscription created =
        client.createSubscription("post.create", Map.of("user_id", "1"), "t", webhook.id());

    Subscription updated =
        client.updateSubscription(created.id(), SubscriptionUpdate.change().noWebhook());

    assertThat(updated.webhookId()).isNull();
    assertThat(updated.tag()).isEqualTo("t");
  }

  @Test
  void updateSubscription_unknownWebhook_webhookIdInvalid() throws Exception {
    WebhookClient client = client();
    Subscription created =
        client.createSubscription("post.create", Map.of("user_id", "1"), null, null);

    assertThatThrownBy(
            () ->
                client.updateSubscription(
                    created.id(), SubscriptionUpdate.change().webhookId("999")))
        .isInstanceOfSatisfying(
            WebhookApiException.class,
            e -> assertThat(e.reason()).isEqualTo(WebhookApiException.Reason.WEBHOOK_ID_INVALID));
  }

  @Test
  void updateSubscription_nothingOrBoth_refusedBeforeAnyCall() {
    assertThatThrownBy(() -> client().updateSubscription("1", SubscriptionUpdate.change()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("needs a tag");
    assertThatThrownBy(() -> SubscriptionUpdate.change().webhookId("1").noWebhook())
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> SubscriptionUpdate.change().noWebhook().webhookId("1"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
