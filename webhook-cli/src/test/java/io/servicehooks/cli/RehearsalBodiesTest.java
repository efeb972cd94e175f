package io.servicehooks.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookResponse;
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
 * gives the event type the page says, in the page's order.
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
    WebhookConsumer consumer =
        WebhookConsumer.builder().consumerSecrets("s").onAny(e -> types.add(e.type())).build();

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
            "oauth.revoke",
            "post.create",
            "like.create",
            "follow.follow",
            "dm.received",
            "oauth.revoke",
            "replay.job_status");
  }
}
