package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static io.servicehooks.core.Fixtures.envelope;
import static io.servicehooks.core.Fixtures.signed;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Ids and type names over the documented bounds are refused before they can become a dedup key, a
 * log line or a metric tag.
 */
final class PayloadBoundsTest {

  private static final String HUGE = "9".repeat(900 * 1024);
  // Under Jackson's own limits (1,000 digits in a number, 50,000 characters in a field name), which
  // would otherwise refuse the body before the bounds here are reached.
  private static final String LONG_NUMBER = "9".repeat(999);
  private static final String LONG_NAME = "x".repeat(40_000);

  private final List<String> seen = new CopyOnWriteArrayList<>();

  /** A store that remembers every key it was asked about. */
  private final TestStore recording = new TestStore();

  private WebhookConsumer consumer() {
    return WebhookConsumer.builder()
        .consumerSecrets(SECRET)
        .deduplicator(recording)
        .onAny(e -> seen.add(e.id()))
        .build();
  }

  private void assertRefusedThenNormalDeliveryWorks(WebhookConsumer consumer, String body) {
    WebhookResponse r = consumer.handle(signed(SECRET, body)).join();
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.bodyAsString()).contains("\"error\":\"malformed_payload\"");
    assertThat(r.bodyAsString().length()).isLessThan(400);
    assertThat(seen).isEmpty();
    assertThat(recording.claims).isEmpty();

    WebhookResponse ok =
        consumer.handle(signed(SECRET, envelope("1876011200000000001", "post.create"))).join();
    assertThat(ok.status()).isEqualTo(200);
    assertThat(seen).containsExactly("1876011200000000001");
    assertThat(recording.claims).containsExactly("e:1876011200000000001");
  }

  @Test
  void envelope_eventUuidOverBound_isMalformedAndNeverClaimed() {
    String body =
        "{\"data\":{\"event_uuid\":\""
            + HUGE
            + "\",\"event_type\":\"post.create\",\"payload\":{}}}";
    assertRefusedThenNormalDeliveryWorks(consumer(), body);
  }

  @Test
  void envelope_numericEventUuidOverBound_isMalformed() {
    String body = "{\"data\":{\"event_uuid\":" + LONG_NUMBER + ",\"event_type\":\"post.create\"}}";
    assertRefusedThenNormalDeliveryWorks(consumer(), body);
  }

  @Test
  void envelope_eventTypeOverBound_isMalformedAndNeverClaimed() {
    assertRefusedThenNormalDeliveryWorks(consumer(), envelope("1", "x".repeat(900 * 1024)));
  }

  @Test
  void envelope_idAndTypeAtBound_areAccepted() {
    WebhookConsumer consumer = consumer();
    String id = "7".repeat(WebhookConsumer.MAX_EVENT_ID_LENGTH);
    String type = "a".repeat(WebhookConsumer.MAX_EVENT_TYPE_LENGTH);
    WebhookResponse r = consumer.handle(signed(SECRET, envelope(id, type))).join();
    assertThat(r.status()).isEqualTo(200);
    assertThat(seen).containsExactly(id);
  }

  @Test
  void batch_itemIdStrOverBound_isMalformed() {
    String body =
        "{\"for_user_id\":\"2244994945\",\"post_create_events\":[{\"id_str\":\"" + HUGE + "\"}]}";
    assertRefusedThenNormalDeliveryWorks(consumer(), body);
  }

  @Test
  void batch_itemNumericIdOverBound_isMalformed() {
    String body =
        "{\"for_user_id\":\"2244994945\",\"favorite_events\":[{\"id\":" + LONG_NUMBER + "}]}";
    assertRefusedThenNormalDeliveryWorks(consumer(), body);
  }

  @Test
  void batch_deletedStatusIdOverBound_isMalformed() {
    String body =
        "{\"for_user_id\":\"2244994945\",\"post_delete_events\":[{\"status\":{\"id\":\""
            + HUGE
            + "\",\"user_id\":\"1\"}}]}";
    assertRefusedThenNormalDeliveryWorks(consumer(), body);
  }

  @Test
  void batch_forUserIdOverBound_isMalformed() {
    String body = "{\"for_user_id\":\"" + HUGE + "\",\"favorite_events\":[{\"id\":\"5\"}]}";
    assertRefusedThenNormalDeliveryWorks(consumer(), body);
  }

  @Test
  void batch_unknownArrayNameOverBound_isMalformed() {
    String body = "{\"for_user_id\":\"1\",\"" + LONG_NAME + "_events\":[{\"id\":\"5\"}]}";
    assertRefusedThenNormalDeliveryWorks(consumer(), body);
  }

  @Test
  void batch_userEventKindOverBound_isMalformed() {
    String body = "{\"user_event\":{\"" + LONG_NAME + "\":{\"id\":\"5\"}}}";
    assertRefusedThenNormalDeliveryWorks(consumer(), body);
  }
}
