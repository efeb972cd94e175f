package io.servicehooks.samples.replybot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.payload.PostCreated;
import io.servicehooks.registration.Answering;
import io.servicehooks.registration.UserCredentials;
import io.servicehooks.registration.UserCredentialsSource;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.samples.ConsumerMain;
import io.servicehooks.stream.ActivityStream;
import io.servicehooks.testkit.Fault;
import io.servicehooks.testkit.OpenStream;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testkit.SimulatedPost;
import io.servicehooks.testkit.SimulatedUserToken;
import io.servicehooks.testsupport.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reply bot against the platform simulator: it thanks a mention's author (looked up with {@code
 * expansions=author_id}) once per mention, answers a direct message, never answers itself, and
 * after a restart does not answer what the stream's backfill brings again.
 */
final class ReplyBotTest {

  private static final String BOT = "1500000001";
  private static final String ALICE = "1500000002";
  private static final String BOB = "1500000003";
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path dir;
  private PlatformSimulator platform;
  private SimulatedUserToken bot;
  private final List<AutoCloseable> open = new ArrayList<>();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private OpenStream lastStream;

  @BeforeEach
  void platform() {
    platform = PlatformSimulator.builder().localMode(true).build().start();
    platform.addUser(BOT, "reply_bot", "Reply Bot");
    platform.addUser(ALICE, "alice", "Alice");
    platform.addUser(BOB, "bob", "Bob");
    bot = platform.signIn(BOT);
    for (String type : List.of("post.mention.create", "post.create", "dm.received")) {
      platform.subscribe(type, BOT, null);
    }
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
    platform.close();
  }

  private Map<String, String> env() {
    Map<String, String> env = new HashMap<>();
    env.put("SERVICE_CONSUMER_SECRET", platform.consumerSecret());
    env.put("PORT", "0");
    env.put("HOST", "127.0.0.1");
    env.put("DELIVERY", "stream");
    env.put("SERVICE_API_BASE_URL", platform.baseUrl().toString());
    env.put("SERVICE_API_KEY", platform.apiKey());
    env.put("SERVICE_API_SECRET", platform.apiSecret());
    env.put("SERVICE_USER_TOKEN", bot.token());
    env.put("SERVICE_USER_TOKEN_SECRET", bot.tokenSecret());
    env.put("DEDUP_FILE", dir.resolve("bot.db").toString());
    return env;
  }

  /**
   * Waits for a stream other than those open before: the simulator notices a closed one only when
   * its next keep-alive fails.
   */
  private OpenStream newStream(java.util.Set<String> before) {
    return await()
        .atMost(WAIT)
        .until(
            () ->
                platform.openStreams().stream()
                    .filter(s -> !before.contains(s.endpointId()))
                    .findFirst(),
            java.util.Optional::isPresent)
        .orElseThrow();
  }

  private java.util.Set<String> openNow() {
    return platform.openStreams().stream()
        .map(OpenStream::endpointId)
        .collect(java.util.stream.Collectors.toSet());
  }

  private ConsumerMain.Running started(Map<String, String> env) throws Exception {
    java.util.Set<String> before = openNow();
    int[] exit = new int[1];
    ConsumerMain.Running running =
        ReplyBot.start(
            new String[0],
            env,
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            exit);
    assertThat(running).as(err.toString(StandardCharsets.UTF_8)).isNotNull();
    lastStream = newStream(before);
    return running;
  }

  @Test
  void mention_thanksItsAuthorInReplyToThePost_onceEach_andNeverItsOwnReply() throws Exception {
    try (ConsumerMain.Running running = started(env())) {
      String first = platform.mention(ALICE, BOT, "hello");
      List<SimulatedPost> replies = platform.awaitPostsBy(BOT, 1, WAIT);
      assertThat(replies.get(0).inReplyToPostId()).isEqualTo(first);
      assertThat(replies.get(0).text()).isEqualTo("@alice thanks!");

      // Another author: the platform refuses the same user's same text twice in a row.
      String second = platform.mention(BOB, BOT, "hello too");
      replies = platform.awaitPostsBy(BOT, 2, WAIT);
      assertThat(replies).extracting(SimulatedPost::inReplyToPostId).containsExactly(first, second);
      assertThat(replies.get(1).text()).isEqualTo("@bob thanks!");
      // Its replies came back to it as post.create; a third post would be an answer to itself.
      Thread.sleep(1_000);
      assertThat(platform.postsBy(BOT)).hasSize(2);
    }
  }

  @Test
  void secondMentionBySameAuthor_theSameThanksIsRefused_handledNotFailed() throws Exception {
    try (ConsumerMain.Running running = started(env())) {
      platform.mention(ALICE, BOT, "hello");
      platform.awaitPostsBy(BOT, 1, WAIT);
      platform.mention(ALICE, BOT, "hello again");

      // Handled, not failed: a failure would be retried, and retrying cannot change the refusal.
      HttpClient http = HttpClient.newHttpClient();
      HttpRequest metrics =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + running.port() + "/metrics"))
              .timeout(Duration.ofSeconds(5))
              .build();
      await()
          .atMost(WAIT)
          .until(
              () ->
                  http.send(metrics, HttpResponse.BodyHandlers.ofString())
                      .body()
                      .contains(
                          "webhook_events_total{outcome=\"dispatched\",type=\"post.mention.create\"} 2.0"));
      assertThat(platform.postsBy(BOT)).hasSize(1);
    }
  }

  @Test
  void directMessage_answeredGotIt_toTheSender() throws Exception {
    try (ConsumerMain.Running running = started(env())) {
      platform.sendDm(ALICE, BOT, "psst");

      assertThat(platform.awaitDirectMessagesTo(ALICE, 1, WAIT))
          .singleElement()
          .satisfies(
              dm -> {
                assertThat(dm.senderId()).isEqualTo(BOT);
                assertThat(dm.text()).isEqualTo("got it");
              });
    }
  }

  @Test
  void restart_theBackfillBringsTheMentionAgain_notAnsweredTwice() throws Exception {
    Map<String, String> env = env();
    try (ConsumerMain.Running running = started(env)) {
      platform.mention(ALICE, BOT, "hello");
      platform.awaitPostsBy(BOT, 1, WAIT);
    }
    try (ConsumerMain.Running running = started(env)) {
      assertThat(lastStream.backfillMinutes()).isEqualTo(5);
      Thread.sleep(2_000); // the backfill runs meanwhile
      assertThat(platform.postsBy(BOT)).hasSize(1);
    }
  }

  /**
   * In durable mode a failed answer is a failed listener, tried again by the inbox: the platform
   * fails every call of the first try (503, the client's own retries included), the inbox runs the
   * event again, and the mention is answered once.
   */
  @Test
  void durableMode_aFailedAnswerIsTriedAgain_andAnsweredOnce() throws Exception {
    try (TestDatabase.Schema schema = TestDatabase.schemaToBeCreated()) {
      Map<String, String> env = env();
      env.remove("DEDUP_FILE"); // the inbox table is the dedup
      env.put("DATABASE_URL", TestDatabase.url());
      env.put("DATABASE_SCHEMA", schema.name);
      env.put("INBOX_RETRY_BASE_MS", "100");
      try (ConsumerMain.Running running = started(env)) {
        // The lookup of the first try and the client's 3 retries of it.
        platform.enqueueFault(
            Fault.serverError(503),
            Fault.serverError(503),
            Fault.serverError(503),
            Fault.serverError(503));
        String mention = platform.mention(ALICE, BOT, "hello");

        List<SimulatedPost> replies = platform.awaitPostsBy(BOT, 1, WAIT);
        assertThat(replies.get(0).inReplyToPostId()).isEqualTo(mention);
        Thread.sleep(1_000);
        assertThat(platform.postsBy(BOT)).hasSize(1);
        String query =
            "SELECT attempts, status FROM "
                + schema.name
                + ".webhook_inbox WHERE event_type = 'post.mention.create'";
        await()
            .atMost(WAIT)
            .untilAsserted(
                () -> {
                  try (var connection = TestDatabase.connect();
                      var statement = connection.createStatement();
                      var rows = statement.executeQuery(query)) {
                    assertThat(rows.next()).isTrue();
                    assertThat(rows.getString("status")).isEqualTo("done");
                    assertThat(rows.getInt("attempts")).isGreaterThanOrEqualTo(2);
                  }
                });
      }
    }
  }

  @Test
  void withOneOfTheTwoTokenVariables_refusedAtStartWithOneLine() throws Exception {
    Map<String, String> env = env();
    env.remove("SERVICE_USER_TOKEN_SECRET");
    int[] exit = new int[1];

    ConsumerMain.Running running =
        ReplyBot.start(
            new String[0],
            env,
            System.out,
            new PrintStream(err, true, StandardCharsets.UTF_8),
            exit);

    assertThat(running).isNull();
    assertThat(exit[0]).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .startsWith("servicehooks-reply-bot: SERVICE_USER_TOKEN_SECRET is not set")
        .doesNotContain(bot.token())
        .hasLineCount(1);
  }

  @Test
  void withNeitherTokenNorCredentialsFile_refusedAtStartNamingBoth() throws Exception {
    Map<String, String> env = env();
    env.remove("SERVICE_USER_TOKEN");
    env.remove("SERVICE_USER_TOKEN_SECRET");
    String home =
        System.getenv("HOME") != null ? System.getenv("HOME") : System.getProperty("user.home");
    Path file = Path.of(home, ".config/servicehooks/credentials.json");
    Assumptions.assumeFalse(
        java.nio.file.Files.exists(file), "a credentials file of auth login is at " + file);
    int[] exit = new int[1];
    ConsumerMain.Running running =
        ReplyBot.start(
            new String[0],
            env,
            System.out,
            new PrintStream(err, true, StandardCharsets.UTF_8),
            exit);
    assertThat(running).isNull();
    assertThat(exit[0]).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .startsWith(
            "servicehooks-reply-bot: SERVICE_USER_TOKEN and SERVICE_USER_TOKEN_SECRET are needed")
        .contains(file.toString(), "auth login")
        .hasLineCount(1);
  }

  /**
   * A naive bot that thanks the author of every post that reaches it answers its own replies too
   * (they reach it as post.create): with the default it answers each mention once; told to run
   * listeners for its own events, it answers itself again and again.
   */
  @Test
  void naiveBot_oneAnswerPerMention_notALoop_unlessOwnEventsAreRun() throws Exception {
    assertThat(naiveBotPosts(true)).isEqualTo(1);
    assertThat(naiveBotPosts(false)).isGreaterThan(1);
  }

  private int naiveBotPosts(boolean ignoreOwnEvents) throws Exception {
    int before = platform.postsBy(BOT).size();
    WebhookClient client =
        WebhookClient.builder()
            .baseUrl(platform.baseUrl())
            .apiCredentials(platform.apiKey(), platform.apiSecret())
            .build();
    Answering answering =
        Answering.with(
            client,
            UserCredentialsSource.single(UserCredentials.of(bot.token(), bot.tokenSecret())));
    int[] answered = new int[1];
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(platform.consumerSecret())
            .ignoreOwnEvents(ignoreOwnEvents)
            .onEvent(
                PostCreated.class,
                answering.listener(
                    PostCreated.class,
                    (event, post, say) -> {
                      if (answered[0]++ < 5) { // bounded, so the loop ends in the test
                        say.reply("@" + post.authorUsername() + " thanks! #" + answered[0]);
                      }
                    }))
            .build();
    java.util.Set<String> open = openNow();
    try (consumer;
        ActivityStream stream = ActivityStream.builder(consumer, client).build().start()) {
      newStream(open);
      platform.mention(ignoreOwnEvents ? ALICE : BOB, BOT, "hi " + ignoreOwnEvents);
      platform.awaitPostsBy(BOT, before + 1, WAIT);
      Thread.sleep(1_500); // a loop shows within this
    }
    return platform.postsBy(BOT).size() - before;
  }
}
