package io.servicehooks.registration;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookResponse;
import io.servicehooks.core.payload.DirectMessage;
import io.servicehooks.core.payload.PostCreated;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testkit.SimulatedDirectMessage;
import io.servicehooks.testkit.SimulatedPost;
import io.servicehooks.testkit.SimulatedUserToken;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A reply bot, whole: the simulator delivers a mention and a direct message to a real consumer
 * behind a real HTTP server, the listeners look the post up and answer through {@link Answering} as
 * the bot user, and the simulator keeps the answers.
 */
final class ReplyBotOverSimulatorTest {

  private static final String BOT = "1500000001";
  private static final String ALICE = "1500000002";

  private final PlatformSimulator platform =
      PlatformSimulator.builder().localMode(true).build().start();
  private final List<Throwable> failures = new CopyOnWriteArrayList<>();
  private HttpServer server;

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

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
    platform.close();
  }

  @Test
  void mentionAndDm_answeredOnceEach_asTheBot() throws Exception {
    platform.addUser(BOT, "reply_bot", "Reply Bot");
    platform.addUser(ALICE, "alice", "Alice");
    SimulatedUserToken token = platform.signIn(BOT);
    WebhookClient client =
        WebhookClient.builder()
            .baseUrl(platform.baseUrl())
            .apiCredentials(platform.apiKey(), platform.apiSecret())
            .allowInsecureUrls(true)
            .clock(platformClock)
            .build();
    Answering answering =
        Answering.with(
            client,
            UserCredentialsSource.single(
                new UserCredentials(token.token(), token.tokenSecret(), BOT, token.username())));
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(platform.consumerSecret())
            .onError((event, error) -> failures.add(error))
            .onEvent(
                PostCreated.class,
                answering.listener(
                    PostCreated.class,
                    (event, post, say) -> {
                      if (!post.isMentionOf(say.userId()) || say.userId().equals(post.authorId())) {
                        return;
                      }
                      Post looked =
                          say.client()
                              .posts()
                              .get(
                                  post.id(),
                                  PostQuery.none()
                                      .postFields(PostField.AUTHOR_ID)
                                      .expansions(Expansion.AUTHOR_ID))
                              .orElseThrow();
                      say.reply("@" + looked.author().username() + " thanks!");
                    }))
            .onEvent(
                DirectMessage.class,
                answering.listener(
                    DirectMessage.class,
                    (event, dm, say) -> {
                      if (!dm.senderId().equals(say.userId())) {
                        say.reply("got it");
                      }
                    }))
            .build();
    String url = serve(consumer);
    Webhook webhook = client.create(url);
    platform.subscribe("post.mention.create", BOT, webhook.id());
    platform.subscribe("dm.received", BOT, webhook.id());

    String mention = platform.mention(ALICE, BOT, "hello");
    List<SimulatedPost> replies = platform.awaitPostsBy(BOT, 1, Duration.ofSeconds(20));
    platform.sendDm(ALICE, BOT, "hi");
    List<SimulatedDirectMessage> dms =
        platform.awaitDirectMessagesTo(ALICE, 1, Duration.ofSeconds(20));

    assertThat(failures).isEmpty();
    assertThat(replies)
        .singleElement()
        .satisfies(
            reply -> {
              assertThat(reply.text()).isEqualTo("@alice thanks!");
              assertThat(reply.inReplyToPostId()).isEqualTo(mention);
            });
    assertThat(dms).singleElement().satisfies(dm -> assertThat(dm.text()).isEqualTo("got it"));
  }

  /** Serves the consumer on a free loopback port; returns the webhook URL. */
  private String serve(WebhookConsumer consumer) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/webhooks",
        exchange -> {
          try (exchange) {
            WebhookRequest request;
            if (exchange.getRequestMethod().equals("GET")) {
              request = WebhookRequest.get(exchange.getRequestURI().getRawQuery());
            } else {
              byte[] body;
              try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
              }
              request =
                  WebhookRequest.post(
                      exchange.getRequestHeaders().getFirst(WebhookRequest.SIGNATURE_HEADER), body);
            }
            respond(exchange, consumer.handle(request).join());
          }
        });
    server.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(4));
    server.start();
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/webhooks";
  }

  private static void respond(HttpExchange exchange, WebhookResponse response) throws IOException {
    for (Map.Entry<String, String> header : response.headers().entrySet()) {
      exchange.getResponseHeaders().add(header.getKey(), header.getValue());
    }
    byte[] body = response.body();
    exchange.sendResponseHeaders(response.status(), body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      exchange.getResponseBody().write(body);
    }
  }
}
