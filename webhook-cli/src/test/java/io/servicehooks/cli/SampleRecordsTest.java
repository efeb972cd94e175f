package io.servicehooks.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookEvent;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookResponse;
import io.servicehooks.core.payload.DirectMessage;
import io.servicehooks.core.payload.Followed;
import io.servicehooks.core.payload.LikeCreated;
import io.servicehooks.core.payload.OAuthRevoked;
import io.servicehooks.core.payload.PostCreated;
import io.servicehooks.core.payload.PostDeleted;
import io.servicehooks.core.payload.ProfileUpdated;
import io.servicehooks.core.payload.ReplayJobStatus;
import io.servicehooks.core.payload.SpaceEvent;
import io.servicehooks.core.payload.User;
import io.servicehooks.testkit.TestSigner;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The samples {@code servicehooks send} delivers ({@link SampleEvents}), for every event type of
 * the protocol, through the payload records of a real consumer with real signed bodies: each type
 * with a record reaches exactly that record with the event's type, its fields equal to the JSON
 * (read with Jackson's tree, not through the records); the others reach none.
 */
final class SampleRecordsTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final List<String> TYPES =
      List.of(
          "post.create",
          "post.delete",
          "post.mention.create",
          "post.reply.create",
          "post.quote.create",
          "post.repost.create",
          "spaces.start",
          "spaces.end",
          "dm.received",
          "dm.sent",
          "dm.read",
          "dm.indicate_typing",
          "profile.update.bio",
          "profile.update.verified",
          "profile.update.affiliate",
          "profile.update.screenname",
          "profile.update.profile_picture",
          "profile.update.banner_picture",
          "profile.update.geo",
          "profile.update.url",
          "profile.update.verified_badge",
          "profile.update.affiliate_badge",
          "profile.update.handle",
          "ProfileBioUpdate",
          "like.create",
          "follow.follow",
          "follow.unfollow",
          "block.block",
          "block.unblock",
          "mute.mute",
          "mute.unmute",
          "news.new",
          "broadcast.start",
          "broadcast.end",
          "broadcast.chat",
          "chat.received",
          "chat.sent",
          "chat.conversation.join",
          "oauth.revoke");

  private record Seen(WebhookEvent event, Object payload) {}

  @Test
  void everySample_reachesItsRecord_fieldsEqualTheJson() throws Exception {
    List<Seen> seen = new CopyOnWriteArrayList<>();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets("s")
            // the samples include the user's own post, deletion and sent message: read them all
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
    int typed = 0;
    for (String type : TYPES) {
      seen.clear();
      byte[] body = SampleEvents.build(type, Instant.parse("2026-11-24T21:00:00Z"));
      WebhookResponse answer =
          consumer.handle(WebhookRequest.post(TestSigner.sign("s", body), body)).join();
      assertThat(answer.status()).as(type + " " + failures).isEqualTo(200);
      JsonNode root = JSON.readTree(body);
      if (!hasRecord(root.at("/data/event_type").asText())) {
        assertThat(seen).as(type).isEmpty();
        continue;
      }
      typed++;
      assertThat(seen).as(type).hasSize(1);
      assertThat(seen.get(0).event().originalType()).isEqualTo(type);
      assertThat(seen.get(0).payload()).as(type).isEqualTo(Expected.fromEnvelope(root));
    }
    assertThat(typed).isEqualTo(30);
  }

  @Test
  void mentionSample_mentionsTheSubscribedUser_fromAnotherAuthor() throws Exception {
    byte[] body = SampleEvents.build("post.mention.create", Instant.now());
    JsonNode data = JSON.readTree(body).get("data");
    List<Seen> seen = new CopyOnWriteArrayList<>();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets("s")
            .onEvent(PostCreated.class, (e, p) -> seen.add(new Seen(e, p)))
            .build();

    consumer.handle(WebhookRequest.post(TestSigner.sign("s", body), body)).join();

    String forUser = data.at("/filter/user_id").asText();
    assertThat(data.at("/payload/author_id").asText()).isNotEqualTo(forUser);
    assertThat(data.at("/payload/entities/mentions/0/id").asText()).isEqualTo(forUser);
    PostCreated post = (PostCreated) seen.get(0).payload();
    assertThat(seen.get(0).event().type()).isEqualTo("post.mention.create");
    assertThat(post.isMentionOf(forUser)).isTrue();
    assertThat(post.authorUsername()).isEqualTo("another_account");
  }

  private static boolean hasRecord(String type) {
    return type.startsWith("post.")
        || type.startsWith("profile.update.")
        || type.startsWith("Profile")
        || type.matches("(follow|block|mute)\\..*")
        || type.startsWith("spaces.")
        || type.equals("dm.received")
        || type.equals("dm.sent")
        || type.equals("like.create")
        || type.equals("oauth.revoke");
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
