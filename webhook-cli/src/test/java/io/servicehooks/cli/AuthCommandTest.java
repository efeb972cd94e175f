package io.servicehooks.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.testkit.ConsumerStub;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.PlatformSimulator;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code servicehooks auth ...} and {@code subscriptions create --as-user} in-process against the
 * simulator, with the PIN fed on standard input and HOME in a temporary directory.
 */
final class AuthCommandTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String USER_ID = "2244994945";

  @TempDir Path home;

  private PlatformSimulator platform;
  private Map<String, String> env;

  @BeforeEach
  void start() {
    platform = PlatformSimulator.builder().localMode(true).build().start();
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

  private Path defaultFile() {
    return home.resolve(".config/servicehooks/credentials.json");
  }

  private static Cli.Run run(Map<String, String> environment, InputStream stdin, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine = ServicehooksCli.commandLine(environment);
    ((AuthCommand) commandLine.getSubcommands().get("auth").getCommand()).input = stdin;
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int exitCode = commandLine.execute(args);
    return new Cli.Run(exitCode, out.toString(), err.toString());
  }

  private Cli.Run run(String... args) {
    return run(env, new ByteArrayInputStream(new byte[0]), args);
  }

  /**
   * Runs {@code auth login} while playing the user: waits for the request token, approves it on the
   * simulator and types the PIN (or {@code typed}, when given) on standard input.
   */
  private Cli.Run login(String typed, String... extraArgs) throws Exception {
    PipedOutputStream keyboard = new PipedOutputStream();
    PipedInputStream stdin = new PipedInputStream(keyboard);
    String[] args = new String[2 + extraArgs.length];
    args[0] = "auth";
    args[1] = "login";
    System.arraycopy(extraArgs, 0, args, 2, extraArgs.length);
    CompletableFuture<Cli.Run> running = CompletableFuture.supplyAsync(() -> run(env, stdin, args));
    await().atMost(Duration.ofSeconds(10)).until(() -> !platform.pendingRequestTokens().isEmpty());
    String requestToken = platform.pendingRequestTokens().get(0);
    String pin = platform.approveRequestToken(requestToken, USER_ID, "alice");
    keyboard.write(((typed != null ? typed : pin) + "\n").getBytes(StandardCharsets.UTF_8));
    keyboard.flush();
    Cli.Run run = running.get(10, TimeUnit.SECONDS);
    keyboard.close();
    assertThat(run.err()).contains("/oauth/authorize?oauth_token=" + requestToken);
    return run;
  }

  private String savedSecret(Path file) throws Exception {
    return JSON.readTree(file.toFile()).get("oauth_token_secret").asText();
  }

  @Test
  void help_rootAndAuth_nameTheCommandsAndTheEnvironment() {
    Cli.Run root = run("--help");
    Cli.Run auth = run("auth", "--help");

    assertThat(root.out()).contains("auth", "SERVICE_USER_TOKEN, SERVICE_USER_TOKEN_SECRET");
    assertThat(auth.out())
        .contains("login", "status", "logout", "~/.config/servicehooks/credentials.json");
  }

  @Test
  void login_pinOnStdin_savesCredentialsOwnerOnly() throws Exception {
    Cli.Run run = login(null, "--access-type", "read");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out()).contains("Signed in as @alice", USER_ID, defaultFile().toString());
    assertThat(Files.getPosixFilePermissions(defaultFile()))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    assertThat(Files.getPosixFilePermissions(defaultFile().getParent()))
        .isEqualTo(PosixFilePermissions.fromString("rwx------"));
    JsonNode saved = JSON.readTree(defaultFile().toFile());
    assertThat(saved.get("user_id").asText()).isEqualTo(USER_ID);
    assertThat(saved.get("screen_name").asText()).isEqualTo("alice");
    assertThat(saved.get("oauth_token").asText()).startsWith(USER_ID + "-");
    assertThat(run.out() + run.err()).doesNotContain(savedSecret(defaultFile()));
  }

  @Test
  void status_afterLogin_namesUserAndFileNeverTheSecret() throws Exception {
    login(null);

    Cli.Run status = run("auth", "status");
    Cli.Run json = run("--json", "auth", "status");

    assertThat(status.exitCode()).isZero();
    assertThat(status.out())
        .contains("@alice", USER_ID, defaultFile().toString(), "Issued by " + platform.baseUrl());
    assertThat(JSON.readTree(json.out()).get("credentials_file").asText())
        .isEqualTo(defaultFile().toString());
    String secret = savedSecret(defaultFile());
    String token = JSON.readTree(defaultFile().toFile()).get("oauth_token").asText();
    assertThat(status.out() + status.err() + json.out())
        .doesNotContain(secret)
        .doesNotContain(token);
  }

  @Test
  void status_notSignedIn_exit1() {
    Cli.Run status = run("auth", "status");

    assertThat(status.exitCode()).isEqualTo(ServicehooksCli.EXIT_API_ERROR);
    assertThat(status.out()).contains("Not signed in", defaultFile().toString());
  }

  @Test
  void login_wrongPin_exit1WithPlatformReasonAndNoFile() throws Exception {
    Cli.Run run = login("0000000x");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ServicehooksCli.EXIT_API_ERROR);
    assertThat(run.err()).contains("Invalid oauth_verifier parameter");
    assertThat(defaultFile()).doesNotExist();
  }

  @Test
  void login_noPinTyped_exit2() throws Exception {
    PipedOutputStream keyboard = new PipedOutputStream();
    PipedInputStream stdin = new PipedInputStream(keyboard);
    keyboard.close();

    Cli.Run run = run(env, stdin, "auth", "login");

    assertThat(run.exitCode()).isEqualTo(ServicehooksCli.EXIT_USAGE);
    assertThat(run.err()).contains("no PIN entered");
  }

  @Test
  void login_unknownAccessType_exit2BeforeAnyCall() {
    Cli.Run run = run("auth", "login", "--access-type", "admin");

    assertThat(run.exitCode()).isEqualTo(ServicehooksCli.EXIT_USAGE);
    assertThat(run.err()).contains("read or write");
    assertThat(platform.pendingRequestTokens()).isEmpty();
  }

  @Test
  void login_bearerTokenOnly_exit2NamesTheApiKey() {
    env.remove("SERVICE_API_KEY");
    env.remove("SERVICE_API_SECRET");
    env.put("SERVICE_BEARER_TOKEN", "AAAA");

    Cli.Run run = run("auth", "login");

    assertThat(run.exitCode()).isEqualTo(ServicehooksCli.EXIT_USAGE);
    assertThat(run.err()).contains("SERVICE_API_KEY and SERVICE_API_SECRET");
  }

  @Test
  void credentialsFile_mode0644_refusedWithTheChmodToRun() throws Exception {
    login(null);
    Files.setPosixFilePermissions(defaultFile(), PosixFilePermissions.fromString("rw-r--r--"));

    Cli.Run status = run("auth", "status");
    Cli.Run create =
        run(
            "subscriptions",
            "create",
            "--as-user",
            "--event-type",
            "dm.received",
            "--user-id",
            USER_ID);

    for (Cli.Run refused : List.of(status, create)) {
      assertThat(refused.exitCode()).as(refused.toString()).isEqualTo(ServicehooksCli.EXIT_USAGE);
      assertThat(refused.err()).contains("mode 0644", "chmod 600 " + defaultFile());
      assertThat(refused.err()).doesNotContain(savedSecret(defaultFile()));
    }
  }

  @Test
  void credentialsFileOption_movesTheFile() throws Exception {
    Path elsewhere = home.resolve("elsewhere/alice.json");

    Cli.Run run = login(null, "--credentials-file", elsewhere.toString());
    Cli.Run status = run("auth", "status", "--credentials-file", elsewhere.toString());

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(elsewhere).exists();
    assertThat(defaultFile()).doesNotExist();
    assertThat(status.out()).contains("@alice", elsewhere.toString());
  }

  @Test
  void subscriptionsCreate_dmWithoutAsUser_exit1SaysUserContextWithHint() {
    Cli.Run run =
        run("subscriptions", "create", "--event-type", "dm.received", "--user-id", USER_ID);

    assertThat(run.exitCode()).isEqualTo(ServicehooksCli.EXIT_API_ERROR);
    assertThat(run.err()).contains("need user context", "--as-user");
  }

  @Test
  void subscriptionsCreate_asUserNotSignedIn_exit2() {
    Cli.Run run =
        run(
            "subscriptions",
            "create",
            "--as-user",
            "--event-type",
            "dm.received",
            "--user-id",
            USER_ID);

    assertThat(run.exitCode()).isEqualTo(ServicehooksCli.EXIT_USAGE);
    assertThat(run.err()).contains("auth login", "SERVICE_USER_TOKEN");
  }

  @Test
  void subscriptionsCreate_asUser_createdInUserContext() throws Exception {
    login(null);

    Cli.Run run =
        run(
            "--json",
            "subscriptions",
            "create",
            "--as-user",
            "--event-type",
            "dm.received",
            "--user-id",
            USER_ID,
            "--tag",
            "alice-dms");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(JSON.readTree(run.out()).toString()).contains("dm.received", "alice-dms");
  }

  @Test
  void subscriptionsCreate_asUserToWebhook_dmEventsDelivered() throws Exception {
    try (ConsumerStub consumer = ConsumerStub.start(platform.consumerSecret())) {
      Cli.Run webhook =
          run("--json", "webhooks", "create", consumer.url("/webhook"), "--allow-insecure-url");
      String webhookId = JSON.readTree(webhook.out()).get("id").asText();
      login(null);

      Cli.Run created =
          run(
              "subscriptions",
              "create",
              "--as-user",
              "--event-type",
              "dm.received",
              "--user-id",
              USER_ID,
              "--webhook-id",
              webhookId,
              "--tag",
              "alice-dms");
      platform.deliver(
          Events.activity(
              "dm.received", USER_ID, Map.of("direct_message_events", List.of(Map.of("id", "7")))));

      assertThat(created.exitCode()).as(created.toString()).isZero();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> consumer.deliveryBodies().stream().anyMatch(b -> b.contains("dm.received")));
    }
  }

  @Test
  void environmentTokens_overrideTheFile_andLogoutRevokesThem() throws Exception {
    login(null);
    JsonNode saved = JSON.readTree(defaultFile().toFile());
    Files.delete(defaultFile());
    env.put(AuthCommand.ENV_TOKEN, saved.get("oauth_token").asText());
    env.put(AuthCommand.ENV_TOKEN_SECRET, saved.get("oauth_token_secret").asText());

    Cli.Run status = run("auth", "status");
    Cli.Run create =
        run(
            "subscriptions",
            "create",
            "--as-user",
            "--event-type",
            "dm.received",
            "--user-id",
            USER_ID);
    Cli.Run logout = run("auth", "logout");
    Cli.Run afterwards =
        run(
            "subscriptions",
            "create",
            "--as-user",
            "--event-type",
            "dm.sent",
            "--user-id",
            USER_ID);

    assertThat(status.exitCode()).isZero();
    assertThat(status.out())
        .contains("SERVICE_USER_TOKEN")
        .doesNotContain(saved.get("oauth_token_secret").asText());
    assertThat(create.exitCode()).as(create.toString()).isZero();
    assertThat(logout.exitCode()).as(logout.toString()).isZero();
    assertThat(logout.out()).contains("revoked", "unset SERVICE_USER_TOKEN");
    assertThat(afterwards.exitCode()).isEqualTo(ServicehooksCli.EXIT_API_ERROR);
    assertThat(afterwards.err()).contains("Invalid or expired token");
  }

  @Test
  void environmentTokens_onlyOneSet_exit2() {
    env.put(AuthCommand.ENV_TOKEN, "1-abc");

    Cli.Run run = run("auth", "status");

    assertThat(run.exitCode()).isEqualTo(ServicehooksCli.EXIT_USAGE);
    assertThat(run.err()).contains("SERVICE_USER_TOKEN_SECRET is not set");
  }

  @Test
  void logout_revokesTokenAndDeletesFile_oldTokenRefused() throws Exception {
    login(null);
    JsonNode saved = JSON.readTree(defaultFile().toFile());

    Cli.Run logout = run("auth", "logout");
    env.put(AuthCommand.ENV_TOKEN, saved.get("oauth_token").asText());
    env.put(AuthCommand.ENV_TOKEN_SECRET, saved.get("oauth_token_secret").asText());
    Cli.Run reuse =
        run(
            "subscriptions",
            "create",
            "--as-user",
            "--event-type",
            "dm.received",
            "--user-id",
            USER_ID);

    assertThat(logout.exitCode()).as(logout.toString()).isZero();
    assertThat(logout.out()).contains("Token revoked", "Deleted " + defaultFile());
    assertThat(defaultFile()).doesNotExist();
    assertThat(platform.activeUserTokens()).isZero();
    assertThat(reuse.exitCode()).isEqualTo(ServicehooksCli.EXIT_API_ERROR);
  }

  private Cli.Run createDmSubscriptionAsUser(Map<String, String> environment) {
    return run(
        environment,
        new ByteArrayInputStream(new byte[0]),
        "subscriptions",
        "create",
        "--as-user",
        "--event-type",
        "dm.received",
        "--user-id",
        USER_ID);
  }

  @Test
  void logout_baseUrlNamesAnotherPlatform_refusedOneLine_fileKept_tokenStillRevocable()
      throws Exception {
    login(null);
    try (PlatformSimulator other = PlatformSimulator.builder().localMode(true).build().start()) {
      Map<String, String> elsewhere = new HashMap<>(env);
      elsewhere.put("SERVICE_API_BASE_URL", other.baseUrl().toString());

      Cli.Run logout = run(elsewhere, new ByteArrayInputStream(new byte[0]), "auth", "logout");

      assertThat(logout.exitCode()).as(logout.toString()).isNotZero();
      assertThat(logout.err().strip().split("\\R")).as(logout.toString()).hasSize(1);
      assertThat(logout.err()).contains(platform.baseUrl().toString(), other.baseUrl().toString());
      assertThat(defaultFile()).exists();
      assertThat(platform.activeUserTokens()).isEqualTo(1);
    }
    // the platform the file names still takes the token: it was not revoked
    assertThat(createDmSubscriptionAsUser(env).exitCode()).isZero();
  }

  @Test
  void logout_rotatedApiSecret_code32_keepsFileSaysRevocationFailedExit1() throws Exception {
    login(null);
    Map<String, String> rotated = new HashMap<>(env);
    rotated.put("SERVICE_API_SECRET", "rotated-secret-not-the-one-that-signed-in");

    Cli.Run logout = run(rotated, new ByteArrayInputStream(new byte[0]), "auth", "logout");

    assertThat(logout.exitCode()).as(logout.toString()).isEqualTo(ServicehooksCli.EXIT_API_ERROR);
    assertThat(logout.err()).contains("revocation failed", "code 32", defaultFile().toString());
    assertThat(logout.out()).doesNotContain("Deleted");
    assertThat(defaultFile()).exists();
    assertThat(platform.activeUserTokens()).isEqualTo(1);
  }

  @Test
  void logout_tokenRevokedAlready_code89_deletesTheFile() throws Exception {
    login(null);
    byte[] saved = Files.readAllBytes(defaultFile());
    assertThat(run("auth", "logout").exitCode()).isZero();
    Files.write(defaultFile(), saved);
    Files.setPosixFilePermissions(defaultFile(), PosixFilePermissions.fromString("rw-------"));

    Cli.Run again = run("auth", "logout");

    assertThat(again.exitCode()).as(again.toString()).isZero();
    assertThat(again.err()).contains("Invalid or expired token");
    assertThat(defaultFile()).doesNotExist();
  }

  @Test
  void logout_withoutBaseUrlSetting_revokesOnThePlatformTheFileNames() throws Exception {
    login(null);
    Map<String, String> noBaseUrl = new HashMap<>(env);
    noBaseUrl.remove("SERVICE_API_BASE_URL");

    Cli.Run logout = run(noBaseUrl, new ByteArrayInputStream(new byte[0]), "auth", "logout");

    assertThat(logout.exitCode()).as(logout.toString()).isZero();
    assertThat(platform.activeUserTokens()).isZero();
    assertThat(defaultFile()).doesNotExist();
  }

  @Test
  void asUser_baseUrlNamesAnotherPlatform_refusedOneLine() throws Exception {
    login(null);
    try (PlatformSimulator other = PlatformSimulator.builder().localMode(true).build().start()) {
      Map<String, String> elsewhere = new HashMap<>(env);
      elsewhere.put("SERVICE_API_BASE_URL", other.baseUrl().toString());

      Cli.Run create = createDmSubscriptionAsUser(elsewhere);

      assertThat(create.exitCode()).as(create.toString()).isEqualTo(ServicehooksCli.EXIT_USAGE);
      assertThat(create.err().strip().split("\\R")).as(create.toString()).hasSize(1);
      assertThat(create.err()).contains(platform.baseUrl().toString());
    }
  }

  @Test
  void asUser_withoutBaseUrlSetting_goesToThePlatformTheFileNames() throws Exception {
    login(null);
    Map<String, String> noBaseUrl = new HashMap<>(env);
    noBaseUrl.remove("SERVICE_API_BASE_URL");

    Cli.Run create = createDmSubscriptionAsUser(noBaseUrl);

    assertThat(create.exitCode()).as(create.toString()).isZero();
  }

  @Test
  void logout_notSignedIn_exit2() {
    Cli.Run run = run("auth", "logout");

    assertThat(run.exitCode()).isEqualTo(ServicehooksCli.EXIT_USAGE);
    assertThat(run.err()).contains("not signed in");
  }
}
