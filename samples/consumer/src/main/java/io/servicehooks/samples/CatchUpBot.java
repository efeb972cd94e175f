package io.servicehooks.samples;

import io.servicehooks.catchup.CatchUp;
import io.servicehooks.catchup.HeartbeatStore;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.undertow.WebhookServer;
import java.nio.file.Path;

/**
 * A bot that heals its own downtime, shown in the README's "Catching up after downtime" (a test
 * keeps the two identical): {@link CatchUp} keeps a heartbeat in a local file and asks the platform
 * to replay what it could not deliver while the bot was down.
 */
public final class CatchUpBot {

  private CatchUpBot() {}

  /** Serves the bot on port 8080; {@code client} is the registration client of the README. */
  public static CatchUp serve(WebhookClient client) {
    // README-CATCHUP-BEGIN
    CatchUp catchUp =
        CatchUp.builder()
            .client(client) // a WebhookClient, as above
            .webhookUrl("https://bot.example.org/webhooks") // or .webhookId("1876...")
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
    catchUp.start(); // once deliveries are answered: a replay may follow at once
    // README-CATCHUP-END
    return catchUp;
  }
}
