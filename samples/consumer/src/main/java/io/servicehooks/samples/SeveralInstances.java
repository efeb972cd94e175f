package io.servicehooks.samples;

import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.redis.RedisDeduplicator;
import io.servicehooks.undertow.WebhookServer;
import java.time.Duration;

/**
 * One of several instances of a consumer behind a load balancer, sharing its memory of handled
 * events on Redis: the README's "Running several instances" shows this code (a test keeps the two
 * identical).
 */
public final class SeveralInstances {

  private SeveralInstances() {}

  public static void main(String[] args) {
    // README-BEGIN
    // Every instance: the same Redis and the same prefix. Connects now; fails if Redis is down.
    RedisDeduplicator store =
        RedisDeduplicator.builder(System.getenv("REDIS_URL")) // redis://:password@redis:6379
            .prefix("servicehooks:billing")
            .build();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(System.getenv("SERVICE_CONSUMER_SECRET"))
            .deduplicator(store)
            .dedupLease(Duration.ofSeconds(30)) // the defaults, shown
            .inFlightWait(Duration.ofSeconds(5))
            .dedupTimeout(Duration.ofSeconds(2))
            .on("post.create", event -> System.out.println(event.payload().path("text")))
            .build();
    WebhookServer server = WebhookServer.builder(consumer).port(8080).build().start();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.close(); // finishes the deliveries being answered
                  store.close(); // then the Redis connection
                }));
    // README-END
  }
}
