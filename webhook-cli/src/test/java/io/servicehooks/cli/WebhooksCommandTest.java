package io.servicehooks.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.testkit.ConsumerStub;
import io.servicehooks.testkit.PlatformSimulator;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code servicehooks webhooks ...} and {@code subscriptions ...} in-process against the simulator.
 */
final class WebhooksCommandTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private PlatformSimulator platform;
  private ConsumerStub consumer;
  private Map<String, String> env;

  @BeforeEach
  void start() throws Exception {
    platform = PlatformSimulator.builder().localMode(true).build().start();
    consumer = ConsumerStub.start(platform.consumerSecret());
    env =
        new HashMap<>(
            Map.of(
                "SERVICE_API_BASE_URL", platform.baseUrl().toString(),
                "SERVICE_API_KEY", platform.apiKey(),
                "SERVICE_API_SECRET", platform.apiSecret()));
  }

  @AfterEach
  void stop() {
    consumer.close();
    platform.close();
  }

  private Cli.Run run(String... args) {
    return Cli.run(env, args);
  }

  private String createdId() throws Exception {
    Cli.Run created =
        run("--json", "webhooks", "create", consumer.url("/webhook"), "--allow-insecure-url");
    assertThat(created.exitCode()).as(created.toString()).isZero();
    return JSON.readTree(created.out()).get("id").asText();
  }

  @Test
  void help_root_namesCommandsEnvironmentAndDefaultBaseUrl() {
    Cli.Run help = Cli.run(Map.of(), "--help");

    assertThat(help.exitCode()).isZero();
    assertThat(help.out())
        .contains(
            "servicehooks",
            "webhooks",
            "subscriptions",
            "send",
            "simulate",
            "SERVICE_API_KEY",
            "SERVICE_BEARER_TOKEN",
            "SERVICE_API_BASE_URL",
            "https://api.example.com");
  }

  @Test
  void webhooksCreate_json_printsTheWebhookObject() throws Exception {
    Cli.Run run =
        run("--json", "webhooks", "create", consumer.url("/webhook"), "--allow-insecure-url");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    JsonNode webhook = JSON.readTree(run.out());
    assertThat(webhook.get("id").asText()).matches("[0-9]+");
    assertThat(webhook.get("url").asText()).isEqualTo(consumer.url("/webhook"));
    assertThat(webhook.get("valid").asBoolean()).isTrue();
    assertThat(webhook.has("created_at")).isTrue();
  }

  @Test
  void webhooksList_table_showsHeaderAndRow() throws Exception {
    String id = createdId();

    Cli.Run run = run("webhooks", "list");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    String[] lines = run.out().split("\\R");
    assertThat(lines[0]).startsWith("ID").contains("URL", "VALID", "CREATED_AT");
    assertThat(lines[1]).startsWith(id).contains(consumer.url("/webhook"), "true");
  }

  @Test
  void webhooksList_jsonAfterTheSubcommand_printsAnArray() throws Exception {
    String id = createdId();

    Cli.Run run = run("webhooks", "list", "--json");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    JsonNode array = JSON.readTree(run.out());
    assertThat(array.isArray()).isTrue();
    assertThat(array.get(0).get("id").asText()).isEqualTo(id);
  }

  @Test
  void webhooksList_none_saysSoAndJsonIsEmptyArray() throws Exception {
    assertThat(run("webhooks", "list").out()).contains("No webhooks registered.");
    assertThat(JSON.readTree(run("--json", "webhooks", "list").out()).isEmpty()).isTrue();
  }

  @Test
  void webhooksRevalidateAndDelete_registered_succeed() throws Exception {
    String id = createdId();

    Cli.Run revalidated = run("webhooks", "revalidate", id);
    Cli.Run deleted = run("--json", "webhooks", "delete", id);

    assertThat(revalidated.exitCode()).as(revalidated.toString()).isZero();
    assertThat(revalidated.out()).contains("Webhook " + id + " is valid.");
    assertThat(deleted.exitCode()).as(deleted.toString()).isZero();
    assertThat(JSON.readTree(deleted.out()).get("deleted").asBoolean()).isTrue();
  }

  @Test
  void webhooksEnsure_twice_createsOnceAndKeepsIt() throws Exception {
    Cli.Run first =
        run("--json", "webhooks", "ensure", consumer.url("/webhook"), "--allow-insecure-url");
    Cli.Run second =
        run("--json", "webhooks", "ensure", consumer.url("/webhook"), "--allow-insecure-url");

    assertThat(first.exitCode()).as(first.toString()).isZero();
    assertThat(second.exitCode()).as(second.toString()).isZero();
    assertThat(JSON.readTree(second.out()).get("id"))
        .isEqualTo(JSON.readTree(first.out()).get("id"));
  }

  @Test
  void webhooksReplay_isoAndPlatformTimes_printTheJob() throws Exception {
    String id = createdId();
    String to =
        DateTimeFormatter.ofPattern("yyyyMMddHHmm").withZone(ZoneOffset.UTC).format(platform.now());
    String from = platform.now().minus(Duration.ofHours(3)).toString();

    Cli.Run run = run("webhooks", "replay", id, "--from", from, "--to", to);

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out()).contains("JOB_ID", "replay_job_status");
  }

  @Test
  void webhooksCreate_duplicate_exits1WithReasonName() throws Exception {
    createdId();

    Cli.Run run = run("webhooks", "create", consumer.url("/webhook"), "--allow-insecure-url");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("DuplicateUrlFailed");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void webhooksRevalidate_unknownId_exits1WithReasonName() {
    Cli.Run run = run("webhooks", "revalidate", "424242");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("WebhookIdInvalid");
  }

  @Test
  void webhooksCreate_httpWithoutFlag_exits2NamingTheRule() {
    Cli.Run run = run("webhooks", "create", consumer.url("/webhook"));

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("must use https", "--allow-insecure-url");
  }

  @Test
  void webhooksList_missingCredentials_exits2NamingTheVariables() {
    Cli.Run run =
        Cli.run(Map.of("SERVICE_API_BASE_URL", platform.baseUrl().toString()), "webhooks", "list");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains("missing credentials", "SERVICE_API_KEY", "SERVICE_BEARER_TOKEN");
  }

  @Test
  void webhooksList_onlyTheKey_exits2NamingTheSecret() {
    Cli.Run run =
        Cli.run(
            Map.of(
                "SERVICE_API_BASE_URL",
                platform.baseUrl().toString(),
                "SERVICE_API_KEY",
                platform.apiKey()),
            "webhooks",
            "list");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("SERVICE_API_SECRET is not set");
  }

  @Test
  void webhooksReplay_badTime_exits2() {
    Cli.Run run = run("webhooks", "replay", "1", "--from", "yesterday", "--to", "202601010000");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("is not a time");
  }

  @Test
  void secretOnTheCommandLine_isNotAnOption_exits2() {
    Cli.Run run = run("webhooks", "list", "--api-secret", "s3cret");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("Unknown option");
  }

  @Test
  void webhooksList_bearerTokenFromEnvironment_works() throws Exception {
    createdId();
    Map<String, String> tokenOnly =
        Map.of(
            "SERVICE_API_BASE_URL",
            platform.baseUrl().toString(),
            "SERVICE_BEARER_TOKEN",
            fetchToken());

    Cli.Run run = Cli.run(tokenOnly, "webhooks", "list");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out()).contains(consumer.url("/webhook"));
  }

  @Test
  void webhooksList_wrongSecret_exits1AndNeverPrintsSecrets() throws Exception {
    env.put("SERVICE_API_SECRET", "WrongSecretValue987");

    Cli.Run run = run("webhooks", "list");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .contains("HTTP 403", "refused the API key and secret")
        .doesNotContain("WrongSecretValue987");
  }

  @Test
  void anyCommand_neverPrintsTheSecretOrToken() throws Exception {
    String token = fetchToken();
    StringBuilder all = new StringBuilder();
    for (String[] args :
        new String[][] {
          {"webhooks", "create", consumer.url("/webhook"), "--allow-insecure-url"},
          {"--json", "webhooks", "list"},
          {"webhooks", "create", consumer.url("/webhook"), "--allow-insecure-url"},
          {"subscriptions", "list"},
          {"--help"},
          {"webhooks", "--help"}
        }) {
      Cli.Run run = run(args);
      all.append(run.out()).append(run.err());
    }

    assertThat(all.toString()).doesNotContain(platform.apiSecret()).doesNotContain(token);
  }

  @Test
  void webhooksList_unreachablePlatform_exits1() {
    env.put("SERVICE_API_BASE_URL", "http://127.0.0.1:9");

    Cli.Run run = run("webhooks", "list");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("cannot reach");
  }

  @Test
  void baseUrlOption_overridesTheEnvironment() {
    env.put("SERVICE_API_BASE_URL", "http://127.0.0.1:9");

    Cli.Run run = run("--base-url", platform.baseUrl().toString(), "webhooks", "list");

    assertThat(run.exitCode()).as(run.toString()).isZero();
  }

  @Test
  void subscriptions_createListDelete_roundTrip() throws Exception {
    String webhookId = createdId();

    Cli.Run created =
        run(
            "--json",
            "subscriptions",
            "create",
            "--event-type",
            "post.create",
            "--user-id",
            "2244994945",
            "--tag",
            "mine",
            "--webhook-id",
            webhookId);
    assertThat(created.exitCode()).as(created.toString()).isZero();
    JsonNode subscription = JSON.readTree(created.out());
    assertThat(subscription.get("event_type").asText()).isEqualTo("post.create");
    assertThat(subscription.get("filter").get("user_id").asText()).isEqualTo("2244994945");
    String id = subscription.get("id").asText();

    Cli.Run listed = run("subscriptions", "list");
    assertThat(listed.out()).contains("EVENT_TYPE", id, "user_id=2244994945", "mine");

    Cli.Run deleted = run("subscriptions", "delete", id);
    assertThat(deleted.exitCode()).as(deleted.toString()).isZero();
    assertThat(run("subscriptions", "list").out()).contains("No activity subscriptions.");
  }

  @Test
  void subscriptionsCreate_neitherUserNorKeyword_exits2() {
    Cli.Run run = run("subscriptions", "create", "--event-type", "post.create");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--user-id", "--keyword");
  }

  private String fetchToken() throws Exception {
    String basic =
        java.util.Base64.getEncoder()
            .encodeToString(
                (platform.apiKey() + ":" + platform.apiSecret())
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    java.net.http.HttpResponse<String> response =
        java.net.http.HttpClient.newHttpClient()
            .send(
                java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create(platform.baseUrl() + "/oauth2/token"))
                    .header("Authorization", "Basic " + basic)
                    .header("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8")
                    .POST(
                        java.net.http.HttpRequest.BodyPublishers.ofString(
                            "grant_type=client_credentials"))
                    .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    return JSON.readTree(response.body()).get("access_token").asText();
  }
}
