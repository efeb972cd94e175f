package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookEvent;
import io.servicehooks.registration.Webhook;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.undertow.WebhookServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The whole flow with real parts: a consumer on Undertow registers itself with the platform
 * simulator through the registration client, receives signed deliveries with duplicates and legacy
 * names, loses its validity when its secret is wrong at a re-check, and gets it back.
 */
final class EndToEndTest {

  private static final String USER = "2244994945";

  private final List<WebhookEvent> seen = new CopyOnWriteArrayList<>();
  private PlatformSimulator platform;
  private WebhookServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
    if (platform != null) {
      platform.close();
    }
  }

  private WebhookServer serve(String secret, int port) {
    WebhookConsumer consumer =
        WebhookConsumer.builder().consumerSecrets(secret).onAny(seen::add).build();
    return WebhookServer.builder(consumer).host("127.0.0.1").port(port).build().start();
  }

  @Test
  void registeredConsumer_getsEachEventOnce_losesAndRegainsValidity() throws Exception {
    platform =
        PlatformSimulator.builder()
            .localMode(true)
            .retrySchedule(
                List.of(Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(150)))
            .deliveryTimeout(Duration.ofSeconds(2))
            .build()
            .start();
    server = serve(platform.consumerSecret(), 0);
    int port = server.port();
    String url = "http://127.0.0.1:" + port + "/webhooks";
    WebhookClient client =
        WebhookClient.builder()
            .baseUrl(platform.baseUrl())
            .apiCredentials(platform.apiKey(), platform.apiSecret())
            .allowInsecureUrls(true)
            .build();

    Webhook webhook = client.ensureRegistered(url);
    assertThat(webhook.valid()).isTrue();
    assertThat(client.ensureRegistered(url).id()).isEqualTo(webhook.id());

    platform.deliver(
        Events.activity(
            "100",
            "post.create",
            Map.of("user_id", USER),
            null,
            Map.of("id", "100", "text", "once")),
        3);
    platform.deliver(
        Events.activity(
            "101",
            "ProfileBioUpdate",
            Map.of("user_id", USER),
            null,
            Map.of("before", "a", "after", "b")),
        2);
    // Posts of another user: the subscribed user's own posts run no listener by default.
    String batch =
        Events.accountActivity(
            USER,
            "post_create_events",
            java.util.List.of(
                Map.of("id_str", "200", "text", "batched", "user", Map.of("id_str", "783214")),
                Map.of("id_str", "201", "text", "batched", "user", Map.of("id_str", "783214"))));
    platform.deliver(batch, 2);
    platform.deliver(Events.accountFollow(USER, "unfollow", "7", USER));
    assertThat(platform.awaitIdle(Duration.ofSeconds(20))).isTrue();
    assertThat(platform.attempts()).allSatisfy(a -> assertThat(a.status()).isEqualTo(200));
    // Deliveries run concurrently, so order is not promised; each event arrives exactly once.
    assertThat(seen)
        .extracting(WebhookEvent::type)
        .containsExactlyInAnyOrder(
            "post.create", "profile.update.bio", "post.create", "post.create", "follow.unfollow");
    assertThat(seen)
        .extracting(WebhookEvent::id)
        .contains("100", "101", "200", "201")
        .doesNotHaveDuplicates();
    assertThat(seen)
        .filteredOn(e -> e.id().equals("101"))
        .singleElement()
        .extracting(WebhookEvent::originalType)
        .isEqualTo("ProfileBioUpdate");

    // The consumer comes back with the wrong secret: the hourly re-check fails.
    server.close();
    server = serve("not-the-consumer-secret", port);
    platform.advance(Duration.ofHours(1));
    assertThat(client.list()).singleElement().extracting(Webhook::valid).isEqualTo(false);
    int attemptsBefore = platform.attempts().size();
    platform.deliver(
        Events.activity("300", "post.create", Map.of("user_id", USER), null, Map.of("id", "300")));
    assertThat(platform.awaitIdle(Duration.ofSeconds(10))).isTrue();
    assertThat(platform.attempts()).hasSize(attemptsBefore);
    assertThat(client.revalidate(webhook.id())).isFalse();

    // Secret restored: revalidation passes and deliveries resume.
    server.close();
    server = serve(platform.consumerSecret(), port);
    assertThat(client.revalidate(webhook.id())).isTrue();
    platform.deliver(
        Events.activity("301", "post.create", Map.of("user_id", USER), null, Map.of("id", "301")));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> seen.stream().anyMatch(e -> e.id().equals("301")));
    assertThat(seen).extracting(WebhookEvent::id).doesNotContain("300");
  }
}
