package io.servicehooks.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.TestSigner;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The payload records, filled from the bodies the testkit's platform simulator delivers ({@link
 * Events}: both families of docs/protocol.md#payload-families), through {@code on(Record.class,
 * ...)}; unknown fields ignored, the raw JSON still there.
 */
final class TypedPayloadsTest {

  private final List<Object> seen = new CopyOnWriteArrayList<>();

  private WebhookConsumer consumer() {
    return WebhookConsumer.builder()
        .consumerSecrets("s")
        // the records are read from the user's own posts and messages too
        .ignoreOwnEvents(false)
        .on(PostCreated.class, seen::add)
        .on(PostDeleted.class, seen::add)
        .on(ProfileUpdated.class, seen::add)
        .on(Followed.class, seen::add)
        .on(LikeCreated.class, seen::add)
        .on(SpaceEvent.class, seen::add)
        .on(DirectMessage.class, seen::add)
        .on(OAuthRevoked.class, seen::add)
        .on(ReplayJobStatus.class, seen::add)
        .build();
  }

  private Object deliver(String body) {
    seen.clear();
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    WebhookResponse answer =
        consumer().handle(WebhookRequest.post(TestSigner.sign("s", bytes), bytes)).join();
    assertThat(answer.status()).as(answer.bodyAsString()).isEqualTo(200);
    assertThat(seen).as(body).hasSize(1);
    return seen.get(0);
  }

  @Test
  void envelopes_eachFamily_mapsToItsRecord() {
    assertThat(deliver(Events.postCreate("2244994945", "190", "hello")))
        .isInstanceOfSatisfying(
            PostCreated.class,
            p -> {
              assertThat(p.id()).isEqualTo("190");
              assertThat(p.text()).isEqualTo("hello");
              assertThat(p.authorId()).isEqualTo("2244994945");
              assertThat(p.createdAt()).isNotBlank();
            });
    assertThat(deliver(Events.postDelete("2244994945", "190")))
        .isEqualTo(new PostDeleted("190", "2244994945"));
    assertThat(deliver(Events.profileUpdate("ProfileBioUpdate", "2244994945", "old", "new")))
        .isEqualTo(new ProfileUpdated("old", "new"));
    assertThat(deliver(Events.oauthRevoke("2244994945", "29123456")))
        .isInstanceOfSatisfying(
            OAuthRevoked.class,
            r -> {
              assertThat(r.userId()).isEqualTo("2244994945");
              assertThat(r.appId()).isEqualTo("29123456");
            });
    assertThat(
            deliver(
                Events.activity(
                    "follow.follow",
                    "1",
                    Map.of(
                        "source", Map.of("data", Map.of("id", "1", "username", "a")),
                        "target", Map.of("data", Map.of("id", "2", "username", "b"))))))
        .isEqualTo(new Followed(new User("1", "a", null), new User("2", "b", null)));
    assertThat(
            deliver(
                Events.activity(
                    "like.create",
                    "1",
                    Map.of(
                        "id", "9",
                        "liked_post_id", "190",
                        "liked_post_author_id", "1",
                        "created_at", "2026-11-24T21:00:00Z",
                        "a_field_added_later", Map.of("x", 1)))))
        .isEqualTo(new LikeCreated("9", "190", "1", "2026-11-24T21:00:00Z"));
    assertThat(
            deliver(
                Events.activity(
                    "spaces.start",
                    "1",
                    Map.of("user", Map.of("id", "1", "username", "a"), "broadcast_id", "77"))))
        .isEqualTo(new SpaceEvent(new User("1", "a", null), "77"));
  }

  @Test
  void legacyBatches_eachKind_mapsToTheSameRecords() {
    assertThat(deliver(Events.accountPostCreate("2244994945", "legacy", "191")))
        .isInstanceOfSatisfying(
            PostCreated.class,
            p -> {
              assertThat(p.id()).isEqualTo("191");
              assertThat(p.text()).isEqualTo("legacy");
            });
    assertThat(deliver(Events.accountPostDelete("2244994945", "191")))
        .isInstanceOfSatisfying(PostDeleted.class, d -> assertThat(d.id()).isEqualTo("191"));
    assertThat(deliver(Events.accountFavorite("2244994945", "fav-1", "191")))
        .isInstanceOfSatisfying(
            LikeCreated.class,
            l -> {
              assertThat(l.id()).isEqualTo("fav-1");
              assertThat(l.likedPostId()).isEqualTo("191");
            });
    assertThat(deliver(Events.accountFollow("2244994945", "follow", "783214", "2244994945")))
        .isEqualTo(
            new Followed(new User("783214", null, null), new User("2244994945", null, null)));
    assertThat(
            deliver(Events.accountDirectMessage("2244994945", "m1", "783214", "2244994945", "hi")))
        .isInstanceOfSatisfying(
            DirectMessage.class,
            m -> {
              assertThat(m.id()).isEqualTo("m1");
              assertThat(m.senderId()).isEqualTo("783214");
              assertThat(m.recipientId()).isEqualTo("2244994945");
              assertThat(m.text()).isEqualTo("hi");
            });
    assertThat(deliver(Events.userRevoke("2244994945", "29123456")))
        .isInstanceOfSatisfying(
            OAuthRevoked.class,
            r -> {
              assertThat(r.userId()).isEqualTo("2244994945");
              assertThat(r.appId()).isEqualTo("29123456");
            });
    assertThat(deliver(Events.replayJobStatus("w1", "j1", "Complete", "done")))
        .isEqualTo(new ReplayJobStatus("w1", "Complete", "done", "j1"));
  }

  @Test
  void payloadAs_rawJsonStaysAvailable() {
    List<WebhookEvent> events = new CopyOnWriteArrayList<>();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets("s")
            .ignoreOwnEvents(false)
            .onAny(events::add)
            .build();
    byte[] body = Events.postCreate("1", "190", "hi").getBytes(StandardCharsets.UTF_8);
    consumer.handle(WebhookRequest.post(TestSigner.sign("s", body), body)).join();

    WebhookEvent event = events.get(0);
    assertThat(event.payloadAs(PostCreated.class).text()).isEqualTo("hi");
    assertThat(event.payload().path("text").asText()).isEqualTo("hi");
  }

  @Test
  void on_classThatIsNoPayloadRecord_refusedNamingIt() {
    assertThatThrownBy(() -> WebhookConsumer.builder().on(String.class, s -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("java.lang.String is not a payload record");
  }
}
