package io.servicehooks.registration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every response shape of docs/protocol.md#registration-api-shapes, current and older, parsed from
 * literal bodies.
 */
final class ResponsesTest {

  private static ApiResponse ok(String body) {
    return new ApiResponse(
        "GET",
        "/2/webhooks",
        200,
        HttpHeaders.of(Map.of(), (a, b) -> true),
        body.getBytes(StandardCharsets.UTF_8));
  }

  private static final String WEBHOOK =
      "{\"id\":\"1146654567674912769\",\"url\":\"https://hooks.example.org/x\","
          + "\"valid\":true,\"created_at\":\"2026-02-01T10:00:00.000Z\"}";

  @Test
  void webhook_wrappedInData_parses() throws Exception {
    Webhook webhook = Responses.webhook(ok("{\"data\":" + WEBHOOK + "}"));

    assertThat(webhook)
        .isEqualTo(
            new Webhook(
                "1146654567674912769",
                "https://hooks.example.org/x",
                true,
                Instant.parse("2026-02-01T10:00:00Z")));
  }

  @Test
  void webhook_flatOlderShape_parses() throws Exception {
    assertThat(Responses.webhook(ok(WEBHOOK)).id()).isEqualTo("1146654567674912769");
  }

  @Test
  void webhook_withoutId_isUnexpectedResponse() {
    assertThatThrownBy(() -> Responses.webhook(ok("{\"data\":{}}")))
        .isInstanceOf(WebhookApiException.class)
        .extracting(e -> ((WebhookApiException) e).reason())
        .isEqualTo(WebhookApiException.Reason.UNKNOWN);
  }

  @Test
  void webhooks_dataArray_parsesEach() throws Exception {
    List<Webhook> list =
        Responses.webhooks(ok("{\"data\":[" + WEBHOOK + "],\"meta\":{\"result_count\":1}}"));

    assertThat(list).extracting(Webhook::url).containsExactly("https://hooks.example.org/x");
  }

  @Test
  void webhooks_emptyDataArray_isEmpty() throws Exception {
    assertThat(Responses.webhooks(ok("{\"data\":[],\"meta\":{\"result_count\":0}}"))).isEmpty();
  }

  @Test
  void webhooks_dataAbsent_isEmpty() throws Exception {
    assertThat(Responses.webhooks(ok("{\"meta\":{\"result_count\":0}}"))).isEmpty();
  }

  @Test
  void webhooks_bareArray_parses() throws Exception {
    assertThat(Responses.webhooks(ok("[" + WEBHOOK + "]"))).hasSize(1);
  }

  @Test
  void validity_valid_isReturned() throws Exception {
    assertThat(Responses.validity(ok("{\"data\":{\"valid\":false}}"))).isFalse();
    assertThat(Responses.validity(ok("{\"data\":{\"valid\":true}}"))).isTrue();
  }

  @Test
  void validity_olderAttempted_isReturned() throws Exception {
    assertThat(Responses.validity(ok("{\"data\":{\"attempted\":true}}"))).isTrue();
  }

  @Test
  void validity_emptyBody_meansPassed() throws Exception {
    assertThat(Responses.validity(ok(""))).isTrue();
  }

  @Test
  void deleted_dataDeleted_isReturned() throws Exception {
    assertThat(Responses.deleted(ok("{\"data\":{\"deleted\":true}}"))).isTrue();
  }

  @Test
  void replayJob_wrappedAndFlat_parseAlike() throws Exception {
    String job = "{\"job_id\":\"1788410676658135040\",\"created_at\":\"2026-03-01T12:00:00.000Z\"}";
    ReplayJob expected =
        new ReplayJob("1788410676658135040", Instant.parse("2026-03-01T12:00:00Z"));

    assertThat(Responses.replayJob(ok("{\"data\":" + job + "}"))).isEqualTo(expected);
    assertThat(Responses.replayJob(ok(job))).isEqualTo(expected);
  }

  @Test
  void subscription_underDataOrDataSubscription_parsesAlike() throws Exception {
    String sub =
        "{\"subscription_id\":\"77\",\"event_type\":\"post.create\",\"filter\":{\"user_id\":\"2244994945\"},"
            + "\"tag\":\"mine\",\"webhook_id\":\"12\",\"created_at\":\"2026-03-01T12:00:00.000Z\"}";
    Subscription expected =
        new Subscription(
            "77",
            "post.create",
            Map.of("user_id", "2244994945"),
            "mine",
            "12",
            Instant.parse("2026-03-01T12:00:00Z"));

    assertThat(Responses.subscription(ok("{\"data\":" + sub + "}"))).isEqualTo(expected);
    assertThat(Responses.subscription(ok("{\"data\":{\"subscription\":" + sub + "}}")))
        .isEqualTo(expected);
  }

  @Test
  void subscriptions_listWithIdField_parses() throws Exception {
    List<Subscription> list =
        Responses.subscriptions(
            ok(
                "{\"data\":[{\"id\":\"5\",\"event_type\":\"dm.received\",\"filter\":{\"keyword\":\"x\"}}]}"));

    assertThat(list).extracting(Subscription::id).containsExactly("5");
    assertThat(Responses.subscriptions(ok("{\"meta\":{\"result_count\":0}}"))).isEmpty();
  }

  @Test
  void parse_notJson_isUnexpectedResponse() {
    assertThatThrownBy(() -> Responses.webhooks(ok("<html>")))
        .isInstanceOf(WebhookApiException.class)
        .hasMessageContaining("not JSON");
  }
}
