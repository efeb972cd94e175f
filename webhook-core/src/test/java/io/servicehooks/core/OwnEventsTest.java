package io.servicehooks.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.TestSigner;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A consumer runs no listener for an event its subscribed user caused itself (its own posts, its
 * own reply that mentions it, its own sent messages), in each payload family and each
 * acknowledgement mode, over real signed bodies; the event still ends as a handled one.
 */
final class OwnEventsTest {

  private static final String SECRET = "own-events-secret";
  private static final String USER = "2244994945";
  private static final String OTHER = "783214";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final List<WebhookEvent> ran = new CopyOnWriteArrayList<>();
  private final List<Throwable> failures = new CopyOnWriteArrayList<>();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private WebhookConsumer.Builder builder() {
    return WebhookConsumer.builder()
        .consumerSecrets(SECRET)
        .meterRegistry(registry)
        .onError((event, failure) -> failures.add(failure))
        .on("*", ran::add);
  }

  private static WebhookResponse deliver(WebhookConsumer consumer, String body) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    return consumer.handle(WebhookRequest.post(TestSigner.sign(SECRET, bytes), bytes)).join();
  }

  private double own(String type) {
    var counter = registry.find("webhook.events").tags("type", type, "outcome", "own").counter();
    return counter == null ? 0 : counter.count();
  }

  /** A reply by the subscribed user to another's post that mentions the subscribed user. */
  private static String ownReplyMentioningItself() {
    ObjectNode root = JSON.createObjectNode();
    ObjectNode data = root.putObject("data");
    data.put("event_uuid", "1811111111111111111");
    data.put("event_type", "post.reply.create");
    data.putObject("filter").put("user_id", USER);
    ObjectNode post = data.putObject("payload");
    post.put("id", "1900000000000000001")
        .put("text", "@hooks_demo thanks!")
        .put("author_id", USER)
        .put("in_reply_to_user_id", OTHER);
    post.putArray("referenced_posts")
        .addObject()
        .put("type", "replied_to")
        .put("id", "1877000000000000000");
    post.putObject("entities")
        .putArray("mentions")
        .addObject()
        .put("id", USER)
        .put("username", "hooks_demo");
    return root.toString();
  }

  private static String legacyOwnPost() {
    return Events.accountActivity(
        USER,
        "post_create_events",
        List.of(
            Map.of(
                "id_str", "191",
                "text", "my own post",
                "user", Map.of("id_str", USER, "screen_name", "hooks_demo"))));
  }

  private static String legacyDm(String sender, String recipient) {
    return Events.accountActivity(
        USER,
        "direct_message_events",
        List.of(
            Map.of(
                "type",
                "message_create",
                "id",
                "9" + sender,
                "created_timestamp",
                "1700000000000",
                "message_create",
                Map.of(
                    "sender_id", sender,
                    "target", Map.of("recipient_id", recipient),
                    "message_data", Map.of("text", "hi")))));
  }

  @Test
  void ownEvents_eachShape_runNoListener_answer200_countedAsOwn() {
    WebhookConsumer consumer = builder().build();
    Map<String, String> ownBodies =
        Map.of(
            "envelope post.create", Events.sample("post.create", USER),
            "legacy post_create_events", legacyOwnPost(),
            "own reply that mentions itself", ownReplyMentioningItself(),
            "envelope dm.sent", Events.sample("dm.sent", USER),
            "legacy direct_message_events sent", legacyDm(USER, OTHER));

    for (Map.Entry<String, String> own : ownBodies.entrySet()) {
      WebhookResponse answer = deliver(consumer, own.getValue());
      assertThat(answer.status()).as(own.getKey()).isEqualTo(200);
    }

    assertThat(ran).isEmpty();
    assertThat(failures).isEmpty();
    assertThat(own("post.create")).isEqualTo(2);
    assertThat(own("post.reply.create")).isEqualTo(1);
    assertThat(own("dm.sent")).isEqualTo(2);
    assertThat(registry.find("webhook.events").tags("outcome", "failed").counter()).isNull();
  }

  @Test
  void othersEvents_run() {
    WebhookConsumer consumer = builder().build();
    List<String> bodies =
        List.of(
            Events.sample("dm.received", USER),
            legacyDm(OTHER, USER),
            Events.sample("post.mention.create", USER),
            Events.sample("post.reply.create", USER),
            Events.accountActivity(
                USER,
                "post_create_events",
                List.of(Map.of("id_str", "192", "text", "hi", "user", Map.of("id_str", OTHER)))));

    for (String body : bodies) {
      assertThat(deliver(consumer, body).status()).isEqualTo(200);
    }

    assertThat(ran)
        .extracting(WebhookEvent::type)
        .containsExactly(
            "dm.received",
            "dm.received",
            "post.mention.create",
            "post.reply.create",
            "post.create");
    assertThat(registry.find("webhook.events").tags("outcome", "own").counter()).isNull();
  }

  @Test
  void eventWithoutForUserId_runs() {
    WebhookConsumer consumer = builder().build();
    String noFilter =
        "{\"data\":{\"event_uuid\":\"77\",\"event_type\":\"post.create\","
            + "\"payload\":{\"id\":\"1\",\"text\":\"t\",\"author_id\":\""
            + USER
            + "\"}}}";

    assertThat(deliver(consumer, noFilter).status()).isEqualTo(200);

    assertThat(ran).extracting(WebhookEvent::id).containsExactly("77");
  }

  @Test
  void ignoreOwnEventsOff_ownEventsRun() {
    WebhookConsumer consumer = builder().ignoreOwnEvents(false).build();

    deliver(consumer, Events.sample("post.create", USER));
    deliver(consumer, ownReplyMentioningItself());
    deliver(consumer, Events.sample("dm.sent", USER));
    deliver(consumer, legacyOwnPost());

    assertThat(ran)
        .extracting(WebhookEvent::type)
        .containsExactly("post.create", "post.reply.create", "dm.sent", "post.create");
  }

  @Test
  void ownEvent_isMarkedDone_aCopyIsADuplicateNotARun() {
    WebhookConsumer consumer = builder().build();
    String body = Events.sample("post.create", USER);

    deliver(consumer, body);
    WebhookResponse copy = deliver(consumer, body);

    assertThat(copy.status()).isEqualTo(200);
    assertThat(new String(copy.body(), StandardCharsets.UTF_8)).contains("\"duplicates\":1");
    assertThat(ran).isEmpty();
    assertThat(own("post.create")).isEqualTo(1);
  }

  @Test
  void asynchronousMode_ownEventRunsNoListener_othersDo() {
    WebhookConsumer consumer = builder().acknowledgement(Acknowledgement.ASYNCHRONOUS).build();
    try {
      deliver(consumer, Events.sample("post.create", USER));
      deliver(consumer, Events.sample("post.mention.create", USER));

      Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> ran.size() == 1);
      Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> own("post.create") == 1);
      assertThat(ran).extracting(WebhookEvent::type).containsExactly("post.mention.create");
    } finally {
      consumer.close();
    }
  }

  @Test
  void durableMode_storedOwnEvent_processedWithoutListener_endsDone() throws Exception {
    DurableAcknowledgementTest.MapInbox inbox = new DurableAcknowledgementTest.MapInbox();
    WebhookConsumer consumer = builder().inbox(inbox).build();
    String own = Events.sample("dm.sent", USER);
    String theirs = Events.sample("dm.received", USER);

    deliver(consumer, own);
    deliver(consumer, theirs);
    for (StoredEvent stored : inbox.rows.values()) {
      inbox.processor.process(stored); // returns normally: the inbox marks it done
    }

    assertThat(ran).extracting(WebhookEvent::type).containsExactly("dm.received");
    assertThat(own("dm.sent")).isEqualTo(1);
  }
}
