package io.servicehooks.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.core.WebhookConsumer;
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
import io.servicehooks.testkit.TestSigner;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every body docs/send-bodies.md shows for {@code send --body} is accepted by a real consumer and
 * gives the event type the page says, in the page's order, and fills its payload record.
 */
final class RehearsalBodiesTest {

  private static final Pattern JSON_BLOCK =
      Pattern.compile("```json\\n(.*?)\\n```", Pattern.DOTALL);

  @Test
  void rehearsalPage_everyBody_acceptedWithItsFamilysType() throws Exception {
    String page = Files.readString(Path.of("..", "docs", "send-bodies.md"));
    List<String> bodies = new ArrayList<>();
    Matcher m = JSON_BLOCK.matcher(page);
    while (m.find()) {
      bodies.add(m.group(1).strip());
    }
    List<String> types = new CopyOnWriteArrayList<>();
    List<Object> records = new CopyOnWriteArrayList<>();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets("s")
            // the page's bodies include the user's own post and deletion: read them all
            .ignoreOwnEvents(false)
            .onAny(e -> types.add(e.type()))
            .on(PostCreated.class, records::add)
            .on(PostDeleted.class, records::add)
            .on(ProfileUpdated.class, records::add)
            .on(Followed.class, records::add)
            .on(LikeCreated.class, records::add)
            .on(SpaceEvent.class, records::add)
            .on(DirectMessage.class, records::add)
            .on(OAuthRevoked.class, records::add)
            .on(ReplayJobStatus.class, records::add)
            .build();

    for (String body : bodies) {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      WebhookResponse answer =
          consumer.handle(WebhookRequest.post(TestSigner.sign("s", bytes), bytes)).join();
      assertThat(answer.status()).as(body).isEqualTo(200);
      assertThat(answer.bodyAsString()).as(body).contains("\"status\":\"accepted\"");
    }

    assertThat(types)
        .containsExactly(
            "post.create",
            "post.delete",
            "profile.update.bio",
            "follow.follow",
            "like.create",
            "spaces.start",
            "dm.received",
            "dm.received",
            "oauth.revoke",
            "post.create",
            "like.create",
            "follow.follow",
            "dm.received",
            "oauth.revoke",
            "replay.job_status");
    // every body fills its record (a missing required field would have answered 500)
    assertThat(records).hasSameSizeAs(bodies);
    assertThat(records)
        .filteredOn(DirectMessage.class::isInstance)
        .hasSize(3)
        .allSatisfy(
            r -> {
              DirectMessage dm = (DirectMessage) r;
              assertThat(dm.senderId()).isEqualTo("783214");
              assertThat(dm.recipientId()).isEqualTo("2244994945");
              assertThat(dm.text()).isEqualTo("hi");
            });
  }
}
