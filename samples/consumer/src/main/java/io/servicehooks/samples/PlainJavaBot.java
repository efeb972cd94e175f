package io.servicehooks.samples;

import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.undertow.WebhookServer;

/**
 * A complete plain-Java bot: the README's "Use it in your project" example is this file from its
 * first import to the end, without this comment (ReadmeSnippetTest keeps the two identical).
 */
public final class PlainJavaBot {

  public static void main(String[] args) {
    // Refused at once if SERVICE_CONSUMER_SECRET is unset, blank or an unresolved ${...}.
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(System.getenv("SERVICE_CONSUMER_SECRET"))
            .on(
                "post.mention.create",
                event -> System.out.println("mention: " + event.payload().path("text")))
            .on("dm.*", event -> System.out.println(event.type() + " " + event.id()))
            .onError((event, error) -> System.err.println("failed " + event.id() + ": " + error))
            .build();
    WebhookServer server =
        WebhookServer.builder(consumer)
            .host("127.0.0.1") // default 0.0.0.0: every interface
            .port(8080)
            .path("/webhooks")
            .build()
            .start();
    // SIGTERM: stop taking requests, finish the deliveries being answered, then exit.
    Runtime.getRuntime().addShutdownHook(new Thread(server::close));
  }
}
