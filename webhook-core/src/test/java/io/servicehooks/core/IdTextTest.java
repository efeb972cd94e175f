package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static io.servicehooks.core.Fixtures.signed;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Ids that are not valid text. A lone surrogate has no UTF-8 form, so a store that encodes keys
 * writes {@code ?} for it and {@code sur\ud800}, {@code sur\ud801} and {@code sur?} become one key
 * (an event answered {@code duplicate} that never ran); a NUL cannot be stored in a PostgreSQL text
 * column (503 forever in durable mode). Both are refused 400 {@code malformed_payload} in every
 * mode, before any claim or store. The bodies carry the JSON escapes themselves, as the platform
 * would send them.
 */
final class IdTextTest {

  // The JSON escapes as text: "\\u" in Java source is a backslash then "u", not a Unicode escape.
  private static final String LONE_HIGH = "sur\\ud800";
  private static final String LONE_OTHER_HIGH = "sur\\ud801";
  private static final String LONE_LOW = "sur\\udc01";
  private static final String WITH_NUL = "12\\u000034";
  private static final String VALID_PAIR = "sur\\ud83d\\ude00"; // U+1F600, a valid pair

  private final List<String> handled = new CopyOnWriteArrayList<>();
  private final TestStore store = new TestStore();
  private final DurableAcknowledgementTest.MapInbox inbox =
      new DurableAcknowledgementTest.MapInbox();

  private WebhookConsumer consumer(Acknowledgement mode) {
    WebhookConsumer.Builder b =
        WebhookConsumer.builder().consumerSecrets(SECRET).onAny(e -> handled.add(e.id()));
    if (mode == Acknowledgement.DURABLE) {
      b.inbox(inbox);
    } else {
      b.deduplicator(store).acknowledgement(mode);
    }
    return b.build();
  }

  private static String envelope(String uuidJson) {
    return "{\"data\":{\"event_uuid\":\""
        + uuidJson
        + "\",\"event_type\":\"post.create\",\"payload\":{\"text\":\"hi\"}}}";
  }

  private static String batch(String idStrJson) {
    return "{\"for_user_id\":\"2244994945\",\"post_create_events\":[{\"id_str\":\""
        + idStrJson
        + "\",\"text\":\"hi\"}]}";
  }

  private static String forUser(String forUserJson) {
    return "{\"for_user_id\":\""
        + forUserJson
        + "\",\"post_create_events\":[{\"id_str\":\"1\",\"text\":\"hi\"}]}";
  }

  private void assertRefused(WebhookConsumer consumer, String body, String field) {
    WebhookResponse r = consumer.handle(signed(SECRET, body)).join();
    String answer = new String(r.body(), StandardCharsets.UTF_8);
    assertThat(r.status()).as(body).isEqualTo(400);
    assertThat(answer).contains("\"error\":\"malformed_payload\"").contains(field);
    // the answer itself is valid text: no lone surrogate or NUL echoed back
    assertThat(answer).doesNotContain("\u0000");
    assertThat(answer.chars().filter(c -> Character.isSurrogate((char) c))).isEmpty();
  }

  private void assertNothingClaimedOrStored() {
    assertThat(store.claims).isEmpty();
    assertThat(inbox.rows).isEmpty();
    assertThat(handled).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Acknowledgement.class)
  void eventUuid_loneSurrogateOrNul_isMalformedAndNeverClaimed(Acknowledgement mode) {
    WebhookConsumer consumer = consumer(mode);

    for (String id : List.of(LONE_HIGH, LONE_OTHER_HIGH, LONE_LOW, WITH_NUL)) {
      assertRefused(consumer, envelope(id), "data.event_uuid");
    }

    assertNothingClaimedOrStored();
    consumer.close();
  }

  @ParameterizedTest
  @EnumSource(Acknowledgement.class)
  void idStr_loneSurrogateOrNul_isMalformedAndNeverClaimed(Acknowledgement mode) {
    WebhookConsumer consumer = consumer(mode);

    for (String id : List.of(LONE_HIGH, LONE_OTHER_HIGH, LONE_LOW, WITH_NUL)) {
      assertRefused(consumer, batch(id), "post_create_events item id");
      assertRefused(consumer, forUser(id), "for_user_id");
    }

    assertNothingClaimedOrStored();
    consumer.close();
  }

  @ParameterizedTest
  @EnumSource(Acknowledgement.class)
  void ids_thatDifferOnlyInTheirLoneSurrogate_neitherIsAnsweredAsTheOthersDuplicate(
      Acknowledgement mode) {
    WebhookConsumer consumer = consumer(mode);

    // "sur?" is valid text and runs; the two ids a store would have turned into "sur?" are refused
    // instead of being answered "duplicate" of it.
    WebhookResponse plain = consumer.handle(signed(SECRET, envelope("sur?"))).join();
    assertThat(plain.status()).isEqualTo(200);
    assertRefused(consumer, envelope(LONE_HIGH), "data.event_uuid");
    assertRefused(consumer, envelope(LONE_OTHER_HIGH), "data.event_uuid");

    if (mode == Acknowledgement.DURABLE) {
      assertThat(inbox.rows).containsOnlyKeys("e:sur?");
    } else {
      assertThat(store.claims).containsExactly("e:sur?");
    }
    consumer.close();
  }

  @ParameterizedTest
  @EnumSource(Acknowledgement.class)
  void ids_withValidSurrogatePair_areAccepted(Acknowledgement mode) {
    WebhookConsumer consumer = consumer(mode);

    assertThat(consumer.handle(signed(SECRET, envelope(VALID_PAIR))).join().status())
        .isEqualTo(200);
    assertThat(consumer.handle(signed(SECRET, batch(VALID_PAIR))).join().status()).isEqualTo(200);

    String id = "sur" + new String(Character.toChars(0x1F600));
    if (mode == Acknowledgement.DURABLE) {
      assertThat(inbox.rows).containsOnlyKeys("e:" + id, "a:2244994945:post_create_events:" + id);
    } else {
      assertThat(store.claims).containsExactly("e:" + id, "a:2244994945:post_create_events:" + id);
    }
    consumer.close();
  }
}
