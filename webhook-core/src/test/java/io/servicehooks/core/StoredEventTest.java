package io.servicehooks.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

final class StoredEventTest {

  private final ObjectMapper mapper = new ObjectMapper();
  private final PayloadParser parser = new PayloadParser(mapper, new EventTypeNames(Map.of()));

  /** A caller's type for {@link WebhookEvent#payloadAs}. */
  record Post(String id, String text) {}

  private List<WebhookEvent> parse(String json) throws PayloadParser.Malformed {
    return parser.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  private static void assertSameAsListenersSee(WebhookEvent restored, WebhookEvent original) {
    assertThat(restored.id()).isEqualTo(original.id());
    assertThat(restored.dedupKey()).isEqualTo(original.dedupKey());
    assertThat(restored.type()).isEqualTo(original.type());
    assertThat(restored.originalType()).isEqualTo(original.originalType());
    assertThat(restored.family()).isEqualTo(original.family());
    assertThat(restored.forUserId()).isEqualTo(original.forUserId());
    assertThat(restored.tag()).isEqualTo(original.tag());
    assertThat(restored.filter()).isEqualTo(original.filter());
    assertThat(restored.payload()).isEqualTo(original.payload());
    assertThat(restored.delivery()).isEqualTo(original.delivery());
  }

  @Test
  void roundTrip_activityEnvelope_restoresEveryValueListenersRead() throws Exception {
    String body =
        "{\"data\":{\"event_uuid\":\"-1876011\",\"event_type\":\"ProfileBioUpdate\","
            + "\"filter\":{\"user_id\":\"2244994945\"},\"tag\":\"bios\","
            + "\"payload\":{\"id\":\"7\",\"text\":\"caf\u00e9 \u2603\"},"
            + "\"includes\":{\"users\":[{\"id\":\"1\"}]}}}";
    WebhookEvent original = parse(body).get(0);

    StoredEvent stored = original.toStored();
    WebhookEvent restored = WebhookEvent.restore(stored, mapper);

    assertSameAsListenersSee(restored, original);
    assertThat(stored.deliveryJson()).isEqualTo(body);
    assertThat(stored.payloadJson()).isEqualTo("{\"id\":\"7\",\"text\":\"caf\u00e9 \u2603\"}");
    assertThat(restored.payloadAs(Post.class)).isEqualTo(new Post("7", "caf\u00e9 \u2603"));
    assertThat(restored.delivery().path("data").path("includes").path("users").size()).isEqualTo(1);
  }

  @Test
  void roundTrip_accountActivityBatch_restoresEachItemWithItsUser() throws Exception {
    String body =
        "{\"for_user_id\":\"2244994945\",\"follow_events\":["
            + "{\"type\":\"follow\",\"created_timestamp\":\"1\",\"source\":{\"id\":\"3\"}},"
            + "{\"type\":\"unfollow\",\"created_timestamp\":\"2\",\"source\":{\"id\":\"4\"}}]}";
    List<WebhookEvent> originals = parse(body);
    assertThat(originals).hasSize(2);

    for (WebhookEvent original : originals) {
      WebhookEvent restored = WebhookEvent.restore(original.toStored(), mapper);
      assertSameAsListenersSee(restored, original);
      assertThat(restored.family()).isEqualTo(PayloadFamily.ACCOUNT_ACTIVITY);
      assertThat(restored.forUserId()).contains("2244994945");
      assertThat(restored.filter().isMissingNode()).isTrue();
      assertThat(original.toStored().filterJson()).isNull();
    }
    assertThat(WebhookEvent.restore(originals.get(1).toStored(), mapper).type())
        .isEqualTo("follow.unfollow");
  }

  @Test
  void toString_namesTheEventOnly() throws Exception {
    StoredEvent stored = parse(Fixtures.envelope("42", "post.create")).get(0).toStored();

    assertThat(stored.toString())
        .isEqualTo("StoredEvent[type=post.create, id=42]")
        .doesNotContain("hello");
  }
}
