package io.servicehooks.samples;

import io.servicehooks.catchup.CatchUp;
import io.servicehooks.catchup.HeartbeatStore;
import io.servicehooks.core.Acknowledgement;
import io.servicehooks.core.TypedEventListener;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookResponse;
import io.servicehooks.core.payload.PostCreated;
import io.servicehooks.kafka.KafkaHandOff;
import io.servicehooks.kafka.KafkaSource;
import io.servicehooks.postgres.PostgresInbox;
import io.servicehooks.redis.RedisDeduplicator;
import io.servicehooks.registration.Answering;
import io.servicehooks.registration.UserCredentialsSource;
import io.servicehooks.registration.Webhook;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.sqlite.SqliteDeduplicator;
import io.servicehooks.stream.ActivityStream;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.TestSigner;
import io.servicehooks.undertow.WebhookServer;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import javax.sql.DataSource;

/**
 * The one snippet of each module's README, as code that compiles: {@code ReadmeSnippetTest} checks
 * that every line of a module README's Java block is a line of one samples file, in order, with
 * that file's imports. Each region here is marked with the module it belongs to.
 */
public final class ModuleReadmes {

  private ModuleReadmes() {}

  /** webhook-core: a consumer and the one call any server makes. */
  public static WebhookResponse core(String signature, byte[] body) {
    // MODULE-README webhook-core
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(System.getenv("SERVICE_CONSUMER_SECRET"))
            .on("post.create", event -> System.out.println(event.payload().path("text")))
            .build();
    // Any server: its request in, this response out.
    WebhookResponse response = consumer.handle(WebhookRequest.post(signature, body)).join();
    // MODULE-README-END
    return response;
  }

  /** webhook-undertow: the embedded server. */
  public static WebhookServer undertow(WebhookConsumer consumer) {
    // MODULE-README webhook-undertow
    WebhookServer server =
        WebhookServer.builder(consumer).port(8080).path("/webhooks").build().start();
    // close() answers the deliveries in progress, then stops.
    Runtime.getRuntime().addShutdownHook(new Thread(server::close));
    // MODULE-README-END
    return server;
  }

  /** webhook-registration: the platform's API client. */
  public static Webhook registration() throws IOException {
    // MODULE-README webhook-registration
    WebhookClient client =
        WebhookClient.builder()
            .baseUrl(URI.create("https://api.example.com"))
            .apiCredentials(System.getenv("SERVICE_API_KEY"), System.getenv("SERVICE_API_SECRET"))
            .build();
    Webhook webhook = client.ensureRegistered("https://bot.example.org/webhooks");
    // MODULE-README-END
    return webhook;
  }

  /** webhook-sqlite: dedup in one file that survives restarts. */
  public static WebhookConsumer sqlite() {
    // MODULE-README webhook-sqlite
    SqliteDeduplicator store = SqliteDeduplicator.open(Path.of("servicehooks-dedup.db"));
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(System.getenv("SERVICE_CONSUMER_SECRET"))
            .deduplicator(store)
            .on("post.mention.create", event -> System.out.println(event.id()))
            .build();
    // at shutdown: consumer.close(), then store.close()
    // MODULE-README-END
    return consumer;
  }

  /** webhook-registration: a listener that answers a mention as the bot user. */
  public static TypedEventListener<PostCreated> registrationAnswering(WebhookClient client) {
    // MODULE-README webhook-registration
    Answering answering = Answering.with(client, UserCredentialsSource.fromEnvironment());
    TypedEventListener<PostCreated> thanks =
        answering.listener(
            PostCreated.class,
            (event, post, say) -> say.reply("@" + post.authorUsername() + " thanks!"));
    // MODULE-README-END
    return thanks;
  }

  /** webhook-redis: dedup shared by every instance. */
  public static WebhookConsumer redis() {
    // MODULE-README webhook-redis
    RedisDeduplicator store =
        RedisDeduplicator.builder(System.getenv("REDIS_URL")) // redis://:password@redis:6379
            .prefix("servicehooks:billing")
            .build();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(System.getenv("SERVICE_CONSUMER_SECRET"))
            .deduplicator(store)
            .on("post.create", event -> System.out.println(event.id()))
            .build();
    // MODULE-README-END
    return consumer;
  }

  /** webhook-kafka: acknowledged once the brokers have every event. */
  public static WebhookConsumer kafka(String bootstrapServers) {
    // MODULE-README webhook-kafka
    KafkaHandOff handOff =
        KafkaHandOff.builder(bootstrapServers, "servicehooks.events") // e.g. "broker-1:9092"
            .topicForType(type -> type.startsWith("dm.") ? "servicehooks.dm" : null)
            .build();
    WebhookConsumer edge =
        WebhookConsumer.builder()
            .consumerSecrets(System.getenv("SERVICE_CONSUMER_SECRET"))
            .inbox(handOff)
            .build();
    // MODULE-README-END
    return edge;
  }

  /** webhook-kafka: the listeners run from the topic, in a consumer group. */
  public static WebhookConsumer kafkaSource(String bootstrapServers) {
    // MODULE-README webhook-kafka
    WebhookConsumer reader =
        WebhookConsumer.builder()
            .consumerSecrets(System.getenv("SERVICE_CONSUMER_SECRET"))
            .acknowledgement(Acknowledgement.DURABLE)
            .inbox(KafkaSource.builder(bootstrapServers, "servicehooks.events").build())
            .on("post.create", event -> System.out.println(event.id()))
            .build();
    // MODULE-README-END
    return reader;
  }

  /** webhook-postgres: the durable inbox. */
  public static WebhookConsumer postgres(DataSource dataSource) {
    // MODULE-README webhook-postgres
    PostgresInbox inbox =
        PostgresInbox.builder()
            .dataSource(dataSource) // your pool (HikariCP): writers + workers + 4 connections
            .createSchema(true) // or let a DBA apply the versioned SQL
            .build();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(System.getenv("SERVICE_CONSUMER_SECRET"))
            .inbox(inbox) // 200 only once stored; the consumer starts and closes the inbox
            .on("post.create", event -> System.out.println(event.id()))
            .build();
    // MODULE-README-END
    return consumer;
  }

  /** webhook-catchup: replays the consumer's own downtime. */
  public static CatchUp catchUp(WebhookClient client) {
    // MODULE-README webhook-catchup
    CatchUp catchUp =
        CatchUp.builder()
            .client(client)
            .webhookUrl("https://bot.example.org/webhooks")
            .store(HeartbeatStore.file(Path.of("servicehooks-heartbeat")))
            .build();
    WebhookConsumer consumer =
        catchUp
            .install(
                WebhookConsumer.builder()
                    .consumerSecrets(System.getenv("SERVICE_CONSUMER_SECRET"))
                    .on("post.create", event -> System.out.println(event.id())))
            .build();
    WebhookServer.builder(consumer).port(8080).path("/webhooks").build().start();
    catchUp.start();
    // MODULE-README-END
    return catchUp;
  }

  /** webhook-stream: the activity stream into a consumer. */
  public static ActivityStream stream(WebhookConsumer consumer, WebhookClient client) {
    // MODULE-README webhook-stream
    ActivityStream stream =
        ActivityStream.builder(consumer, client)
            .backfillMinutes(5) // asked again after a reconnect; dedup absorbs the overlap
            .build()
            .start(); // returns at once; reconnects on its own
    // MODULE-README-END
    return stream;
  }

  /** webhook-testkit: a signed delivery for a test, without a network. */
  public static WebhookResponse testkit(WebhookConsumer consumer) {
    // MODULE-README webhook-testkit
    String body = Events.postCreate("2244994945", "1876", "hello");
    WebhookResponse response =
        consumer
            .handle(
                WebhookRequest.post(
                    TestSigner.sign("test-secret", body), body.getBytes(StandardCharsets.UTF_8)))
            .join();
    // MODULE-README-END
    return response;
  }
}
