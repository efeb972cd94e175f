package io.servicehooks.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

final class EventsTest {

  @Test
  void activity_allFields_envelopeShape() throws IOException {
    JsonNode data =
        tree(Events.activity(
                "-1876",
                "post.create",
                Map.of("user_id", "2244994945"),
                "tag-1",
                Map.of("id", "1")))
            .get("data");

    assertThat(data.get("event_uuid").asText()).isEqualTo("-1876");
    assertThat(data.get("event_type").asText()).isEqualTo("post.create");
    assertThat(data.get("filter").get("user_id").asText()).isEqualTo("2244994945");
    assertThat(data.get("tag").asText()).isEqualTo("tag-1");
    assertThat(data.get("payload").get("id").asText()).isEqualTo("1");
  }

  @Test
  void activity_noUuidNoTag_fieldsOmitted() throws IOException {
    JsonNode data =
        tree(Events.activity(null, "ProfileBioUpdate", Map.of("user_id", "1"), null, Map.of()))
            .get("data");

    assertThat(data.has("event_uuid")).isFalse();
    assertThat(data.has("tag")).isFalse();
    assertThat(data.get("event_type").asText()).isEqualTo("ProfileBioUpdate");
  }

  @Test
  void postCreate_fresh_uniqueUuidAndPostPayload() throws IOException {
    JsonNode a = tree(Events.postCreate("7", "99", "hi")).get("data");
    JsonNode b = tree(Events.postCreate("7", "99", "hi")).get("data");

    assertThat(a.get("event_uuid").asText()).isNotEqualTo(b.get("event_uuid").asText());
    assertThat(a.get("payload").get("author_id").asText()).isEqualTo("7");
    assertThat(a.get("payload").get("text").asText()).isEqualTo("hi");
    assertThat(a.get("payload").has("created_at")).isTrue();
  }

  @Test
  void profileUpdate_legacyName_beforeAfter() throws IOException {
    JsonNode data = tree(Events.profileUpdate("ProfileBioUpdate", "7", "old", "new")).get("data");

    assertThat(data.get("event_type").asText()).isEqualTo("ProfileBioUpdate");
    assertThat(data.get("payload").get("before").asText()).isEqualTo("old");
    assertThat(data.get("payload").get("after").asText()).isEqualTo("new");
  }

  @Test
  void oauthRevoke_filterEmpty() throws IOException {
    JsonNode data = tree(Events.oauthRevoke("7", "42")).get("data");

    assertThat(data.get("filter").isEmpty()).isTrue();
    assertThat(data.get("payload").get("app_id").asText()).isEqualTo("42");
  }

  @Test
  void accountPostCreate_severalIds_oneArrayEntryEach() throws IOException {
    JsonNode root = tree(Events.accountPostCreate("7", "hi", "1", "2"));

    assertThat(root.get("for_user_id").asText()).isEqualTo("7");
    assertThat(root.get("post_create_events")).hasSize(2);
    assertThat(root.get("post_create_events").get(1).get("id_str").asText()).isEqualTo("2");
  }

  @Test
  void accountBatches_eachKind_namedArray() throws IOException {
    assertThat(
            tree(Events.accountPostDelete("7", "1"))
                .get("post_delete_events")
                .get(0)
                .get("status")
                .get("id")
                .asText())
        .isEqualTo("1");
    assertThat(
            tree(Events.accountFollow("7", "unfollow", "7", "8"))
                .get("follow_events")
                .get(0)
                .get("type")
                .asText())
        .isEqualTo("unfollow");
    JsonNode dm = tree(Events.accountDirectMessage("7", "m1", "7", "8", "hey"));
    assertThat(
            dm.get("direct_message_events").get(0).get("message_create").get("sender_id").asText())
        .isEqualTo("7");
    assertThat(dm.get("users").has("8")).isTrue();
    assertThat(
            tree(Events.accountActivity("7", "mute_events", List.of(Map.of("type", "mute"))))
                .get("mute_events"))
        .hasSize(1);
  }

  @Test
  void userRevoke_noForUserId() throws IOException {
    JsonNode root = tree(Events.userRevoke("7", "42"));

    assertThat(root.has("for_user_id")).isFalse();
    assertThat(root.get("user_event").get("revoke").get("source").get("user_id").asText())
        .isEqualTo("7");
  }

  @Test
  void replayJobStatus_fields() throws IOException {
    JsonNode status =
        tree(Events.replayJobStatus("1", "2", "Incomplete", "why")).get("replay_job_status");

    assertThat(status.get("webhook_id").asText()).isEqualTo("1");
    assertThat(status.get("job_id").asText()).isEqualTo("2");
    assertThat(status.get("job_state").asText()).isEqualTo("Incomplete");
    assertThat(status.get("job_state_description").asText()).isEqualTo("why");
  }

  @Test
  void sample_everyFamily_envelopeWithTypeUserAndFreshId() throws IOException {
    List<String> types =
        List.of(
            "post.create",
            "post.delete",
            "profile.update.bio",
            "follow.follow",
            "spaces.start",
            "dm.sent",
            "like.create",
            "news.new",
            "brand.new.type");
    java.util.Set<String> ids = new java.util.HashSet<>();
    for (String type : types) {
      JsonNode data = tree(Events.sample(type, "42")).get("data");
      assertThat(data.get("event_type").asText()).isEqualTo(type);
      assertThat(data.get("filter").get("user_id").asText()).isEqualTo("42");
      assertThat(data.get("payload").isObject()).isTrue();
      ids.add(data.get("event_uuid").asText());
    }
    assertThat(ids).hasSize(types.size());
    JsonNode revoke = tree(Events.sample("oauth.revoke", "42")).get("data");
    assertThat(revoke.get("filter").isEmpty()).isTrue();
    assertThat(revoke.get("payload").get("user_id").asText()).isEqualTo("42");
    assertThat(
            tree(Events.sample("dm.sent", "42"))
                .get("data")
                .get("filter")
                .get("direction")
                .asText())
        .isEqualTo("sent");
  }

  private static JsonNode tree(String json) throws IOException {
    return PlatformClient.MAPPER.readTree(json);
  }
}
