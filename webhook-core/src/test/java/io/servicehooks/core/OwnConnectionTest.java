package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static io.servicehooks.core.Fixtures.envelope;
import static io.servicehooks.core.Fixtures.signed;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** {@link WebhookConsumer#handleFromOwnConnection}: unsigned, and unreachable from a request. */
final class OwnConnectionTest {

  private final List<String> seen = new CopyOnWriteArrayList<>();

  private static byte[] bytes(String json) {
    return json.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void ownConnection_unsignedEnvelope_runsListenersWithCurrentName() {
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .on("profile.update.bio", e -> seen.add(e.type() + " " + e.id()))
            .build();

    WebhookResponse r =
        consumer.handleFromOwnConnection(bytes(envelope("-77", "ProfileBioUpdate"))).join();

    assertThat(r.status()).isEqualTo(200);
    assertThat(seen).containsExactly("profile.update.bio -77");
  }

  @Test
  void ownConnection_andWebhookCopyOfOneEvent_runOnce() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .meterRegistry(registry)
            .on("post.create", e -> seen.add(e.id()))
            .build();
    String event = envelope("1876", "post.create");

    WebhookResponse byStream = consumer.handleFromOwnConnection(bytes(event)).join();
    WebhookResponse byWebhook = consumer.handle(signed(SECRET, event)).join();

    assertThat(byStream.bodyAsString()).contains("\"events\":1");
    assertThat(byWebhook.bodyAsString()).contains("\"status\":\"duplicate\"");
    assertThat(seen).containsExactly("1876");
    assertThat(
            registry
                .counter("webhook.events", "type", "post.create", "outcome", "duplicate")
                .count())
        .isEqualTo(1.0);
  }

  @Test
  void request_unsignedSameBody_isRefusedWhateverItsHeaders() {
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .on("post.create", e -> seen.add(e.id()))
            .build();
    byte[] body = bytes(envelope("1876", "post.create"));

    // No header or query of a request selects the unsigned path.
    for (Map<String, String> headers :
        List.of(
            Map.<String, String>of(),
            Map.of("Authorization", "Bearer AAAA"),
            Map.of("x-service-webhooks-signature", ""))) {
      WebhookResponse r =
          consumer.handle(new WebhookRequest("POST", "backfill_minutes=5", headers, body)).join();
      assertThat(r.status()).as(headers.toString()).isEqualTo(401);
    }
    assertThat(seen).isEmpty();
  }

  @Test
  void ownConnection_listenerThrows_answers500AndErrorHandlerHears() {
    List<String> errors = new CopyOnWriteArrayList<>();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .on(
                "post.create",
                e -> {
                  throw new IllegalStateException("boom");
                })
            .onError((event, failure) -> errors.add(event.id() + " " + failure.getMessage()))
            .build();

    WebhookResponse r =
        consumer.handleFromOwnConnection(bytes(envelope("5", "post.create"))).join();

    assertThat(r.status()).isEqualTo(500);
    assertThat(errors).containsExactly("5 boom");
  }

  @Test
  void ownConnection_afterClose_isNotTaken() {
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .on("post.create", e -> seen.add(e.id()))
            .build();
    consumer.close();

    WebhookResponse r =
        consumer.handleFromOwnConnection(bytes(envelope("5", "post.create"))).join();

    assertThat(r.status()).isEqualTo(503);
    assertThat(seen).isEmpty();
  }
}
