package io.servicehooks.registration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.registration.RecordingPlatform.Answer;
import io.servicehooks.registration.RecordingPlatform.Request;
import io.servicehooks.registration.WebhookApiException.Reason;
import io.servicehooks.testsupport.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Looking posts up, creating posts and sending direct messages over the real JDK HTTP client
 * against a real HTTP server that plays the platform
 * (docs/protocol.md#looking-posts-up-and-answering) and records what it was sent.
 */
final class PostsClientTest {

  private static final ObjectMapper TREE = new ObjectMapper();
  private static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");

  private RecordingPlatform platform;
  private FakeClock clock;

  @BeforeEach
  void start() throws Exception {
    platform = new RecordingPlatform();
    clock = FakeClock.at(NOW);
  }

  @AfterEach
  void stop() {
    platform.close();
  }

  private WebhookClient appOnly() {
    return WebhookClient.builder()
        .baseUrl(platform.baseUrl())
        .bearerToken("app-token")
        .clock(clock)
        .sleeper(clock::sleep)
        .build();
  }

  private UserClient asBot() {
    return WebhookClient.builder()
        .baseUrl(platform.baseUrl())
        .apiCredentials("api-key", "api-secret")
        .clock(clock)
        .sleeper(clock::sleep)
        .build()
        .forUser(new UserCredentials("user-token", "user-secret", "1500", "bot"));
  }

  private static final String RICH =
      """
      {"data":[
        {"id":"20","text":"@bot look https://t.co/x #tag","author_id":"100",
         "created_at":"2026-11-26T11:59:00.000Z","conversation_id":"10","lang":"en",
         "source":"app","possibly_sensitive":false,"in_reply_to_user_id":"101",
         "referenced_posts":[{"type":"replied_to","id":"10"},{"type":"quoted","id":"11"}],
         "attachments":{"media_keys":["3_1","3_2"]},
         "public_metrics":{"repost_count":1,"reply_count":2,"like_count":3,"quote_count":4},
         "entities":{"mentions":[{"start":0,"end":4,"username":"bot","id":"1500"}],
                     "urls":[{"start":10,"end":33,"url":"https://t.co/x",
                              "expanded_url":"https://example.org/a","display_url":"example.org/a"}],
                     "hashtags":[{"start":34,"end":38,"tag":"tag"}],
                     "annotations":[{"start":0,"end":3,"probability":0.9,"type":"Other",
                                     "normalized_text":"bot"}],
                     "future_entity":[1,2]},
         "context_annotations":[{"domain":{"id":"1","name":"D","description":"d"},
                                 "entity":{"id":"2","name":"E"}}],
         "paid_partnership":true,"community_id":"77","edit_history_post_ids":["20"],
         "a_field_added_later":{"nested":[true]}}],
       "includes":{
         "users":[{"id":"100","name":"Alice","username":"alice","verified":true,
                   "protected":false,"created_at":"2020-01-01T00:00:00.000Z",
                   "public_metrics":{"followers_count":5,"following_count":6,"post_count":7,
                                     "listed_count":8},
                   "affiliation":{"user_id":["900","901"],"description":"Org"}},
                  {"id":"101","name":"Bob","username":"bob"}],
         "posts":[{"id":"10","text":"root","author_id":"101"},
                  {"id":"11","text":"quoted","author_id":"100","attachments":{"media_keys":["3_2"]}}],
         "media":[{"media_key":"3_1","type":"photo","url":"https://pbs.example/1.jpg",
                   "width":640,"height":480,"alt_text":"a cat"},
                  {"media_key":"3_2","type":"video","duration_ms":46947,
                   "preview_image_url":"https://pbs.example/2.jpg",
                   "public_metrics":{"view_count":123}}],
         "places":[{"id":"p"}]},
       "meta":{"result_count":1}}
      """;

  @Test
  void lookup_appOnly_sendsIdsFieldsAndExpansionsWithTheBearerToken() throws Exception {
    platform.answer(200, RICH);

    PostLookup lookup =
        appOnly()
            .posts()
            .lookup(
                List.of("20"),
                PostQuery.none()
                    .postFields(PostField.AUTHOR_ID, PostField.CREATED_AT, PostField.ATTACHMENTS)
                    .userFields(UserField.USERNAME, UserField.AFFILIATION)
                    .mediaFields(MediaField.URL, MediaField.ALT_TEXT)
                    .expansions(Expansion.AUTHOR_ID, Expansion.ATTACHMENTS_MEDIA_KEYS)
                    .rawExpansions("referenced_posts.id")
                    .rawPostFields("a_field_added_later"));

    Request request = platform.requests().get(0);
    assertThat(request.method()).isEqualTo("GET");
    assertThat(request.uri().getPath()).isEqualTo("/2/posts");
    assertThat(request.query("ids")).isEqualTo("20");
    assertThat(request.query("post.fields"))
        .isEqualTo("author_id,created_at,attachments,a_field_added_later");
    assertThat(request.query("user.fields")).isEqualTo("username,affiliation");
    assertThat(request.query("media.fields")).isEqualTo("url,alt_text");
    assertThat(request.query("expansions"))
        .isEqualTo("author_id,attachments.media_keys,referenced_posts.id");
    assertThat(request.header("Authorization")).isEqualTo("Bearer app-token");
    assertThat(lookup.found()).hasSize(1);
  }

  @Test
  void lookup_richAnswer_recordsMatchTheTreeAndIncludesAreResolved() throws Exception {
    platform.answer(200, RICH);
    JsonNode tree = TREE.readTree(RICH);
    JsonNode expected = tree.get("data").get(0);

    Post post = appOnly().posts().lookup(List.of("20")).found().get(0);

    assertThat(post.createdAt()).isEqualTo(Instant.parse(expected.get("created_at").asText()));
    assertThat(post.conversationId()).isEqualTo("10");
    assertThat(post.lang()).isEqualTo("en");
    assertThat(post.possiblySensitive()).isFalse();
    assertThat(post.inReplyToUserId()).isEqualTo("101");
    assertThat(post.inReplyToPostId()).isEqualTo("10");
    assertThat(post.paidPartnership()).isTrue();
    assertThat(post.communityId()).isEqualTo("77");
    assertThat(post.editHistoryPostIds()).containsExactly("20");
    assertThat(post.publicMetrics()).isEqualTo(new Post.Metrics(1L, 2L, 3L, 4L, null, null));
    assertThat(post.mentions()).containsExactly(new Post.Mention(0, 4, "bot", "1500"));
    assertThat(post.entities().urls())
        .containsExactly(
            new Post.Url(10, 33, "https://t.co/x", "https://example.org/a", "example.org/a", null));
    assertThat(post.entities().hashtags()).containsExactly(new Post.Tag(34, 38, "tag"));
    assertThat(post.entities().annotations())
        .containsExactly(new Post.Annotation(0, 3, 0.9, "Other", "bot"));
    assertThat(post.contextAnnotations())
        .containsExactly(
            new Post.ContextAnnotation(
                new Post.Named("1", "D", "d"), new Post.Named("2", "E", null)));
    // resolved from includes
    assertThat(post.author().username()).isEqualTo("alice");
    assertThat(post.author().verified()).isTrue();
    assertThat(post.author().isProtected()).isFalse();
    assertThat(post.author().publicMetrics()).isEqualTo(new User.Metrics(5L, 6L, 7L, 8L, null));
    assertThat(post.author().affiliation().userIds()).containsExactly("900", "901");
    assertThat(post.media()).extracting(Media::mediaKey).containsExactly("3_1", "3_2");
    assertThat(post.media().get(0).altText()).isEqualTo("a cat");
    assertThat(post.media().get(0).width()).isEqualTo(640);
    assertThat(post.media().get(1).durationMs()).isEqualTo(46947L);
    assertThat(post.media().get(1).viewCount()).isEqualTo(123L);
    assertThat(post.referencedPosts())
        .extracting(Post.ReferencedPost::type)
        .containsExactly("replied_to", "quoted");
    Post replied = post.referencedPosts().get(0).post();
    assertThat(replied.text()).isEqualTo("root");
    assertThat(replied.author().username()).isEqualTo("bob");
    Post quoted = post.referencedPosts().get(1).post();
    assertThat(quoted.author().username()).isEqualTo("alice");
    assertThat(quoted.media()).extracting(Media::type).containsExactly("video");
    // unknown fields ignored by the records, kept in the raw JSON
    assertThat(post.raw()).isEqualTo(expected);
    assertThat(post.raw().get("a_field_added_later").get("nested").get(0).asBoolean()).isTrue();
    assertThat(post.author().raw()).isEqualTo(tree.get("includes").get("users").get(0));
    assertThat(post.media().get(1).raw()).isEqualTo(tree.get("includes").get("media").get(1));
  }

  @Test
  void lookup_250Ids_threeRequestsOf100AtMost_mergedInOrder() throws Exception {
    List<String> ids = IntStream.rangeClosed(1, 250).mapToObj(Integer::toString).toList();
    for (int page = 0; page < 3; page++) {
      platform.answer(
          request -> {
            String[] asked = request.query("ids").split(",");
            String data =
                Arrays.stream(asked)
                    .filter(id -> !id.equals("7") && !id.equals("201"))
                    .map(id -> "{\"id\":\"" + id + "\",\"text\":\"t" + id + "\"}")
                    .collect(Collectors.joining(","));
            String errors =
                Arrays.stream(asked)
                    .filter(id -> id.equals("7") || id.equals("201"))
                    .map(PostsClientTest::notFoundEntry)
                    .collect(Collectors.joining(","));
            return Answer.json(
                200,
                "{\"data\":["
                    + data
                    + "]"
                    + (errors.isEmpty() ? "" : ",\"errors\":[" + errors + "]")
                    + "}");
          });
    }

    PostLookup lookup = appOnly().posts().lookup(ids, PostQuery.none());

    List<Request> requests = platform.requests();
    assertThat(requests).hasSize(3);
    assertThat(requests.get(0).query("ids").split(",")).hasSize(100).startsWith("1");
    assertThat(requests.get(1).query("ids").split(",")).hasSize(100).startsWith("101");
    assertThat(requests.get(2).query("ids").split(",")).hasSize(50).startsWith("201");
    assertThat(lookup.found()).hasSize(248);
    assertThat(lookup.found().get(6).id()).isEqualTo("8");
    assertThat(lookup.notFound()).extracting(NotFound::id).containsExactly("7", "201");
    assertThat(lookup.notFound().get(0).title()).isEqualTo("Not Found Error");
    assertThat(lookup.notFound().get(0).detail()).isEqualTo("Could not find post with ids: [7].");
    assertThat(lookup.pages()).hasSize(3);
    assertThat(lookup.raw().get("data")).hasSize(248);
    assertThat(lookup.raw().get("errors")).hasSize(2);
  }

  private static String notFoundEntry(String id) {
    return "{\"value\":\""
        + id
        + "\",\"detail\":\"Could not find post with ids: ["
        + id
        + "].\",\"title\":\"Not Found Error\",\"resource_type\":\"post\",\"parameter\":\"ids\","
        + "\"resource_id\":\""
        + id
        + "\",\"type\":\"https://api.x.com/2/problems/resource-not-found\"}";
  }

  @Test
  void lookup_noneFound_onlyErrors_notFoundEntriesNoFailure() throws Exception {
    platform.answer(200, "{\"errors\":[" + notFoundEntry("5") + "," + notFoundEntry("6") + "]}");

    PostLookup lookup = appOnly().posts().lookup(List.of("5", "6"));

    assertThat(lookup.found()).isEmpty();
    assertThat(lookup.notFound())
        .containsExactly(
            new NotFound(
                "5",
                "Could not find post with ids: [5].",
                "Not Found Error",
                "https://api.x.com/2/problems/resource-not-found"),
            new NotFound(
                "6",
                "Could not find post with ids: [6].",
                "Not Found Error",
                "https://api.x.com/2/problems/resource-not-found"));
  }

  @Test
  void lookup_emptyOrMalformedIds_refusedBeforeAnyRequest() {
    Posts posts = appOnly().posts();

    assertThatThrownBy(() -> posts.lookup(List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one");
    assertThatThrownBy(() -> posts.lookup(List.of("1,2")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(platform.requests()).isEmpty();
  }

  @Test
  void lookup_unknownField_400NamesTheParameter() {
    platform.answer(
        400,
        """
        {"errors":[{"parameters":{"post.fields":["colour"]},
          "message":"The `post.fields` query parameter value [colour] is not one of [id, text]"}],
         "title":"Invalid Request","detail":"One or more parameters to your request was invalid.",
         "type":"https://api.x.com/2/problems/invalid-request"}
        """);

    WebhookApiException e =
        catchThrowableOfType(
            () -> appOnly().posts().lookup(List.of("1"), PostQuery.none().rawPostFields("colour")),
            WebhookApiException.class);

    assertThat(e.status()).isEqualTo(400);
    assertThat(e.parameters()).containsExactly("post.fields");
    assertThat(e.getMessage()).contains("post.fields").contains("colour");
    assertThat(platform.requests()).hasSize(1);
  }

  @Test
  void get_oneId_pathForm() throws Exception {
    platform.answer(200, "{\"data\":{\"id\":\"42\",\"text\":\"hi\",\"author_id\":\"7\"}}");
    platform.answer(200, "{\"errors\":[" + notFoundEntry("43") + "]}");

    Posts posts = appOnly().posts();
    var found = posts.get("42", PostQuery.none().postFields(PostField.AUTHOR_ID));
    var missing = posts.get("43", PostQuery.none());

    assertThat(found).hasValueSatisfying(post -> assertThat(post.authorId()).isEqualTo("7"));
    assertThat(missing).isEmpty();
    assertThat(platform.requests().get(0).uri().getPath()).isEqualTo("/2/posts/42");
    assertThat(platform.requests().get(0).query("post.fields")).isEqualTo("author_id");
    assertThat(platform.requests().get(1).uri().getRawQuery()).isNull();
  }

  // ---- create

  @Test
  void create_appOnly_refusedBeforeAnyRequestInOneLine() {
    assertThatThrownBy(() -> appOnly().posts().create(NewPost.text("hello")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("posting acts for a user")
        .hasMessageContaining("forUser")
        .hasMessageNotContaining("\n");
    assertThat(platform.requests()).isEmpty();
  }

  @Test
  void create_userContext_jsonBodyWithEveryOptionAndOAuthHeader() throws Exception {
    platform.answer(
        201,
        "{\"data\":{\"id\":\"31\",\"text\":\"@alice thanks!\",\"edit_history_post_ids\":[\"31\"]}}");

    CreatedPost created =
        asBot()
            .posts()
            .create(
                NewPost.text("@alice thanks!")
                    .replyTo("20")
                    .excludeReplyUserIds("101")
                    .quote("11")
                    .mediaIds("m1", "m2")
                    .replySettings(ReplySettings.MENTIONED_USERS)
                    .community("77", true)
                    .paidPartnership(false));

    assertThat(created).isEqualTo(new CreatedPost("31", "@alice thanks!", List.of("31")));
    Request request = platform.requests().get(0);
    assertThat(request.method()).isEqualTo("POST");
    assertThat(request.uri().getPath()).isEqualTo("/2/posts");
    assertThat(request.header("Content-Type")).isEqualTo("application/json");
    assertThat(request.header("Authorization"))
        .startsWith("OAuth ")
        .contains("oauth_token=\"user-token\"", "oauth_consumer_key=\"api-key\"");
    assertThat(TREE.readTree(request.body()))
        .isEqualTo(
            TREE.readTree(
                """
                {"text":"@alice thanks!",
                 "reply":{"in_reply_to_post_id":"20","exclude_reply_user_ids":["101"]},
                 "quote_post_id":"11","media":{"media_ids":["m1","m2"]},
                 "reply_settings":"mentionedUsers","community_id":"77",
                 "share_with_followers":true,"paid_partnership":false}
                """));
  }

  @Test
  void create_editOlderThanAnHourByTheClientsClock_refusedBeforeAnyRequest() throws Exception {
    Instant original = NOW.minus(Duration.ofMinutes(59));
    NewPost edit = NewPost.text("fixed typo").editOf("30", original);
    platform.answer(
        201,
        "{\"data\":{\"id\":\"32\",\"text\":\"fixed typo\",\"edit_history_post_ids\":[\"30\",\"32\"]}}");
    UserClient bot = asBot();

    CreatedPost within = bot.posts().create(edit);
    clock.advance(Duration.ofMinutes(2));

    assertThat(within.editHistoryPostIds()).containsExactly("30", "32");
    assertThat(TREE.readTree(platform.requests().get(0).body()).get("edit_options"))
        .isEqualTo(TREE.readTree("{\"previous_post_id\":\"30\"}"));
    assertThatThrownBy(() -> bot.posts().create(edit))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("post 30 was created 61 minutes ago")
        .hasMessageContaining("within 60 minutes");
    assertThat(platform.requests()).hasSize(1);
  }

  @Test
  void create_401Code89InUserContext_tokenInvalid_notRetried() {
    platform.answer(401, "{\"errors\":[{\"code\":89,\"message\":\"Invalid or expired token.\"}]}");

    WebhookApiException e =
        catchThrowableOfType(
            () -> asBot().posts().create(NewPost.text("hi")), WebhookApiException.class);

    assertThat(e.reason()).isEqualTo(Reason.TOKEN_INVALID);
    assertThat(e.platformMessage()).isEqualTo("Invalid or expired token.");
    assertThat(platform.requests()).hasSize(1);
  }

  @Test
  void create_duplicate_problemFields_duplicateContent() {
    platform.answer(
        403,
        "{\"detail\":\"You are not allowed to create a Post with duplicate content.\","
            + "\"type\":\"about:blank\",\"title\":\"Forbidden\",\"status\":403}");

    WebhookApiException e =
        catchThrowableOfType(
            () -> asBot().posts().create(NewPost.text("hi")), WebhookApiException.class);

    assertThat(e.reason()).isEqualTo(Reason.DUPLICATE_CONTENT);
    assertThat(e.platformMessage()).contains("duplicate content");
    assertThat(e.getMessage()).contains("HTTP 403").contains("duplicate content");
  }

  @Test
  void create_replyNotAllowed_notPermitted() {
    platform.answer(
        403,
        "{\"detail\":\"Reply to this conversation is not allowed because you have not been"
            + " mentioned or otherwise engaged by the author of the post you are replying to.\","
            + "\"type\":\"about:blank\",\"title\":\"Forbidden\",\"status\":403}");

    WebhookApiException e =
        catchThrowableOfType(
            () -> asBot().posts().create(NewPost.text("hi").replyTo("5")),
            WebhookApiException.class);

    assertThat(e.reason()).isEqualTo(Reason.NOT_PERMITTED);
    assertThat(e.platformMessage()).startsWith("Reply to this conversation is not allowed");
  }

  @Test
  void create_429_rateLimitedWithReset_neverRetried() {
    long reset = NOW.plusSeconds(5).getEpochSecond();
    platform.answer(
        new Answer(
            429,
            Map.of(
                "Content-Type", "application/json",
                "x-rate-limit-limit", "200",
                "x-rate-limit-remaining", "0",
                "x-rate-limit-reset", Long.toString(reset)),
            "{\"title\":\"Too Many Requests\",\"detail\":\"Too Many Requests\",\"type\":\"about:blank\",\"status\":429}"));

    WebhookApiException e =
        catchThrowableOfType(
            () -> asBot().posts().create(NewPost.text("hi")), WebhookApiException.class);

    assertThat(e.reason()).isEqualTo(Reason.RATE_LIMITED);
    assertThat(e.rateLimitReset()).contains(Instant.ofEpochSecond(reset));
    assertThat(platform.requests()).hasSize(1);
    assertThat(clock.sleeps()).isEmpty();
  }

  @Test
  void create_5xx_notRepeated() {
    platform.answer(503, "{\"title\":\"Service Unavailable\"}");

    assertThatThrownBy(() -> asBot().posts().create(NewPost.text("hi")))
        .isInstanceOf(WebhookApiException.class);
    assertThat(platform.requests()).hasSize(1);
  }

  // ---- direct messages

  @Test
  void dmSend_postsTextToTheParticipantsConversation() throws Exception {
    platform.answer(
        201, "{\"data\":{\"dm_conversation_id\":\"100-1500\",\"dm_event_id\":\"555\"}}");

    SentMessage sent = asBot().directMessages().send("100", "got it");

    assertThat(sent).isEqualTo(new SentMessage("100-1500", "555"));
    Request request = platform.requests().get(0);
    assertThat(request.method()).isEqualTo("POST");
    assertThat(request.uri().getPath()).isEqualTo("/2/dm_conversations/with/100/messages");
    assertThat(TREE.readTree(request.body())).isEqualTo(TREE.readTree("{\"text\":\"got it\"}"));
    assertThat(request.header("Authorization")).startsWith("OAuth ");
  }

  @Test
  void dmSend_code93_notPermitted_bothErrorsAndProblemFieldsRead() {
    platform.answer(
        403,
        "{\"errors\":[{\"code\":93,\"message\":\"This application is not allowed to access or"
            + " delete your direct messages.\"}],\"title\":\"Forbidden\",\"type\":\"about:blank\","
            + "\"status\":403,\"detail\":\"Forbidden\"}");

    WebhookApiException e =
        catchThrowableOfType(
            () -> asBot().directMessages().send("100", "hi"), WebhookApiException.class);

    assertThat(e.reason()).isEqualTo(Reason.NOT_PERMITTED);
    assertThat(e.platformMessage()).startsWith("This application is not allowed");
    assertThat(e.getMessage()).contains("(code 93)");
    assertThat(platform.requests()).hasSize(1);
  }

  @Test
  void appOnlyCode89_stillFetchesANewTokenOnce() throws Exception {
    WebhookClient client =
        WebhookClient.builder()
            .baseUrl(platform.baseUrl())
            .apiCredentials("api-key", "api-secret")
            .clock(clock)
            .sleeper(clock::sleep)
            .build();
    platform.answer(200, "{\"token_type\":\"bearer\",\"access_token\":\"first\"}");
    platform.answer(401, "{\"errors\":[{\"code\":89,\"message\":\"Invalid or expired token.\"}]}");
    platform.answer(200, "{\"token_type\":\"bearer\",\"access_token\":\"second\"}");
    platform.answer(200, "{\"data\":[{\"id\":\"1\",\"text\":\"t\"}]}");

    PostLookup lookup = client.posts().lookup(List.of("1"));

    assertThat(lookup.found()).hasSize(1);
    List<String> auth = new ArrayList<>();
    platform.requests().forEach(r -> auth.add(r.uri().getPath() + " " + r.header("Authorization")));
    assertThat(auth.get(1)).isEqualTo("/2/posts Bearer first");
    assertThat(auth.get(3)).isEqualTo("/2/posts Bearer second");
  }
}
