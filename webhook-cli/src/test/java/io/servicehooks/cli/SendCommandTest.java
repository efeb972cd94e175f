package io.servicehooks.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.testkit.ConsumerStub;
import io.servicehooks.testkit.TestSigner;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code servicehooks send}: a signed sample delivery, checked by a consumer with its own HMAC. */
final class SendCommandTest {

  private static final String SECRET = "consumer-secret-for-send";
  private static final ObjectMapper JSON = new ObjectMapper();

  private ConsumerStub consumer;
  private final Map<String, String> env = Map.of("SERVICE_CONSUMER_SECRET", SECRET);

  @BeforeEach
  void start() throws Exception {
    consumer = ConsumerStub.start(SECRET);
  }

  @AfterEach
  void stop() {
    consumer.close();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "post.create",
        "post.delete",
        "profile.update.bio",
        "follow.follow",
        "spaces.start",
        "dm.received",
        "like.create",
        "oauth.revoke",
        "news.new",
        "chat.conversation.join",
        "ProfileBioUpdate"
      })
  void send_sampleType_deliversASignedActivityEnvelope(String type) throws Exception {
    Cli.Run run =
        Cli.run(env, "send", consumer.url("/webhook"), "--type", type, "--allow-insecure-url");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out()).contains("HTTP 200", "{\"received\":true}");
    assertThat(consumer.deliveries()).hasSize(1);
    ConsumerStub.Delivery delivery = consumer.deliveries().get(0);
    assertThat(delivery.signature()).isEqualTo(TestSigner.sign(SECRET, delivery.body()));
    assertThat(delivery.contentType()).startsWith("application/json");
    JsonNode data = JSON.readTree(delivery.body()).get("data");
    assertThat(data.get("event_type").asText()).isEqualTo(type);
    assertThat(data.get("event_uuid").asText()).matches("-?[0-9]+");
    assertThat(data.get("filter").isObject()).isTrue();
    assertThat(data.get("payload").isObject()).isTrue();
    assertThat(data.get("payload").isEmpty()).isFalse();
  }

  @Test
  void send_postCreate_payloadIsAPostObject() throws Exception {
    Cli.Run run =
        Cli.run(
            env, "send", consumer.url("/webhook"), "--type", "post.create", "--allow-insecure-url");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    JsonNode data = JSON.readTree(consumer.deliveries().get(0).body()).get("data");
    assertThat(data.get("filter").get("user_id").asText())
        .isEqualTo(SampleEvents.SUBSCRIBED_USER_ID);
    assertThat(data.get("payload").get("author_id").asText())
        .isEqualTo(SampleEvents.SUBSCRIBED_USER_ID);
    assertThat(data.get("payload").has("id")).isTrue();
    assertThat(data.get("payload").has("text")).isTrue();
    assertThat(data.get("payload").has("created_at")).isTrue();
  }

  @Test
  void send_eventIdTwice_sameEventUuid_secondIsADuplicateForAConsumer() throws Exception {
    for (int i = 0; i < 2; i++) {
      Cli.Run run =
          Cli.run(
              env,
              "send",
              consumer.url("/webhook"),
              "--type",
              "post.create",
              "--event-id",
              "rehearsal-1",
              "--allow-insecure-url");
      assertThat(run.exitCode()).as(run.toString()).isZero();
    }
    assertThat(consumer.deliveries()).hasSize(2);
    io.servicehooks.core.WebhookConsumer real =
        io.servicehooks.core.WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .on("post.create", e -> {})
            .build();
    java.util.List<String> answers = new java.util.ArrayList<>();
    for (ConsumerStub.Delivery delivery : consumer.deliveries()) {
      assertThat(JSON.readTree(delivery.body()).get("data").get("event_uuid").asText())
          .isEqualTo("rehearsal-1");
      answers.add(
          real.handle(
                  io.servicehooks.core.WebhookRequest.post(delivery.signature(), delivery.body()))
              .join()
              .bodyAsString());
    }
    assertThat(answers.get(0)).contains("\"status\":\"accepted\"");
    assertThat(answers.get(1)).contains("\"status\":\"duplicate\"");
  }

  @Test
  void send_eventIdWithBody_exits2() throws Exception {
    Cli.Run run =
        Cli.run(
            env,
            "send",
            consumer.url("/webhook"),
            "--body",
            "x.json",
            "--event-id",
            "1",
            "--allow-insecure-url");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--event-id applies to a sample");
    assertThat(consumer.deliveries()).isEmpty();
  }

  @Test
  void send_bodyFile_sendsItsBytesExactly(@TempDir Path dir) throws Exception {
    byte[] bytes =
        "{\"test_number\":1,\"test_string\":\"two\"}  \n".getBytes(StandardCharsets.UTF_8);
    Path file = Files.write(dir.resolve("event.json"), bytes);

    Cli.Run run =
        Cli.run(
            env,
            "send",
            consumer.url("/webhook"),
            "--body",
            file.toString(),
            "--allow-insecure-url");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(consumer.deliveries().get(0).body()).isEqualTo(bytes);
    assertThat(consumer.deliveries().get(0).signature()).isEqualTo(TestSigner.sign(SECRET, bytes));
  }

  @Test
  void send_json_printsStatusAndBody() throws Exception {
    Cli.Run run =
        Cli.run(
            env,
            "--json",
            "send",
            consumer.url("/webhook"),
            "--type",
            "like.create",
            "--allow-insecure-url");

    JsonNode result = JSON.readTree(run.out());
    assertThat(result.get("status").asInt()).isEqualTo(200);
    assertThat(result.get("body").asText()).isEqualTo("{\"received\":true}");
  }

  @Test
  void send_consumerRefuses_exits1WithItsStatus() {
    consumer.deliveryStatus(401);

    Cli.Run run =
        Cli.run(
            env, "send", consumer.url("/webhook"), "--type", "post.create", "--allow-insecure-url");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).contains("HTTP 401");
  }

  @Test
  void send_unknownType_sendsEmptyPayloadWithANote() throws Exception {
    Cli.Run run =
        Cli.run(
            env, "send", consumer.url("/webhook"), "--type", "brand.new", "--allow-insecure-url");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.err()).contains("no sample payload is known for brand.new");
    assertThat(
            JSON.readTree(consumer.deliveries().get(0).body())
                .get("data")
                .get("event_type")
                .asText())
        .isEqualTo("brand.new");
  }

  @Test
  void send_missingConsumerSecret_exits2WithoutSending() {
    Cli.Run run =
        Cli.run(
            Map.of(),
            "send",
            consumer.url("/webhook"),
            "--type",
            "post.create",
            "--allow-insecure-url");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("SERVICE_CONSUMER_SECRET");
    assertThat(consumer.deliveries()).isEmpty();
  }

  @Test
  void send_httpUrlWithoutFlag_exits2() {
    Cli.Run run = Cli.run(env, "send", consumer.url("/webhook"), "--type", "post.create");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("must use https");
    assertThat(consumer.deliveries()).isEmpty();
  }

  @Test
  void send_neitherTypeNorBody_exits2() {
    Cli.Run run = Cli.run(env, "send", consumer.url("/webhook"), "--allow-insecure-url");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--type");
  }

  @Test
  void send_output_neverShowsTheConsumerSecret() {
    Cli.Run run =
        Cli.run(env, "send", consumer.url("/webhook"), "--type", "dm.sent", "--allow-insecure-url");

    assertThat(run.out() + run.err()).doesNotContain(SECRET);
  }
}
