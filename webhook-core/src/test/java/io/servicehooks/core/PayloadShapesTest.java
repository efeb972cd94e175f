package io.servicehooks.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.core.payload.DirectMessage;
import io.servicehooks.core.payload.Followed;
import io.servicehooks.core.payload.LikeCreated;
import io.servicehooks.core.payload.MissingPayloadFieldException;
import io.servicehooks.core.payload.OAuthRevoked;
import io.servicehooks.core.payload.PostCreated;
import io.servicehooks.core.payload.PostDeleted;
import io.servicehooks.core.payload.ProfileUpdated;
import io.servicehooks.core.payload.ReplayJobStatus;
import io.servicehooks.core.payload.SpaceEvent;
import io.servicehooks.core.payload.User;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.TestSigner;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Every shape an event type arrives in, through its payload record over a real consumer with real
 * signed bodies: the simulator's samples (what {@code servicehooks trigger} delivers), the
 * testkit's envelopes and the legacy account-activity items. The expected values are read from the
 * body with Jackson's tree, not through the records.
 */
final class PayloadShapesTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String USER = "2244994945";

  /** What one typed listener saw. */
  private record Seen(WebhookEvent event, Object payload) {}

  private final List<Seen> seen = new CopyOnWriteArrayList<>();
  private final List<Throwable> failures = new CopyOnWriteArrayList<>();

  private WebhookConsumer consumer() {
    return WebhookConsumer.builder()
        .consumerSecrets("s")
        // the records are read from the user's own posts and messages too
        .ignoreOwnEvents(false)
        .onError((event, failure) -> failures.add(failure))
        .onEvent(PostCreated.class, (e, p) -> seen.add(new Seen(e, p)))
        .onEvent(PostDeleted.class, (e, p) -> seen.add(new Seen(e, p)))
        .onEvent(ProfileUpdated.class, (e, p) -> seen.add(new Seen(e, p)))
        .onEvent(Followed.class, (e, p) -> seen.add(new Seen(e, p)))
        .onEvent(LikeCreated.class, (e, p) -> seen.add(new Seen(e, p)))
        .onEvent(SpaceEvent.class, (e, p) -> seen.add(new Seen(e, p)))
        .onEvent(DirectMessage.class, (e, p) -> seen.add(new Seen(e, p)))
        .onEvent(OAuthRevoked.class, (e, p) -> seen.add(new Seen(e, p)))
        .onEvent(ReplayJobStatus.class, (e, p) -> seen.add(new Seen(e, p)))
        .build();
  }

  private WebhookResponse deliver(String body) {
    seen.clear();
    failures.clear();
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    return consumer().handle(WebhookRequest.post(TestSigner.sign("s", bytes), bytes)).join();
  }

  private Seen deliverOne(String body) {
    WebhookResponse answer = deliver(body);
    assertThat(answer.status()).as(body + " " + failures).isEqualTo(200);
    assertThat(seen).as(body).hasSize(1);
    return seen.get(0);
  }

  @Test
  void simulatorSamples_everyTypeWithARecord_fieldsEqualTheJson() throws Exception {
    for (String type :
        List.of(
            "post.create",
            "post.mention.create",
            "post.reply.create",
            "post.quote.create",
            "post.repost.create",
            "post.delete",
            "profile.update.bio",
            "follow.follow",
            "follow.unfollow",
            "block.block",
            "mute.mute",
            "spaces.start",
            "spaces.end",
            "dm.received",
            "dm.sent",
            "like.create",
            "oauth.revoke")) {
      String body = Events.sample(type, USER);
      Seen one = deliverOne(body);
      assertThat(one.event().type()).isEqualTo(type);
      assertThat(one.payload()).as(body).isEqualTo(Expected.fromEnvelope(JSON.readTree(body)));
    }
  }

  @Test
  void simulatorSamples_typesWithoutARecord_reachNoTypedListener() {
    for (String type : List.of("dm.read", "dm.indicate_typing", "news.new", "brand.new.type")) {
      WebhookResponse answer = deliver(Events.sample(type, USER));
      assertThat(answer.status()).isEqualTo(200);
      assertThat(seen).as(type).isEmpty();
    }
  }

  @Test
  void triggerDmReceived_payloadAs_hasSenderRecipientAndText() throws Exception {
    List<WebhookEvent> events = new CopyOnWriteArrayList<>();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets("s")
            .ignoreOwnEvents(false)
            .on("dm.*", events::add)
            .build();
    String body = Events.sample("dm.received", USER);
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);

    WebhookResponse answer =
        consumer.handle(WebhookRequest.post(TestSigner.sign("s", bytes), bytes)).join();

    assertThat(answer.status()).isEqualTo(200);
    JsonNode message = JSON.readTree(body).at("/data/payload/direct_message_events/0");
    DirectMessage dm = events.get(0).payloadAs(DirectMessage.class);
    assertThat(dm.senderId()).isEqualTo(message.get("sender_id").asText()).isNotEqualTo(USER);
    assertThat(dm.recipientId()).isEqualTo(USER);
    assertThat(dm.text()).isEqualTo(message.get("text").asText());
    assertThat(dm.id()).isEqualTo(message.get("id").asText());
  }

  @Test
  void mentionSample_typedListenerSeesTheType_andTellsTheMentionApartInOneCall() throws Exception {
    String body = Events.sample("post.mention.create", USER);

    Seen one = deliverOne(body);

    assertThat(one.event().type()).isEqualTo("post.mention.create");
    assertThat(one.event().forUserId()).contains(USER);
    PostCreated post = (PostCreated) one.payload();
    assertThat(post.isMentionOf(USER)).isTrue();
    assertThat(post.authorId()).isNotEqualTo(USER);
    assertThat(post.authorUsername())
        .isNotNull()
        .isEqualTo(JSON.readTree(body).at("/data/includes/users/1/username").asText());
    assertThat(post.mentions()).extracting(User::username).containsExactly("hooks_demo");

    Seen own = deliverOne(Events.sample("post.create", USER));
    assertThat(own.event().type()).isEqualTo("post.create");
    assertThat(((PostCreated) own.payload()).isMentionOf(USER)).isFalse();
  }

  @Test
  void testkitEnvelopes_fieldsEqualTheJson() throws Exception {
    for (String body :
        List.of(
            Events.postCreate(USER, "190", "hello"),
            Events.postDelete(USER, "190"),
            Events.profileUpdate("ProfileBioUpdate", USER, "old", "new"),
            Events.oauthRevoke(USER, "29123456"))) {
      assertThat(deliverOne(body).payload())
          .as(body)
          .isEqualTo(Expected.fromEnvelope(JSON.readTree(body)));
    }
  }

  @Test
  void legacyItems_fieldsEqualTheJson() throws Exception {
    String post =
        Events.accountActivity(
            USER,
            "post_create_events",
            List.of(
                Map.of(
                    "id_str", "191",
                    "text", "@hooks_demo hi",
                    "created_at", "Wed Oct 10 20:19:24 +0000 2018",
                    "in_reply_to_status_id_str", "180",
                    "in_reply_to_user_id_str", USER,
                    "user", Map.of("id_str", "783214", "screen_name", "another_account"),
                    "entities",
                        Map.of(
                            "user_mentions",
                            List.of(
                                Map.of(
                                    "id_str", USER,
                                    "screen_name", "hooks_demo",
                                    "name", "Demo"))))));
    JsonNode item = JSON.readTree(post).at("/post_create_events/0");
    assertThat(deliverOne(post).payload())
        .isEqualTo(
            new PostCreated(
                item.get("id_str").asText(),
                item.get("text").asText(),
                item.at("/user/id_str").asText(),
                item.get("created_at").asText(),
                item.at("/user/screen_name").asText(),
                null,
                item.get("in_reply_to_status_id_str").asText(),
                item.get("in_reply_to_user_id_str").asText(),
                List.of(new User(USER, "hooks_demo", "Demo"))));

    String plainPost = Events.accountPostCreate(USER, "legacy", "192");
    JsonNode plain = JSON.readTree(plainPost).at("/post_create_events/0");
    assertThat(deliverOne(plainPost).payload())
        .isEqualTo(
            new PostCreated(
                "192",
                "legacy",
                USER,
                Instant.ofEpochMilli(plain.get("timestamp_ms").asLong()).toString()));

    String dm = Events.accountDirectMessage(USER, "m1", "783214", USER, "hi");
    JsonNode message = JSON.readTree(dm).at("/direct_message_events/0");
    Seen seenDm = deliverOne(dm);
    assertThat(seenDm.event().type()).isEqualTo("dm.received");
    assertThat(seenDm.payload())
        .isEqualTo(
            new DirectMessage(
                message.get("id").asText(),
                message.at("/message_create/sender_id").asText(),
                message.at("/message_create/target/recipient_id").asText(),
                message.at("/message_create/message_data/text").asText(),
                message.get("created_timestamp").asText()));

    assertThat(deliverOne(Events.accountPostDelete(USER, "191")).payload())
        .isEqualTo(new PostDeleted("191", USER));
    assertThat(deliverOne(Events.accountFavorite(USER, "fav-1", "191")).payload())
        .isInstanceOfSatisfying(
            LikeCreated.class,
            l -> {
              assertThat(l.id()).isEqualTo("fav-1");
              assertThat(l.likedPostId()).isEqualTo("191");
            });
    assertThat(deliverOne(Events.accountFollow(USER, "unfollow", USER, "783214")).payload())
        .isEqualTo(new Followed(new User(USER, null, null), new User("783214", null, null)));
    JsonNode revoke = JSON.readTree(Events.userRevoke(USER, "29123456")).at("/user_event/revoke");
    assertThat(deliverOne(Events.userRevoke(USER, "29123456")).payload())
        .isInstanceOfSatisfying(
            OAuthRevoked.class,
            r -> {
              assertThat(r.userId()).isEqualTo(revoke.at("/source/user_id").asText());
              assertThat(r.appId()).isEqualTo(revoke.at("/target/app_id").asText());
            });
    assertThat(deliverOne(Events.replayJobStatus("w1", "j1", "Complete", "done")).payload())
        .isEqualTo(new ReplayJobStatus("w1", "Complete", "done", "j1"));
  }

  @Test
  void requiredFieldMissing_listenerFailsNamingRecordAndField_noNulls() {
    String body =
        Events.activity(
            "dm.received",
            USER,
            Map.of(
                "direct_message_events",
                List.of(Map.of("id", "5", "event_type", "MessageCreate", "text", "hi"))));

    WebhookResponse answer = deliver(body);

    assertThat(answer.status()).isEqualTo(500);
    assertThat(seen).isEmpty();
    assertThat(failures)
        .singleElement()
        .isInstanceOfSatisfying(
            MissingPayloadFieldException.class,
            m -> {
              assertThat(m.record()).isEqualTo("DirectMessage");
              assertThat(m.field()).isEqualTo("senderId");
              assertThat(m.getMessage())
                  .contains("dm.received")
                  .contains("DirectMessage")
                  .contains("senderId")
                  .contains("sender_id");
            });

    WebhookResponse noText =
        deliver(Events.activity("post.mention.create", USER, Map.of("id", "1", "author_id", "2")));
    assertThat(noText.status()).isEqualTo(500);
    assertThat(failures)
        .singleElement()
        .isInstanceOfSatisfying(
            MissingPayloadFieldException.class,
            m -> assertThat(m.getMessage()).contains("PostCreated needs text"));
  }

  /** The record a body should give, read from its JSON tree. */
  static final class Expected {

    private Expected() {}

    static Object fromEnvelope(JsonNode root) {
      JsonNode data = root.get("data");
      String type = data.get("event_type").asText();
      JsonNode p = data.get("payload");
      if (type.equals("post.delete")) {
        return new PostDeleted(t(p, "/id"), t(p, "/author_id"));
      }
      if (type.startsWith("post.")) {
        String author = t(p, "/author_id");
        String username = null;
        for (JsonNode user : data.at("/includes/users")) {
          if (user.get("id").asText().equals(author)) {
            username = user.get("username").asText();
          }
        }
        String repliedTo = null;
        for (JsonNode ref : p.path("referenced_posts")) {
          if (ref.get("type").asText().equals("replied_to")) {
            repliedTo = ref.get("id").asText();
          }
        }
        List<User> mentions = new ArrayList<>();
        for (JsonNode m : p.at("/entities/mentions")) {
          mentions.add(new User(t(m, "/id"), t(m, "/username"), null));
        }
        return new PostCreated(
            t(p, "/id"),
            t(p, "/text"),
            author,
            t(p, "/created_at"),
            username,
            t(p, "/conversation_id"),
            repliedTo,
            t(p, "/in_reply_to_user_id"),
            mentions);
      }
      if (type.startsWith("profile.") || type.startsWith("Profile")) {
        return new ProfileUpdated(t(p, "/before"), t(p, "/after"));
      }
      if (type.matches("(follow|block|mute)\\..*")) {
        return new Followed(user(p.at("/source/data")), user(p.at("/target/data")));
      }
      if (type.startsWith("spaces.")) {
        return new SpaceEvent(user(p.get("user")), t(p, "/broadcast_id"));
      }
      if (type.startsWith("dm.")) {
        JsonNode m = p.at("/direct_message_events/0");
        String sender = t(m, "/sender_id");
        String recipient = null;
        for (Iterator<String> ids = p.get("users").fieldNames(); ids.hasNext(); ) {
          String id = ids.next();
          if (!id.equals(sender)) {
            recipient = id;
          }
        }
        return new DirectMessage(
            t(m, "/id"),
            sender,
            recipient,
            t(m, "/text"),
            Long.toString(Instant.parse(t(m, "/created_at")).toEpochMilli()),
            t(m, "/dm_conversation_id"));
      }
      if (type.equals("like.create")) {
        return new LikeCreated(
            t(p, "/id"),
            t(p, "/liked_post_id"),
            t(p, "/liked_post_author_id"),
            t(p, "/created_at"));
      }
      if (type.equals("oauth.revoke")) {
        return new OAuthRevoked(t(p, "/date_time"), t(p, "/user_id"), t(p, "/app_id"));
      }
      throw new AssertionError("no record for " + type);
    }

    private static User user(JsonNode node) {
      return new User(t(node, "/id"), t(node, "/username"), t(node, "/name"));
    }

    private static String t(JsonNode node, String pointer) {
      JsonNode value = node.at(pointer);
      return value.isMissingNode() || value.isNull() ? null : value.asText();
    }
  }
}
