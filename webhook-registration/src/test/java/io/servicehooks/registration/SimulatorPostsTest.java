package io.servicehooks.registration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.servicehooks.registration.WebhookApiException.Reason;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testkit.SimulatedPost;
import io.servicehooks.testkit.SimulatedUserToken;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The lookup, create and direct messages against the testkit's {@link PlatformSimulator}, which
 * plays the lookup and answer rules (docs/protocol.md#looking-posts-up-and-answering) on its own:
 * field rules, includes, not-found entries and the refusals.
 */
final class SimulatorPostsTest {

  private static final String BOT = "1500";
  private static final String ALICE = "100";

  private final PlatformSimulator platform = PlatformSimulator.builder().build().start();

  private final Clock platformClock =
      new Clock() {
        @Override
        public Instant instant() {
          return platform.now();
        }

        @Override
        public ZoneId getZone() {
          return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
          return this;
        }
      };

  private WebhookClient client;
  private UserClient asBot;

  @BeforeEach
  void start() {
    platform.addUser(BOT, "thebot", "The Bot");
    platform.addUser(ALICE, "alice", "Alice");
    client =
        WebhookClient.builder()
            .baseUrl(platform.baseUrl())
            .apiCredentials(platform.apiKey(), platform.apiSecret())
            .clock(platformClock)
            .build();
    SimulatedUserToken token = platform.signIn(BOT);
    asBot =
        client.forUser(
            new UserCredentials(token.token(), token.tokenSecret(), BOT, token.username()));
  }

  @AfterEach
  void stop() {
    platform.close();
  }

  @Test
  void lookup_withAuthorExpansion_authorResolved_missingIdNotFound() throws Exception {
    String postId = platform.addPost(ALICE, "@thebot hello");

    PostLookup lookup =
        client
            .posts()
            .lookup(
                List.of(postId, "999999999"),
                PostQuery.none()
                    .postFields(PostField.AUTHOR_ID, PostField.CREATED_AT)
                    .userFields(UserField.USERNAME)
                    .expansions(Expansion.AUTHOR_ID));

    Post post = lookup.find(postId).orElseThrow();
    assertThat(post.text()).isEqualTo("@thebot hello");
    assertThat(post.authorId()).isEqualTo(ALICE);
    assertThat(post.createdAt()).isNotNull();
    assertThat(post.author().username()).isEqualTo("alice");
    assertThat(lookup.notFound()).extracting(NotFound::id).containsExactly("999999999");
  }

  @Test
  void lookup_withoutFields_idAndTextOnly() throws Exception {
    String postId = platform.addPost(ALICE, "plain");

    Post post = client.posts().get(postId, PostQuery.none()).orElseThrow();

    assertThat(post.text()).isEqualTo("plain");
    assertThat(post.authorId()).isNull();
    assertThat(post.author()).isNull();
  }

  @Test
  void lookup_unknownField_400NamesIt() {
    String postId = platform.addPost(ALICE, "x");

    WebhookApiException e =
        catchThrowableOfType(
            () -> client.posts().lookup(List.of(postId), PostQuery.none().rawPostFields("colour")),
            WebhookApiException.class);

    assertThat(e.status()).isEqualTo(400);
    assertThat(e.parameters()).contains("post.fields");
  }

  @Test
  void reply_asTheBot_thePlatformKeepsItAsAReply_thenADuplicateIsRefused() throws Exception {
    String postId = platform.addPost(ALICE, "@thebot hello");

    CreatedPost reply = asBot.posts().create(NewPost.text("@alice thanks!").replyTo(postId));
    WebhookApiException again =
        catchThrowableOfType(
            () -> asBot.posts().create(NewPost.text("@alice thanks!").replyTo(postId)),
            WebhookApiException.class);

    List<SimulatedPost> posts = platform.postsBy(BOT);
    assertThat(posts).hasSize(1);
    assertThat(posts.get(0).id()).isEqualTo(reply.id());
    assertThat(posts.get(0).inReplyToPostId()).isEqualTo(postId);
    assertThat(again.reason()).isEqualTo(Reason.DUPLICATE_CONTENT);
  }

  @Test
  void create_appOnly_refusedBeforeAnyRequest_lookupStillWorks() throws Exception {
    String postId = platform.addPost(ALICE, "x");

    IllegalStateException e =
        catchThrowableOfType(
            () -> client.posts().create(NewPost.text("hi")), IllegalStateException.class);

    assertThat(e).hasMessageStartingWith("posting acts for a user");
    assertThat(client.posts().get(postId, PostQuery.none())).isPresent();
  }

  @Test
  void afterTheTokenIsInvalidated_tokenInvalid() throws Exception {
    asBot.invalidateToken();

    WebhookApiException e =
        catchThrowableOfType(
            () -> asBot.posts().create(NewPost.text("still here?")), WebhookApiException.class);

    assertThat(e.status()).isEqualTo(401);
    assertThat(e.reason()).isEqualTo(Reason.TOKEN_INVALID);
  }

  @Test
  void dm_sentAndKept_thenRefusedWithoutPermission() throws Exception {
    SentMessage sent = asBot.directMessages().send(ALICE, "got it");
    platform.directMessagesPermitted(false);
    WebhookApiException refused =
        catchThrowableOfType(
            () -> asBot.directMessages().send(ALICE, "again"), WebhookApiException.class);

    assertThat(sent.dmEventId()).isNotBlank();
    assertThat(platform.directMessagesTo(ALICE)).hasSize(1);
    assertThat(refused.reason()).isEqualTo(Reason.NOT_PERMITTED);
    assertThat(refused.platformMessage()).isNotBlank();
  }

  @Test
  void editOfAnothersPost_andReplyToAnUnknownPost_notPermitted() {
    String alicesPost = platform.addPost(ALICE, "mine");

    WebhookApiException edit =
        catchThrowableOfType(
            () -> asBot.posts().create(NewPost.text("yours now").editOf(alicesPost)),
            WebhookApiException.class);
    WebhookApiException reply =
        catchThrowableOfType(
            () -> asBot.posts().create(NewPost.text("hello?").replyTo("1")),
            WebhookApiException.class);

    assertThat(edit.status()).isEqualTo(403);
    assertThat(edit.reason()).isEqualTo(Reason.NOT_PERMITTED);
    assertThat(edit.platformMessage()).isEqualTo("You may only edit your own posts.");
    assertThat(reply.reason()).isEqualTo(Reason.NOT_PERMITTED);
    assertThat(platform.postsBy(BOT)).isEmpty();
  }
}
