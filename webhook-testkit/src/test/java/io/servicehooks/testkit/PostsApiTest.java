package io.servicehooks.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The bot's side of the simulated platform over real HTTP: the post lookup with its field rules,
 * creating posts and direct messages in user context, the events they cause, and the refusals.
 */
final class PostsApiTest {

  private static final Instant NOW = Instant.parse("2026-03-20T12:00:00Z");
  private static final String BOT = "1500000001";
  private static final String ALICE = "1500000002";
  private static final String CAROL = "1500000003";

  private final PlatformSimulator simulator =
      PlatformSimulator.builder()
          .localMode(true)
          .clock(Clock.fixed(NOW, ZoneOffset.UTC))
          .build()
          .start();
  private final PlatformClient client = new PlatformClient(simulator);
  private final List<AutoCloseable> closing = new ArrayList<>();

  PostsApiTest() {
    simulator.addUser(BOT, "reply_bot", "Reply Bot");
    simulator.addUser(ALICE, "alice", "Alice");
    simulator.addUser(CAROL, "carol", "Carol");
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
    simulator.close();
  }

  private HttpResponse<String> get(String pathAndQuery) {
    return client.call("GET", pathAndQuery, null);
  }

  private HttpResponse<String> asUser(
      SimulatedUserToken user, String method, String pathAndQuery, String json) {
    return client.call(
        method,
        pathAndQuery,
        json,
        UserSigner.authorization(simulator, method, pathAndQuery, user),
        Duration.ofSeconds(10));
  }

  private static JsonNode json(HttpResponse<String> response) {
    return PlatformClient.json(response);
  }

  private ConsumerStub consumerWithWebhook() throws Exception {
    ConsumerStub consumer = ConsumerStub.start(simulator.consumerSecret());
    closing.add(consumer);
    return consumer;
  }

  @Test
  void lookup_withoutFields_postIsOnlyIdAndText() {
    String id = simulator.addPost(ALICE, "hello @carol");

    HttpResponse<String> answer = get("/2/posts?ids=" + id);

    assertThat(answer.statusCode()).isEqualTo(200);
    JsonNode body = json(answer);
    assertThat(body.get("data")).hasSize(1);
    assertThat(fieldNames(body.get("data").get(0))).containsExactly("id", "text");
    assertThat(body.get("data").get(0).get("text").asText()).isEqualTo("hello @carol");
    assertThat(fieldNames(body)).containsExactly("data");
  }

  @Test
  void lookup_fieldsAndExpansions_includesEachObjectOnce() {
    SimulatedUserToken alice = simulator.signIn(ALICE);
    String first = simulator.addPost(CAROL, "the first");
    HttpResponse<String> created =
        asUser(
            alice,
            "POST",
            "/2/posts",
            "{\"text\":\"@carol agreed\",\"reply\":{\"in_reply_to_post_id\":\""
                + first
                + "\"},\"media\":{\"media_ids\":[\"1455952740635586573\"]}}");
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    String reply = json(created).get("data").get("id").asText();
    String second = simulator.addPost(ALICE, "@carol another one");

    JsonNode body =
        json(
            get(
                "/2/posts?ids="
                    + reply
                    + ","
                    + second
                    + "&post.fields=author_id,created_at,referenced_posts,attachments,entities"
                    + "&user.fields=created_at&media.fields=url"
                    + "&expansions=author_id,entities.mentions.username,attachments.media_keys,"
                    + "referenced_posts.id,referenced_posts.id.author_id"));

    JsonNode data = body.get("data");
    assertThat(data).hasSize(2);
    assertThat(data.get(0).get("author_id").asText()).isEqualTo(ALICE);
    assertThat(data.get(0).get("created_at").asText()).isEqualTo("2026-03-20T12:00:00.000Z");
    assertThat(data.get(0).get("referenced_posts").get(0).get("type").asText())
        .isEqualTo("replied_to");
    assertThat(data.get(0).has("lang")).isFalse();
    JsonNode users = body.get("includes").get("users");
    assertThat(users.findValuesAsText("id")).containsExactly(ALICE, CAROL);
    assertThat(users.findValuesAsText("username")).containsExactly("alice", "carol");
    assertThat(users.get(0).has("created_at")).isTrue();
    assertThat(users.get(0).has("description")).isFalse();
    assertThat(body.get("includes").get("media")).hasSize(1);
    assertThat(fieldNames(body.get("includes").get("media").get(0)))
        .containsExactly("media_key", "type", "url");
    assertThat(body.get("includes").get("posts").findValuesAsText("id")).containsExactly(first);
    assertThat(body.has("errors")).isFalse();
  }

  @Test
  void lookup_missingIds_oneErrorEachBesideTheFoundPosts() {
    String id = simulator.addPost(ALICE, "here");

    JsonNode body = json(get("/2/posts?ids=" + id + ",1234567890123,42"));

    assertThat(body.get("data").findValuesAsText("id")).containsExactly(id);
    assertThat(body.get("errors")).hasSize(2);
    JsonNode error = body.get("errors").get(0);
    assertThat(fieldNames(error))
        .containsExactly(
            "value", "detail", "title", "resource_type", "parameter", "resource_id", "type");
    assertThat(error.get("value").asText()).isEqualTo("1234567890123");
    assertThat(error.get("detail").asText())
        .isEqualTo("Could not find post with ids: [1234567890123].");
    assertThat(error.get("title").asText()).isEqualTo("Not Found Error");
    assertThat(error.get("resource_type").asText()).isEqualTo("post");
    assertThat(error.get("parameter").asText()).isEqualTo("ids");
    assertThat(error.get("resource_id").asText()).isEqualTo("1234567890123");
    assertThat(error.get("type").asText()).endsWith("/2/problems/resource-not-found");
  }

  @Test
  void lookup_noneFound_200WithOnlyErrors() {
    HttpResponse<String> many = get("/2/posts?ids=42,43");
    HttpResponse<String> one = get("/2/posts/42");

    assertThat(many.statusCode()).isEqualTo(200);
    assertThat(fieldNames(json(many))).containsExactly("errors");
    assertThat(json(many).get("errors")).hasSize(2);
    assertThat(one.statusCode()).isEqualTo(200);
    assertThat(fieldNames(json(one))).containsExactly("errors");
  }

  @Test
  void lookup_single_dataIsTheObject() {
    String id = simulator.addPost(ALICE, "one");

    JsonNode body = json(get("/2/posts/" + id + "?expansions=author_id"));

    assertThat(body.get("data").get("id").asText()).isEqualTo(id);
    assertThat(body.get("includes").get("users").get(0).get("username").asText())
        .isEqualTo("alice");
  }

  @Test
  void lookup_malformedIdOrOverHundred_400NamingIds() {
    String hundredOne =
        IntStream.rangeClosed(1, 101).mapToObj(Integer::toString).collect(Collectors.joining(","));

    HttpResponse<String> malformed = get("/2/posts?ids=12,abc");
    HttpResponse<String> tooMany = get("/2/posts?ids=" + hundredOne);
    HttpResponse<String> hundred =
        get("/2/posts?ids=" + hundredOne.substring(0, hundredOne.lastIndexOf(',')));

    assertThat(malformed.statusCode()).isEqualTo(400);
    assertThat(json(malformed).get("errors").get(0).get("parameters").get("ids").get(0).asText())
        .isEqualTo("abc");
    assertThat(tooMany.statusCode()).isEqualTo(400);
    assertThat(json(tooMany).get("errors").get(0).get("parameters").has("ids")).isTrue();
    assertThat(hundred.statusCode()).isEqualTo(200);
  }

  @Test
  void lookup_unknownFieldOrExpansion_400NamingIt() {
    String id = simulator.addPost(ALICE, "x");

    HttpResponse<String> field = get("/2/posts?ids=" + id + "&post.fields=author_id,colour");
    HttpResponse<String> expansion = get("/2/posts?ids=" + id + "&expansions=author");

    assertThat(field.statusCode()).isEqualTo(400);
    JsonNode error = json(field).get("errors").get(0);
    assertThat(error.get("parameters").get("post.fields").get(0).asText()).isEqualTo("colour");
    assertThat(error.get("message").asText()).contains("colour");
    assertThat(expansion.statusCode()).isEqualTo(400);
    assertThat(
            json(expansion)
                .get("errors")
                .get(0)
                .get("parameters")
                .get("expansions")
                .get(0)
                .asText())
        .isEqualTo("author");
  }

  @Test
  void lookup_userContext_answersLikeAppOnly() {
    String id = simulator.addPost(ALICE, "x");

    HttpResponse<String> answer =
        asUser(simulator.signIn(BOT), "GET", "/2/posts?ids=" + id + "&post.fields=author_id", null);

    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    assertThat(json(answer).get("data").get(0).get("author_id").asText()).isEqualTo(ALICE);
    assertThat(answer.headers().firstValue("x-rate-limit-remaining")).isPresent();
  }

  @Test
  void create_appOnly_403SaysPostingActsForAUser() {
    HttpResponse<String> answer = client.call("POST", "/2/posts", "{\"text\":\"hi\"}");

    assertThat(answer.statusCode()).isEqualTo(403);
    assertThat(json(answer).get("detail").asText()).contains("posting acts for a user");
    assertThat(simulator.postsBy(BOT)).isEmpty();
  }

  @Test
  void create_mention_deliveredToTheMentionedUsersSubscription() throws Exception {
    ConsumerStub consumer = consumerWithWebhook();
    String webhook = client.register(consumer.url());
    simulator.subscribe("post.mention.create", ALICE, webhook);
    simulator.subscribe("post.create", BOT, webhook);
    simulator.subscribe("post.mention.create", CAROL, webhook); // not mentioned: nothing

    HttpResponse<String> created =
        asUser(simulator.signIn(BOT), "POST", "/2/posts", "{\"text\":\"@alice thanks!\"}");

    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    JsonNode data = json(created).get("data");
    String id = data.get("id").asText();
    assertThat(data.get("text").asText()).isEqualTo("@alice thanks!");
    assertThat(data.get("edit_history_post_ids").get(0).asText()).isEqualTo(id);
    assertThat(created.headers().firstValue("x-rate-limit-limit")).isPresent();
    await().atMost(Duration.ofSeconds(10)).until(() -> consumer.deliveries().size() == 2);
    assertThat(consumer.deliveries()).allMatch(ConsumerStub.Delivery::signatureValid);
    JsonNode mention = envelope(consumer, "post.mention.create");
    assertThat(mention.get("filter").get("user_id").asText()).isEqualTo(ALICE);
    JsonNode post = mention.get("payload");
    assertThat(post.get("id").asText()).isEqualTo(id);
    assertThat(post.get("author_id").asText()).isEqualTo(BOT);
    assertThat(post.get("conversation_id").asText()).isEqualTo(id);
    assertThat(post.get("entities").get("mentions").get(0).get("id").asText()).isEqualTo(ALICE);
    assertThat(post.get("entities").get("mentions").get(0).get("username").asText())
        .isEqualTo("alice");
    assertThat(mention.get("includes").get("users").findValuesAsText("username"))
        .containsExactly("reply_bot", "alice");
    assertThat(envelope(consumer, "post.create").get("filter").get("user_id").asText())
        .isEqualTo(BOT);
    assertThat(simulator.postsBy(BOT)).extracting(SimulatedPost::id).containsExactly(id);
    JsonNode looked = json(get("/2/posts/" + id + "?post.fields=author_id"));
    assertThat(looked.get("data").get("author_id").asText()).isEqualTo(BOT);
  }

  @Test
  void create_reply_deliversReplyToTheRepliedAuthorAndKeepsTheThread() throws Exception {
    ConsumerStub consumer = consumerWithWebhook();
    String webhook = client.register(consumer.url());
    simulator.subscribe("post.reply.create", ALICE, webhook);
    String original = simulator.addPost(ALICE, "what do you think?");

    HttpResponse<String> created =
        asUser(
            simulator.signIn(BOT),
            "POST",
            "/2/posts",
            "{\"text\":\"fine\",\"reply\":{\"in_reply_to_post_id\":\"" + original + "\"}}");

    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    await().atMost(Duration.ofSeconds(10)).until(() -> consumer.deliveries().size() == 1);
    JsonNode post = envelope(consumer, "post.reply.create").get("payload");
    assertThat(post.get("in_reply_to_user_id").asText()).isEqualTo(ALICE);
    assertThat(post.get("conversation_id").asText()).isEqualTo(original);
    assertThat(post.get("referenced_posts").get(0).get("id").asText()).isEqualTo(original);
    assertThat(simulator.postsBy(BOT).get(0).inReplyToPostId()).isEqualTo(original);
  }

  @Test
  void create_sameTextTwice_403DuplicateContent() {
    SimulatedUserToken bot = simulator.signIn(BOT);
    asUser(bot, "POST", "/2/posts", "{\"text\":\"same\"}");

    HttpResponse<String> again = asUser(bot, "POST", "/2/posts", "{\"text\":\"same\"}");

    assertThat(again.statusCode()).isEqualTo(403);
    assertThat(json(again).get("detail").asText()).contains("duplicate content");
    assertThat(simulator.postsBy(BOT)).hasSize(1);
  }

  @Test
  void create_editWithinTheHour_201ThenRefusedAfterAndForOthers() {
    SimulatedUserToken bot = simulator.signIn(BOT);
    String original =
        json(asUser(bot, "POST", "/2/posts", "{\"text\":\"typo\"}")).get("data").get("id").asText();
    simulator.advance(Duration.ofMinutes(59));

    HttpResponse<String> edit =
        asUser(
            bot,
            "POST",
            "/2/posts",
            "{\"text\":\"fixed\",\"edit_options\":{\"previous_post_id\":\"" + original + "\"}}");
    HttpResponse<String> byOther =
        asUser(
            simulator.signIn(ALICE),
            "POST",
            "/2/posts",
            "{\"text\":\"mine\",\"edit_options\":{\"previous_post_id\":\"" + original + "\"}}");
    simulator.advance(Duration.ofMinutes(2));
    HttpResponse<String> late =
        asUser(
            bot,
            "POST",
            "/2/posts",
            "{\"text\":\"again\",\"edit_options\":{\"previous_post_id\":\"" + original + "\"}}");

    assertThat(edit.statusCode()).as(edit.body()).isEqualTo(201);
    String edited = json(edit).get("data").get("id").asText();
    assertThat(json(edit).get("data").get("edit_history_post_ids").findValuesAsText("")).isEmpty();
    assertThat(json(edit).get("data").get("edit_history_post_ids").toString())
        .isEqualTo("[\"" + original + "\",\"" + edited + "\"]");
    assertThat(byOther.statusCode()).isEqualTo(403);
    assertThat(late.statusCode()).isEqualTo(403);
    assertThat(json(late).get("detail").asText()).contains("no longer be edited");
  }

  @Test
  void create_malformedBody_400NamingTheField() {
    SimulatedUserToken bot = simulator.signIn(BOT);

    HttpResponse<String> paid =
        asUser(bot, "POST", "/2/posts", "{\"text\":\"x\",\"paid_partnership\":\"yes\"}");
    HttpResponse<String> settings =
        asUser(bot, "POST", "/2/posts", "{\"text\":\"y\",\"reply_settings\":\"friends\"}");
    HttpResponse<String> community =
        asUser(
            bot,
            "POST",
            "/2/posts",
            "{\"text\":\"z\",\"community_id\":\"1146654567674912769\",\"share_with_followers\":true}");

    assertThat(paid.statusCode()).isEqualTo(400);
    assertThat(json(paid).get("errors").get(0).get("parameters").has("paid_partnership")).isTrue();
    assertThat(settings.statusCode()).isEqualTo(400);
    assertThat(json(settings).get("errors").get(0).get("parameters").has("reply_settings"))
        .isTrue();
    assertThat(community.statusCode()).as(community.body()).isEqualTo(201);
    String id = json(community).get("data").get("id").asText();
    assertThat(
            json(get("/2/posts/" + id + "?post.fields=community_id"))
                .get("data")
                .get("community_id")
                .asText())
        .isEqualTo("1146654567674912769");
  }

  @Test
  void afterLogout_userCalls401Code89() {
    SimulatedUserToken bot = simulator.signIn(BOT);
    HttpResponse<String> logout = asUser(bot, "POST", "/1.1/oauth/invalidate_token", null);
    assertThat(logout.statusCode()).isEqualTo(200);

    HttpResponse<String> post = asUser(bot, "POST", "/2/posts", "{\"text\":\"hi\"}");
    HttpResponse<String> dm =
        asUser(bot, "POST", "/2/dm_conversations/with/" + ALICE + "/messages", "{\"text\":\"hi\"}");

    assertThat(post.statusCode()).isEqualTo(401);
    assertThat(json(post).get("errors").get(0).get("code").asInt()).isEqualTo(89);
    assertThat(dm.statusCode()).isEqualTo(401);
    assertThat(json(dm).get("errors").get(0).get("code").asInt()).isEqualTo(89);
    assertThat(post.headers().firstValue("x-rate-limit-reset")).isPresent();
  }

  @Test
  void dm_sent_deliveredAsReceivedToTheRecipientAndSentToTheSender() throws Exception {
    ConsumerStub consumer = consumerWithWebhook();
    String webhook = client.register(consumer.url());
    simulator.subscribe("dm.received", ALICE, webhook);
    simulator.subscribe("dm.sent", BOT, webhook);

    HttpResponse<String> sent =
        asUser(
            simulator.signIn(BOT),
            "POST",
            "/2/dm_conversations/with/" + ALICE + "/messages",
            "{\"text\":\"got it\"}");

    assertThat(sent.statusCode()).as(sent.body()).isEqualTo(201);
    JsonNode data = json(sent).get("data");
    assertThat(data.get("dm_conversation_id").asText()).isEqualTo(BOT + "-" + ALICE);
    await().atMost(Duration.ofSeconds(10)).until(() -> consumer.deliveries().size() == 2);
    JsonNode received = envelope(consumer, "dm.received");
    assertThat(received.get("filter").get("user_id").asText()).isEqualTo(ALICE);
    JsonNode event = received.get("payload").get("direct_message_events").get(0);
    assertThat(event.get("id").asText()).isEqualTo(data.get("dm_event_id").asText());
    assertThat(event.get("sender_id").asText()).isEqualTo(BOT);
    assertThat(event.get("text").asText()).isEqualTo("got it");
    assertThat(received.get("payload").get("users").get(BOT).get("username").asText())
        .isEqualTo("reply_bot");
    assertThat(envelope(consumer, "dm.sent").get("filter").get("user_id").asText()).isEqualTo(BOT);
    assertThat(simulator.directMessagesTo(ALICE))
        .singleElement()
        .satisfies(m -> assertThat(m.senderId()).isEqualTo(BOT));
  }

  @Test
  void dm_withoutPermission_403Code93() {
    simulator.directMessagesPermitted(false);

    HttpResponse<String> sent =
        asUser(
            simulator.signIn(BOT),
            "POST",
            "/2/dm_conversations/with/" + ALICE + "/messages",
            "{\"text\":\"hi\"}");

    assertThat(sent.statusCode()).isEqualTo(403);
    assertThat(json(sent).get("errors").get(0).get("code").asInt()).isEqualTo(93);
    assertThat(simulator.directMessagesTo(ALICE)).isEmpty();
  }

  @Test
  void rateLimited_429WithReset() {
    Instant reset = NOW.plus(Duration.ofMinutes(7));
    simulator.enqueueFault(Fault.rateLimited(reset));

    HttpResponse<String> answer =
        asUser(simulator.signIn(BOT), "POST", "/2/posts", "{\"text\":\"hi\"}");

    assertThat(answer.statusCode()).isEqualTo(429);
    assertThat(answer.headers().firstValue("x-rate-limit-reset"))
        .contains(Long.toString(reset.getEpochSecond()));
    assertThat(answer.headers().firstValue("x-rate-limit-remaining")).contains("0");
    assertThat(simulator.postsBy(BOT)).isEmpty();
  }

  @Test
  void testkit_mentionAndDm_reachTheBotAndItsAnswersAreAwaited() throws Exception {
    ConsumerStub consumer = consumerWithWebhook();
    client.register(consumer.url());
    String webhook = simulator.webhookIds().get(0);
    simulator.subscribe("post.mention.create", BOT, webhook);
    simulator.subscribe("dm.received", BOT, webhook);

    String mention = simulator.mention(ALICE, BOT, "hello");
    simulator.sendDm(ALICE, BOT, "psst");

    await().atMost(Duration.ofSeconds(10)).until(() -> consumer.deliveries().size() == 2);
    assertThat(envelope(consumer, "post.mention.create").get("payload").get("text").asText())
        .isEqualTo("@reply_bot hello");
    assertThat(envelope(consumer, "post.mention.create").get("payload").get("id").asText())
        .isEqualTo(mention);
    asUser(
        simulator.signIn(BOT),
        "POST",
        "/2/posts",
        "{\"text\":\"@alice thanks!\",\"reply\":{\"in_reply_to_post_id\":\"" + mention + "\"}}");
    assertThat(simulator.awaitPostsBy(BOT, 1, Duration.ofSeconds(5)))
        .singleElement()
        .satisfies(p -> assertThat(p.inReplyToPostId()).isEqualTo(mention));
    assertThatThrownBy(() -> simulator.awaitDirectMessagesTo(ALICE, 1, Duration.ofMillis(50)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("direct message(s) to user " + ALICE);
    assertThatThrownBy(() -> simulator.mention(ALICE, "999", "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown");
  }

  private static JsonNode envelope(ConsumerStub consumer, String type) {
    for (ConsumerStub.Delivery delivery : consumer.deliveries()) {
      JsonNode data = PlatformClient.json(delivery.bodyText()).get("data");
      if (data.get("event_type").asText().equals(type)) {
        return data;
      }
    }
    throw new AssertionError("no " + type + " among " + consumer.deliveryBodies());
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
