package io.servicehooks.samples;

import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookEvent;
import io.servicehooks.undertow.WebhookHandler;
import io.undertow.Handlers;
import io.undertow.Undertow;
import io.undertow.util.Headers;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A bot that already runs its own Undertow server and mounts the webhook beside its other routes.
 * It counts mentions per author and maps DM payloads onto its own record type.
 */
public final class EmbeddedBot {

  /** The part of a post payload this bot cares about. */
  public record Post(String id, String text, String author_id) {}

  private final Map<String, AtomicLong> postsByAuthor = new ConcurrentHashMap<>();

  private EmbeddedBot() {}

  public static void main(String[] args) {
    EmbeddedBot bot = new EmbeddedBot();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(System.getenv("SERVICE_CONSUMER_SECRET"))
            .on(java.util.List.of("post.create", "post.mention.create"), bot::onPost)
            .onError(
                (event, error) -> System.err.println("could not handle " + event + ": " + error))
            .build();
    Undertow.builder()
        .addHttpListener(Integer.parseInt(System.getenv().getOrDefault("PORT", "8080")), "0.0.0.0")
        .setHandler(
            Handlers.path()
                .addExactPath("/bot/webhooks", new WebhookHandler(consumer))
                .addExactPath(
                    "/bot/stats",
                    exchange -> {
                      exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, "text/plain");
                      exchange.getResponseSender().send(bot.postsByAuthor.toString());
                    }))
        .build()
        .start();
  }

  private void onPost(WebhookEvent event) {
    Post post = event.payloadAs(Post.class);
    postsByAuthor.computeIfAbsent(post.author_id(), a -> new AtomicLong()).incrementAndGet();
  }
}
