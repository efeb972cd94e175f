package io.servicehooks.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

final class PayloadParserTest {

  private final PayloadParser parser =
      new PayloadParser(new ObjectMapper(), new EventTypeNames(Map.of()));

  private List<WebhookEvent> parse(String json) throws PayloadParser.Malformed {
    return parser.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void parse_activityEnvelope_givesOneEventWithItsFields() throws Exception {
    List<WebhookEvent> events =
        parse(
            "{\"data\":{\"event_uuid\":\"-1876011\",\"event_type\":\"ProfileBioUpdate\","
                + "\"filter\":{\"user_id\":\"2244994945\"},\"tag\":\"bios\","
                + "\"payload\":{\"before\":\"a\",\"after\":\"b\"},\"includes\":{\"users\":[]}}}");
    assertThat(events).hasSize(1);
    WebhookEvent e = events.get(0);
    assertThat(e.id()).isEqualTo("-1876011");
    assertThat(e.dedupKey()).isEqualTo("e:-1876011");
    assertThat(e.type()).isEqualTo("profile.update.bio");
    assertThat(e.originalType()).isEqualTo("ProfileBioUpdate");
    assertThat(e.family()).isEqualTo(PayloadFamily.ACTIVITY);
    assertThat(e.forUserId()).contains("2244994945");
    assertThat(e.tag()).contains("bios");
    assertThat(e.payload().path("after").asText()).isEqualTo("b");
    assertThat(e.delivery().path("data").path("includes").isObject()).isTrue();
  }

  @Test
  void parse_envelopeWithOddSpacingAndBracesInStrings_payloadIsExactlyTheSubtree()
      throws Exception {
    String payload = "{ \"text\" : \"a } ] { \\\" quote\", \"n\":[1, {\"x\":\"\u00e9\u2603\"}] }";
    WebhookEvent e =
        parse(
                "{\n \"data\" : {\"payload\" : "
                    + payload
                    + " ,\n\t\"event_type\":\"post.create\","
                    + "\"filter\":{\"user_id\":\"9\"},\"event_uuid\":\"1\"} }")
            .get(0);
    assertThat(e.payload()).isEqualTo(new ObjectMapper().readTree(payload));
    assertThat(e.payload().path("n").get(1).path("x").asText()).isEqualTo("\u00e9\u2603");
    assertThat(e.forUserId()).contains("9");
    assertThat(e.delivery().path("data").path("event_uuid").asText()).isEqualTo("1");
  }

  @Test
  void forUserId_readFromTheFilterWithoutATree_givesWhatTheTreeGives() throws Exception {
    ObjectMapper json = new ObjectMapper();
    for (String filter :
        List.of(
            "{\"user_id\":\"2244994945\"}",
            "{\"user_id\":2244994945}",
            "{\"tag\":{\"user_id\":\"no\"},\"user_id\":\"7\"}",
            "{\"user_id\":\"1\",\"user_id\":\"2\"}",
            "{\"user_id\":null}",
            "{\"user_id\":true}",
            "{\"user_id\":1.50}",
            "{\"user_id\":{\"id\":\"3\"}}",
            "{\"user_id\":[\"4\"]}",
            "{\"user_id\":\"\"}",
            "{\"other\":\"5\"}",
            "{}",
            "[]",
            "\"user\"")) {
      String body =
          "{\"data\":{\"event_type\":\"post.create\",\"event_uuid\":\"1\",\"filter\":"
              + filter
              + ",\"payload\":{}}}";
      JsonNode tree = json.readTree(filter).get("user_id");
      Optional<String> expected =
          tree == null || tree.isNull() ? Optional.empty() : Optional.of(tree.asText());
      assertThat(parse(body).get(0).forUserId()).as(filter).isEqualTo(expected);
    }
  }

  @Test
  void ownEvent_whatTheScanNotes_agreesWithAFullReadOfTheStoredEvent() throws Exception {
    ObjectMapper json = new ObjectMapper();
    List<String> payloads =
        List.of(
            "{\"author_id\":\"9\",\"text\":\"x\"}",
            "{\"author_id\":9}",
            "{\"author_id\":\"\",\"author_id\":\"9\"}",
            "{\"author_id\":{\"id\":\"9\"},\"author_id\":\"8\"}",
            "{\"author_id\":\"8\",\"author_id\":\"9\"}",
            "{\"user\":{\"id_str\":\"9\"}}",
            "{\"user\":{\"id_str\":\"9\"},\"author_id\":\"8\"}",
            "{\"status\":{\"user_id\":9}}",
            "{\"sender_id\":\"9\"}",
            "{\"sender_id\":null,\"message_create\":{\"sender_id\":\"9\"}}",
            "{\"message_create\":{\"sender_id\":\"9\"},\"sender_id\":\"8\"}",
            "{\"direct_message_events\":[{\"message_create\":{\"sender_id\":\"9\"}}]}",
            "{}",
            "[]",
            "\"text\"");
    for (String type : List.of("post.create", "dm.received")) {
      for (String filter : List.of("{\"user_id\":\"9\"}", "{\"user_id\":9.0}", "{}")) {
        for (String payload : payloads) {
          String body =
              "{\"data\":{\"event_type\":\""
                  + type
                  + "\",\"event_uuid\":\"1\",\"filter\":"
                  + filter
                  + ",\"payload\":"
                  + payload
                  + ",\"payload\":"
                  + payload
                  + "}}";
          WebhookEvent scanned = parse(body).get(0);
          WebhookEvent full = WebhookEvent.restore(scanned.toStored(), json);
          assertThat(full.scannedAuthorId()).isNull();
          assertThat(OwnEvents.isOwn(scanned))
              .as(type + " " + filter + " " + payload)
              .isEqualTo(OwnEvents.isOwn(full));
          assertThat(scanned.forUserId()).as(filter).isEqualTo(full.forUserId());
        }
      }
    }
    assertThat(OwnEvents.isOwn(parse(ownPost("9", "9")).get(0))).isTrue();
    assertThat(OwnEvents.isOwn(parse(ownPost("9", "8")).get(0))).isFalse();
  }

  private static String ownPost(String forUser, String author) {
    return "{\"data\":{\"event_type\":\"post.create\",\"event_uuid\":\"1\",\"filter\":{\"user_id\":\""
        + forUser
        + "\"},\"payload\":{\"author_id\":\""
        + author
        + "\"}}}";
  }

  record Text(String text) {}

  @Test
  void payloadAs_mapsStraightFromTheSlice() throws Exception {
    WebhookEvent e =
        new PayloadParser(
                new ObjectMapper()
                    .disable(
                        com.fasterxml.jackson.databind.DeserializationFeature
                            .FAIL_ON_UNKNOWN_PROPERTIES),
                new EventTypeNames(Map.of()))
            .parse(
                "{\"data\":{\"event_type\":\"post.create\",\"event_uuid\":\"1\",\"payload\":{\"id\":\"1\",\"text\":\"hi\"}}}"
                    .getBytes(StandardCharsets.UTF_8))
            .get(0);
    assertThat(e.payloadAs(Text.class)).isEqualTo(new Text("hi"));
    assertThatThrownBy(() -> e.payloadAs(Integer.class))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void parse_envelopeWithNumericUuid_keepsDigits() throws Exception {
    WebhookEvent e =
        parse(
                "{\"data\":{\"event_uuid\":1876011123,\"event_type\":\"post.create\",\"payload\":{}}}")
            .get(0);
    assertThat(e.id()).isEqualTo("1876011123");
  }

  @Test
  void parse_envelopeWithoutUuid_usesSha256OfData() throws Exception {
    String data = "{\"event_type\":\"news.new\",\"payload\":{\"id\":\"1\"}}";
    WebhookEvent e = parse("{\"data\":" + data + "}").get(0);
    assertThat(e.id()).isEqualTo(sha256Hex(data));
  }

  @Test
  void parse_batch_mapsEveryArrayToItsCurrentType() throws Exception {
    List<WebhookEvent> events =
        parse(
            "{\"for_user_id\":\"42\","
                + "\"post_create_events\":[{\"id_str\":\"100\",\"text\":\"hi\"}],"
                + "\"post_delete_events\":[{\"status\":{\"id\":\"101\",\"user_id\":\"42\"},\"timestamp_ms\":\"1\"}],"
                + "\"favorite_events\":[{\"id\":\"f1\"}],"
                + "\"follow_events\":[{\"type\":\"follow\"},{\"type\":\"unfollow\"}],"
                + "\"block_events\":[{\"type\":\"block\"},{\"type\":\"unblock\"}],"
                + "\"mute_events\":[{\"type\":\"mute\"},{\"type\":\"unmute\"}],"
                + "\"direct_message_events\":["
                + "{\"id\":\"d1\",\"message_create\":{\"sender_id\":\"42\"}},"
                + "{\"id\":\"d2\",\"message_create\":{\"sender_id\":\"7\"}}],"
                + "\"direct_message_indicate_typing_events\":[{\"sender_id\":\"7\"}],"
                + "\"direct_message_mark_read_events\":[{\"sender_id\":\"7\"}],"
                + "\"users\":{\"7\":{\"id\":\"7\"}}}");
    assertThat(events)
        .extracting(WebhookEvent::type)
        .containsExactly(
            "post.create",
            "post.delete",
            "like.create",
            "follow.follow",
            "follow.unfollow",
            "block.block",
            "block.unblock",
            "mute.mute",
            "mute.unmute",
            "dm.sent",
            "dm.received",
            "dm.indicate_typing",
            "dm.read");
    assertThat(events)
        .allSatisfy(
            e -> {
              assertThat(e.family()).isEqualTo(PayloadFamily.ACCOUNT_ACTIVITY);
              assertThat(e.forUserId()).contains("42");
            });
    assertThat(events.get(0).id()).isEqualTo("100");
    assertThat(events.get(0).originalType()).isEqualTo("post_create_events");
    assertThat(events.get(1).id()).isEqualTo("101");
    assertThat(events.get(9).delivery().path("users").has("7")).isTrue();
  }

  @Test
  void parse_revokeAndReplayStatus_areEvents() throws Exception {
    assertThat(
            parse(
                "{\"user_event\":{\"revoke\":{\"date_time\":\"2026-01-01T00:00:00Z\",\"target\":{\"app_id\":\"1\"},\"source\":{\"user_id\":\"2\"}}}}"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.type()).isEqualTo("oauth.revoke");
              assertThat(e.forUserId()).isEmpty();
            });
    assertThat(
            parse(
                "{\"replay_job_status\":{\"webhook_id\":\"1\",\"job_state\":\"Complete\",\"job_state_description\":\"done\",\"job_id\":\"9\"}}"))
        .singleElement()
        .extracting(WebhookEvent::type)
        .isEqualTo("replay.job_status");
  }

  @Test
  void parse_sameItemForTwoUsers_givesDifferentDedupKeys() throws Exception {
    String item = "[{\"id_str\":\"100\"}]";
    String a =
        parse("{\"for_user_id\":\"1\",\"post_create_events\":" + item + "}").get(0).dedupKey();
    String b =
        parse("{\"for_user_id\":\"2\",\"post_create_events\":" + item + "}").get(0).dedupKey();
    assertThat(a).isNotEqualTo(b);
  }

  @Test
  void parse_itemWithoutId_usesSha256OfItemJson() throws Exception {
    String item = "{\"type\":\"follow\",\"created_timestamp\":\"1517588749178\"}";
    WebhookEvent e = parse("{\"for_user_id\":\"1\",\"follow_events\":[" + item + "]}").get(0);
    assertThat(e.id()).isEqualTo(sha256Hex(item));
  }

  @Test
  void parse_unknownEventArray_isAnEventNotAnError() throws Exception {
    assertThat(parse("{\"for_user_id\":\"1\",\"space_ticket_events\":[{\"id\":\"s\"}]}"))
        .singleElement()
        .extracting(WebhookEvent::type)
        .isEqualTo("space.ticket");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "not json",
        "[1,2]",
        "\"text\"",
        "{}",
        "{\"hello\":\"world\"}",
        "{\"data\":{\"payload\":{}}}",
        "{\"for_user_id\":\"1\"}",
        "{\"for_user_id\":\"1\",\"post_create_events\":{}}",
        "{\"for_user_id\":\"1\",\"post_create_events\":[1]}",
        "{\"for_user_id\":\"1\",\"post_create_events\":[{\"id\":\"1\"}],\"follow_events\":[{\"type\":\"hug\"}]}",
        "{\"data\":{\"event_type\":\"post.create\",\"payload\":{\"a\":}}}",
        "{\"data\":{\"event_type\":\"post.create\",\"payload\":{\"a\":1}}",
        "{\"data\":{\"event_type\":\"post.create\",\"payload\":{}}} trailing",
        "{\"data\":{\"event_type\":7,\"payload\":{}}}",
        "{\"for_user_id\":\"1\",\"_events\":[{}]}",
        "",
      })
  void parse_neitherFamilyOrBroken_isMalformed(String body) {
    assertThatThrownBy(() -> parse(body)).isInstanceOf(PayloadParser.Malformed.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"UTF-16BE", "UTF-16LE", "UTF-32BE", "UTF-32LE"})
  void parse_envelopeNotInUtf8_isMalformed(String charset) {
    // Found by the fuzz corpus: Jackson reads these encodings but gives no byte offsets, so the
    // slices were out of range (IllegalArgumentException out of parse, or out of payload()).
    byte[] body =
        "{\"data\":{\"event_type\":\"post.create\",\"payload\":{\"id\":\"1\"}}}"
            .getBytes(java.nio.charset.Charset.forName(charset));

    assertThatThrownBy(() -> parser.parse(body))
        .isInstanceOf(PayloadParser.Malformed.class)
        .hasMessage("body is not UTF-8 JSON");
  }

  static String sha256Hex(String json) throws Exception {
    return HexFormat.of()
        .formatHex(
            MessageDigest.getInstance("SHA-256").digest(json.getBytes(StandardCharsets.UTF_8)));
  }
}
