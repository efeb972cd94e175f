package io.servicehooks.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.testkit.Fault;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testkit.SimulatedUserToken;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code servicehooks posts get|create} and {@code dm send} in-process against the simulator. */
final class PostsCommandTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BOT = "1500000001";
  private static final String ALICE = "1500000002";

  @TempDir Path home;

  private PlatformSimulator platform;
  private Map<String, String> env;
  private SimulatedUserToken bot;

  @BeforeEach
  void start() {
    platform = PlatformSimulator.builder().localMode(true).build().start();
    platform.addUser(BOT, "reply_bot", "Reply Bot");
    platform.addUser(ALICE, "alice", "Alice");
    bot = platform.signIn(BOT);
    env =
        new HashMap<>(
            Map.of(
                "SERVICE_API_BASE_URL", platform.baseUrl().toString(),
                "SERVICE_API_KEY", platform.apiKey(),
                "SERVICE_API_SECRET", platform.apiSecret(),
                "HOME", home.toString()));
  }

  @AfterEach
  void stop() {
    platform.close();
  }

  private Cli.Run run(String... args) {
    return Cli.run(env, args);
  }

  private Cli.Run asBot(String... args) {
    Map<String, String> withUser = new HashMap<>(env);
    withUser.put("SERVICE_USER_TOKEN", bot.token());
    withUser.put("SERVICE_USER_TOKEN_SECRET", bot.tokenSecret());
    return Cli.run(withUser, args);
  }

  @Test
  void get_expandedAuthor_tableNamesTheUsernameAndTheMissingIds() {
    String id = platform.addPost(ALICE, "hello there");

    Cli.Run run =
        run(
            "posts",
            "get",
            id,
            "42",
            "--post-fields",
            "author_id,created_at",
            "--expansions",
            "author_id");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ServicehooksCli.EXIT_API_ERROR);
    assertThat(run.out()).contains("ID", "AUTHOR", id, "@alice", "hello there");
    assertThat(run.out()).contains("Not found: 42 (Could not find post with ids: [42].)");
  }

  @Test
  void get_allFound_exit0() {
    String first = platform.addPost(ALICE, "one");
    String second = platform.addPost(ALICE, "two");

    Cli.Run run = run("posts", "get", first, second);

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out()).contains(first, second, "one", "two").doesNotContain("Not found");
  }

  @Test
  void get_json_passesDataIncludesAndErrorsThroughAsReceived() throws Exception {
    String id = platform.addPost(ALICE, "hello");

    Cli.Run run =
        run(
            "posts",
            "get",
            id,
            "42",
            "--expansions",
            "author_id",
            "--user-fields",
            "created_at",
            "--json");

    JsonNode answer = JSON.readTree(run.out());
    assertThat(answer.get("data").get(0).get("id").asText()).isEqualTo(id);
    assertThat(answer.get("includes").get("users").get(0).get("username").asText())
        .isEqualTo("alice");
    assertThat(answer.get("includes").get("users").get(0).has("created_at")).isTrue();
    JsonNode error = answer.get("errors").get(0);
    assertThat(error.get("resource_id").asText()).isEqualTo("42");
    assertThat(error.get("title").asText()).isEqualTo("Not Found Error");
    assertThat(error.get("parameter").asText()).isEqualTo("ids");
    assertThat(error.get("type").asText()).endsWith("/2/problems/resource-not-found");
  }

  @Test
  void get_unknownField_exit1WithThePlatformsReasonInOneLine() {
    String id = platform.addPost(ALICE, "x");

    Cli.Run run = run("posts", "get", id, "--post-fields", "colour");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ServicehooksCli.EXIT_API_ERROR);
    assertThat(run.err().lines())
        .singleElement()
        .asString()
        .startsWith("error:")
        .contains("colour");
  }

  @Test
  void get_usageErrors_exit2() {
    Cli.Run noIds = run("posts", "get");
    Cli.Run badField = run("posts", "get", "1", "--post-fields", "a b");
    Cli.Run noCredentials =
        Cli.run(Map.of("SERVICE_API_BASE_URL", platform.baseUrl().toString()), "posts", "get", "1");

    assertThat(noIds.exitCode()).isEqualTo(ServicehooksCli.EXIT_USAGE);
    assertThat(badField.exitCode()).isEqualTo(ServicehooksCli.EXIT_USAGE);
    assertThat(noCredentials.exitCode()).isEqualTo(ServicehooksCli.EXIT_USAGE);
    assertThat(noCredentials.err()).contains("missing credentials");
  }

  @Test
  void create_asUser_printsTheIdAndThePostExists() {
    String original = platform.addPost(ALICE, "what do you think?");

    Cli.Run run =
        asBot("posts", "create", "--text", "@alice fine", "--reply-to", original, "--as-user");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    String id = run.out().strip();
    assertThat(platform.postsBy(BOT))
        .singleElement()
        .satisfies(
            post -> {
              assertThat(post.id()).isEqualTo(id);
              assertThat(post.text()).isEqualTo("@alice fine");
              assertThat(post.inReplyToPostId()).isEqualTo(original);
            });
  }

  @Test
  void create_json_printsTheCreatedPost() throws Exception {
    String quoted = platform.addPost(ALICE, "look");

    Cli.Run run =
        asBot("--json", "posts", "create", "--text", "see this", "--quote", quoted, "--as-user");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    JsonNode data = JSON.readTree(run.out()).get("data");
    assertThat(data.get("text").asText()).isEqualTo("see this");
    assertThat(data.get("edit_history_post_ids").get(0).asText())
        .isEqualTo(data.get("id").asText());
    assertThat(platform.postsBy(BOT).get(0).quotedPostId()).isEqualTo(quoted);
  }

  @Test
  void create_withoutAsUserOrText_exit2BeforeAnyCall() {
    Cli.Run noFlag = asBot("posts", "create", "--text", "hi");
    Cli.Run noText = asBot("posts", "create", "--as-user");
    Cli.Run notSignedIn = run("posts", "create", "--text", "hi", "--as-user");

    assertThat(noFlag.exitCode()).isEqualTo(ServicehooksCli.EXIT_USAGE);
    assertThat(noFlag.err()).contains("posting acts for a user", "--as-user");
    assertThat(noText.exitCode()).isEqualTo(ServicehooksCli.EXIT_USAGE);
    assertThat(notSignedIn.exitCode()).isEqualTo(ServicehooksCli.EXIT_USAGE);
    assertThat(notSignedIn.err()).contains("auth login");
    assertThat(platform.postsBy(BOT)).isEmpty();
  }

  @Test
  void create_duplicate_exit1WithOneLine() {
    asBot("posts", "create", "--text", "same", "--as-user");

    Cli.Run again = asBot("posts", "create", "--text", "same", "--as-user");

    assertThat(again.exitCode()).as(again.toString()).isEqualTo(ServicehooksCli.EXIT_API_ERROR);
    assertThat(again.err().lines()).singleElement().asString().contains("duplicate content");
  }

  @Test
  void afterLogout_create_exit1WithOneLineSayingSignInAgain() {
    Cli.Run logout = asBot("auth", "logout");
    assertThat(logout.exitCode()).as(logout.toString()).isZero();

    Cli.Run run = asBot("posts", "create", "--text", "hi", "--as-user");
    Cli.Run dm = asBot("dm", "send", "--to", ALICE, "--text", "hi", "--as-user");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ServicehooksCli.EXIT_API_ERROR);
    assertThat(run.err().lines()).singleElement().asString().startsWith("error:");
    assertThat(run.err()).containsIgnoringCase("sign in again");
    assertThat(dm.exitCode()).isEqualTo(ServicehooksCli.EXIT_API_ERROR);
    assertThat(platform.postsBy(BOT)).isEmpty();
  }

  @Test
  void create_rateLimited_exit1NamingTheReset() {
    Instant reset = Instant.now().plusSeconds(420).truncatedTo(ChronoUnit.SECONDS);
    platform.enqueueFault(Fault.rateLimited(reset));

    Cli.Run run = asBot("posts", "create", "--text", "hi", "--as-user");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ServicehooksCli.EXIT_API_ERROR);
    assertThat(run.err().lines()).singleElement().asString().contains("429", reset.toString());
    assertThat(platform.postsBy(BOT)).isEmpty();
  }

  @Test
  void dm_send_asUser_reachesTheRecipient() throws Exception {
    Cli.Run run = asBot("dm", "send", "--to", ALICE, "--text", "got it", "--as-user");
    Cli.Run json = asBot("--json", "dm", "send", "--to", ALICE, "--text", "again", "--as-user");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out()).contains("Sent direct message", BOT + "-" + ALICE);
    assertThat(JSON.readTree(json.out()).get("data").get("dm_conversation_id").asText())
        .isEqualTo(BOT + "-" + ALICE);
    assertThat(platform.directMessagesTo(ALICE))
        .extracting(m -> m.text())
        .containsExactly("got it", "again");
  }

  @Test
  void dm_send_withoutPermission_exit1Code93() {
    platform.directMessagesPermitted(false);

    Cli.Run run = asBot("dm", "send", "--to", ALICE, "--text", "hi", "--as-user");
    Cli.Run noFlag = asBot("dm", "send", "--to", ALICE, "--text", "hi");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ServicehooksCli.EXIT_API_ERROR);
    assertThat(run.err().lines()).singleElement().asString().contains("direct messages");
    assertThat(noFlag.exitCode()).isEqualTo(ServicehooksCli.EXIT_USAGE);
    assertThat(platform.directMessagesTo(ALICE)).isEmpty();
  }
}
