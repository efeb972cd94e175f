package io.servicehooks.samples;

import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.undertow.WebhookServer;

/**
 * The smallest embedding, shown on the README's first screen (a test keeps the two identical): a
 * consumer with two listeners served by the embedded Undertow server.
 */
public final class QuickStart {

  private QuickStart() {}

  public static void main(String[] args) {
    // README-BEGIN
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(System.getenv("SERVICE_CONSUMER_SECRET"))
            .on("post.mention.create", event -> System.out.println(event.payload().path("text")))
            .on("dm.*", event -> System.out.println(event.type() + " " + event.id()))
            .build();
    WebhookServer.builder(consumer).port(8080).path("/webhooks").build().start();
    // README-END
  }
}
