package io.servicehooks.registration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.ObservationView;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookResponse;
import io.servicehooks.core.payload.DirectMessage;
import io.servicehooks.core.payload.PostCreated;
import io.servicehooks.registration.RecordingPlatform.Request;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.TestSigner;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Answering from a listener: a real {@link WebhookConsumer} gets signed deliveries of the testkit's
 * samples, its listeners answer through {@link Say}, and a real HTTP server playing the platform
 * records the answers.
 */
final class AnsweringTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BOT = "1500";
  private static final UserCredentials BOT_CREDENTIALS =
      new UserCredentials("bot-token", "bot-secret", BOT, "bot");

  private RecordingPlatform platform;
  private WebhookClient client;
  private final List<Throwable> failures = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    platform = new RecordingPlatform();
    client =
        WebhookClient.builder()
            .baseUrl(platform.baseUrl())
            .apiCredentials("api-key", "api-secret")
            .build();
  }

  @AfterEach
  void stop() {
    platform.close();
  }

  private WebhookResponse deliver(WebhookConsumer consumer, String body) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    return consumer.handle(WebhookRequest.post(TestSigner.sign("s", bytes), bytes)).join();
  }

  private WebhookConsumer.Builder consumer() {
    return WebhookConsumer.builder()
        .consumerSecrets("s")
        .onError((e, error) -> failures.add(error));
  }

  @Test
  void mention_sayReply_repliesToThatPostAsTheUser() throws Exception {
    platform.answer(201, "{\"data\":{\"id\":\"9001\",\"text\":\"@x thanks!\"}}");
    Answering answering = Answering.with(client, UserCredentialsSource.single(BOT_CREDENTIALS));
    List<String> created = new CopyOnWriteArrayList<>();
    WebhookConsumer consumer =
        consumer()
            .onEvent(
                PostCreated.class,
                answering.listener(
                    PostCreated.class,
                    (event, post, say) -> {
                      if (post.isMentionOf(say.userId())) {
                        created.add(say.reply("@" + post.authorUsername() + " thanks!"));
                      }
                    }))
            .build();
    String body = Events.sample("post.mention.create", BOT);

    WebhookResponse answer = deliver(consumer, body);

    assertThat(answer.status()).as("%s", failures).isEqualTo(200);
    assertThat(created).containsExactly("9001");
    Request request = platform.requests().get(0);
    assertThat(request.uri().getPath()).isEqualTo("/2/posts");
    assertThat(request.header("Authorization")).contains("oauth_token=\"bot-token\"");
    JsonNode sent = JSON.readTree(request.body());
    assertThat(sent.at("/reply/in_reply_to_post_id").asText()).isEqualTo(consumerSeen(body).id());
    assertThat(sent.get("text").asText()).startsWith("@").endsWith(" thanks!");
  }

  /** The post the consumer reads from {@code body}, through the core's own record. */
  private PostCreated consumerSeen(String body) {
    List<PostCreated> seen = new CopyOnWriteArrayList<>();
    WebhookConsumer reader =
        WebhookConsumer.builder()
            .consumerSecrets("s")
            .onEvent(PostCreated.class, (e, p) -> seen.add(p))
            .build();
    deliver(reader, body);
    return seen.get(0);
  }

  @Test
  void dmReceived_sayReply_sendsADirectMessageBackToTheSender() throws Exception {
    platform.answer(201, "{\"data\":{\"dm_conversation_id\":\"c\",\"dm_event_id\":\"77\"}}");
    Answering answering = Answering.with(client, UserCredentialsSource.single(BOT_CREDENTIALS));
    List<DirectMessage> received = new CopyOnWriteArrayList<>();
    WebhookConsumer consumer =
        consumer()
            .onEvent(
                DirectMessage.class,
                answering.listener(
                    DirectMessage.class,
                    (event, dm, say) -> {
                      received.add(dm);
                      say.reply("got it");
                    }))
            .build();

    WebhookResponse answer = deliver(consumer, Events.sample("dm.received", BOT));

    assertThat(answer.status()).as("%s", failures).isEqualTo(200);
    Request request = platform.requests().get(0);
    assertThat(request.uri().getPath())
        .isEqualTo("/2/dm_conversations/with/" + received.get(0).senderId() + "/messages");
    assertThat(received.get(0).senderId()).isNotEqualTo(BOT);
    assertThat(JSON.readTree(request.body()).get("text").asText()).isEqualTo("got it");
  }

  @Test
  void noCredentialsForTheUser_listenerFailsSayingSo_noRequest() {
    UserCredentials someoneElse = new UserCredentials("t", "s", "42", "other");
    Answering answering = Answering.with(client, UserCredentialsSource.single(someoneElse));
    WebhookConsumer consumer =
        consumer()
            .onEvent(
                DirectMessage.class,
                answering.listener(DirectMessage.class, (event, dm, say) -> say.reply("got it")))
            .build();

    WebhookResponse answer = deliver(consumer, Events.sample("dm.received", BOT));

    assertThat(answer.status()).isNotEqualTo(200);
    assertThat(failures).hasSize(1);
    assertThat(failures.get(0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no credentials for user " + BOT)
        .hasMessageContaining("SERVICE_USER_TOKEN");
    assertThat(platform.requests()).isEmpty();
  }

  @Test
  void refusedAnswer_isAFailedListener() {
    platform.answer(
        403,
        "{\"detail\":\"You are not allowed to create a Post with duplicate content.\","
            + "\"title\":\"Forbidden\",\"status\":403,\"type\":\"about:blank\"}");
    Answering answering = Answering.with(client, UserCredentialsSource.single(BOT_CREDENTIALS));
    WebhookConsumer consumer =
        consumer()
            .onEvent(
                PostCreated.class,
                answering.listener(PostCreated.class, (event, post, say) -> say.reply("again")))
            .build();

    WebhookResponse answer = deliver(consumer, Events.sample("post.mention.create", BOT));

    assertThat(answer.status()).isNotEqualTo(200);
    assertThat(failures)
        .singleElement()
        .isInstanceOfSatisfying(
            WebhookApiException.class,
            e -> assertThat(e.reason()).isEqualTo(WebhookApiException.Reason.DUPLICATE_CONTENT));
    assertThat(platform.requests()).hasSize(1);
  }

  @Test
  void observation_answerIsAChildOfTheListenerInsideTheDelivery() {
    platform.answer(201, "{\"data\":{\"id\":\"9001\",\"text\":\"ok\"}}");
    List<Observation.Context> started = new CopyOnWriteArrayList<>();
    ObservationRegistry registry = ObservationRegistry.create();
    registry
        .observationConfig()
        .observationHandler(
            new ObservationHandler<>() {
              @Override
              public void onStart(Observation.Context context) {
                started.add(context);
              }

              @Override
              public boolean supportsContext(Observation.Context context) {
                return true;
              }
            });
    Answering answering =
        Answering.with(client, UserCredentialsSource.single(BOT_CREDENTIALS))
            .observationRegistry(registry);
    WebhookConsumer consumer =
        consumer()
            .observationRegistry(registry)
            .onEvent(
                PostCreated.class,
                answering.listener(PostCreated.class, (event, post, say) -> say.reply("ok")))
            .build();

    WebhookResponse answer = deliver(consumer, Events.sample("post.mention.create", BOT));

    assertThat(answer.status()).as("%s", failures).isEqualTo(200);
    Observation.Context delivery = named(started, "servicehooks.delivery");
    Observation.Context listener = named(started, "servicehooks.listener");
    Observation.Context answerCall = named(started, AnswerObservations.NAME);
    assertThat(answerCall.getContextualName()).isEqualTo("POST /2/posts");
    assertThat(answerCall.getLowCardinalityKeyValue("servicehooks.outcome").getValue())
        .isEqualTo("success");
    ObservationView parent = answerCall.getParentObservation();
    assertThat(parent.getContextView()).isSameAs(listener);
    assertThat(parent.getContextView().getParentObservation().getContextView()).isSameAs(delivery);
  }

  private static Observation.Context named(List<Observation.Context> contexts, String name) {
    return contexts.stream()
        .filter(c -> name.equals(c.getName()))
        .reduce(
            (a, b) -> {
              throw new AssertionError("more than one " + name);
            })
        .orElseThrow(() -> new AssertionError("no " + name + " in " + contexts));
  }

  // ---- where the credentials come from

  @Test
  void fromEnvironment_tokenAndSecret_forAnyUser() {
    UserCredentialsSource source =
        UserCredentialsSources.fromEnvironment(
            Map.of("SERVICE_USER_TOKEN", "tok", "SERVICE_USER_TOKEN_SECRET", "sec"), null);

    assertThat(source.forUser("123")).contains(UserCredentials.of("tok", "sec"));
    assertThat(source.toString()).doesNotContain("tok").doesNotContain("sec\"");
  }

  @Test
  void fromEnvironment_onlyOneVariable_refusedNamingTheMissingOne() {
    assertThatThrownBy(
            () -> UserCredentialsSources.fromEnvironment(Map.of("SERVICE_USER_TOKEN", "tok"), null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("SERVICE_USER_TOKEN_SECRET is not set");
  }

  @Test
  void fromEnvironment_cliCredentialsFile_forTheUserItNames(@TempDir Path home) throws Exception {
    Path file = home.resolve(".config/servicehooks/credentials.json");
    Files.createDirectories(file.getParent());
    // the CLI's UserCredentialsFile format
    Files.writeString(
        file,
        """
        {"user_id":"1500","screen_name":"bot","oauth_token":"ft","oauth_token_secret":"fs",
         "base_url":"http://127.0.0.1:1","created_at":"2026-11-26T00:00:00Z"}
        """);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));

    UserCredentialsSource source =
        UserCredentialsSources.fromEnvironment(Map.of(), home.toString());

    assertThat(source.forUser("1500")).contains(new UserCredentials("ft", "fs", "1500", "bot"));
    assertThat(source.forUser("42")).isEmpty();
  }

  @Test
  void fromEnvironment_fileReadableByOthers_refusedWithTheChmod(@TempDir Path home)
      throws Exception {
    Path file = home.resolve(".config/servicehooks/credentials.json");
    Files.createDirectories(file.getParent());
    Files.writeString(file, "{\"oauth_token\":\"ft\",\"oauth_token_secret\":\"fs\"}");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));

    assertThatThrownBy(() -> UserCredentialsSources.fromEnvironment(Map.of(), home.toString()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("chmod 600");
  }

  @Test
  void fromEnvironment_nothing_sourceWithNoneSayingWhereItLooked(@TempDir Path home) {
    UserCredentialsSource source =
        UserCredentialsSources.fromEnvironment(Map.of(), home.toString());

    assertThat(source.forUser("1500")).isEmpty();
    assertThat(source.toString()).contains("SERVICE_USER_TOKEN").contains("auth login");
  }
}
