package io.servicehooks.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookEvent;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookResponse;
import io.servicehooks.core.payload.DirectMessage;
import io.servicehooks.core.payload.PostCreated;
import io.servicehooks.testkit.ConsumerStub;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testkit.SimulatedUserToken;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the simulator delivers for a post and a direct message made with {@code servicehooks posts
 * create} and {@code dm send}, read by the core's payload records: the fields equal the JSON as
 * delivered (read with Jackson's tree), and the subscribed user is the event's {@code forUserId}.
 */
final class SimulatorRecordsTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BOT = "1500000001";
  private static final String ALICE = "1500000002";

  private record Seen(WebhookEvent event, Object payload) {}

  private final PlatformSimulator platform =
      PlatformSimulator.builder().localMode(true).build().start();

  @AfterEach
  void stop() {
    platform.close();
  }

  @Test
  void replyWithMentionAndDm_fromTheCli_readByTheRecords() throws Exception {
    platform.addUser(BOT, "reply_bot", "Reply Bot");
    platform.addUser(ALICE, "alice", "Alice");
    SimulatedUserToken bot = platform.signIn(BOT);
    Map<String, String> env =
        new HashMap<>(
            Map.of(
                "SERVICE_API_BASE_URL", platform.baseUrl().toString(),
                "SERVICE_API_KEY", platform.apiKey(),
                "SERVICE_API_SECRET", platform.apiSecret(),
                "SERVICE_USER_TOKEN", bot.token(),
                "SERVICE_USER_TOKEN_SECRET", bot.tokenSecret(),
                "HOME", "/nonexistent"));
    try (ConsumerStub stub = ConsumerStub.start(platform.consumerSecret())) {
      Cli.Run created = Cli.run(env, "webhooks", "create", stub.url(), "--allow-insecure-url");
      assertThat(created.exitCode()).as(created.toString()).isZero();
      String webhook = platform.webhookIds().get(0);
      platform.subscribe("post.mention.create", ALICE, webhook);
      platform.subscribe("dm.received", ALICE, webhook);
      String question = platform.addPost(ALICE, "anyone there?");

      Cli.Run reply =
          Cli.run(
              env,
              "posts",
              "create",
              "--text",
              "@alice thanks!",
              "--reply-to",
              question,
              "--as-user");
      Cli.Run dm = Cli.run(env, "dm", "send", "--to", ALICE, "--text", "got it", "--as-user");

      assertThat(reply.exitCode()).as(reply.toString()).isZero();
      assertThat(dm.exitCode()).as(dm.toString()).isZero();
      await().atMost(Duration.ofSeconds(10)).until(() -> stub.deliveries().size() == 2);
      List<Seen> seen = new CopyOnWriteArrayList<>();
      WebhookConsumer consumer =
          WebhookConsumer.builder()
              .consumerSecrets(platform.consumerSecret())
              .onEvent(PostCreated.class, (e, p) -> seen.add(new Seen(e, p)))
              .onEvent(DirectMessage.class, (e, p) -> seen.add(new Seen(e, p)))
              .build();
      for (ConsumerStub.Delivery delivery : stub.deliveries()) {
        WebhookResponse answer =
            consumer.handle(WebhookRequest.post(delivery.signature(), delivery.body())).join();
        assertThat(answer.status()).isEqualTo(200);
      }

      assertThat(seen).hasSize(2);
      for (Seen one : seen) {
        assertThat(one.event().forUserId()).contains(ALICE);
        JsonNode data = JSON.readTree(deliveryOf(stub, one.event().type())).get("data");
        if (one.payload() instanceof PostCreated post) {
          assertThat(one.event().type()).isEqualTo("post.mention.create");
          assertThat(post)
              .isEqualTo(
                  SampleRecordsTest.Expected.fromEnvelope(
                      JSON.readTree(deliveryOf(stub, one.event().type()))));
          assertThat(post.id()).isEqualTo(reply.out().strip());
          assertThat(post.authorUsername()).isEqualTo("reply_bot");
          assertThat(post.inReplyToPostId()).isEqualTo(question);
          assertThat(post.inReplyToUserId()).isEqualTo(ALICE);
          assertThat(post.conversationId()).isEqualTo(question);
          assertThat(post.isMentionOf(ALICE)).isTrue();
        } else {
          DirectMessage message = (DirectMessage) one.payload();
          assertThat(one.event().type()).isEqualTo("dm.received");
          JsonNode event = data.at("/payload/direct_message_events/0");
          assertThat(message.id()).isEqualTo(event.get("id").asText());
          assertThat(message.senderId()).isEqualTo(BOT);
          assertThat(message.recipientId()).isEqualTo(ALICE);
          assertThat(message.text()).isEqualTo("got it");
          assertThat(message.conversationId()).isEqualTo(BOT + "-" + ALICE);
        }
      }
    }
  }

  private static String deliveryOf(ConsumerStub stub, String type) throws Exception {
    for (ConsumerStub.Delivery delivery : stub.deliveries()) {
      if (JSON.readTree(delivery.bodyText()).at("/data/event_type").asText().equals(type)) {
        return delivery.bodyText();
      }
    }
    throw new AssertionError("no " + type + " delivered");
  }
}
