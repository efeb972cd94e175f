package io.servicehooks.catchup;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.servicehooks.core.Deduplicator;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testsupport.FakeClock;
import io.servicehooks.testsupport.Ports;
import io.servicehooks.undertow.WebhookServer;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The far side and the consumer for end-to-end tests: a {@link PlatformSimulator} whose retries run
 * on its own clock (from a fixed, whole-minute start), a registration client, and consumers on a
 * real {@link WebhookServer} that always binds the same port, so a restarted consumer answers at
 * the registered URL. All consumers share one deduplicator, as instances sharing Redis would.
 */
final class Platform implements AutoCloseable {

  static final Instant START = Instant.parse("2026-03-18T10:00:00Z");

  final PlatformSimulator simulator;
  final WebhookClient client;
  final Clock clock;
  final Deduplicator dedup = Deduplicator.inMemory();
  final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final Map<String, AtomicInteger> handled = new ConcurrentHashMap<>();
  private final int port;
  private String webhookId;

  Platform() throws IOException {
    // Fixed up front, the webhook URL outliving each consumer: outside the ephemeral range, so no
    // connection takes it while no consumer holds it.
    port = Ports.free();
    simulator =
        PlatformSimulator.builder()
            .localMode(true)
            .retriesOnSimulatorClock(true)
            .deliveryTimeout(Duration.ofSeconds(2))
            .clock(Clock.fixed(START, ZoneOffset.UTC))
            .build()
            .start();
    client =
        WebhookClient.builder()
            .baseUrl(simulator.baseUrl())
            .apiCredentials(simulator.apiKey(), simulator.apiSecret())
            .allowInsecureUrls(true)
            .connectTimeout(Duration.ofSeconds(2))
            .requestTimeout(Duration.ofSeconds(8))
            .maxRetries(0)
            .build();
    clock = FakeClock.following(simulator::now);
  }

  /** A consumer counting each post it handles, with {@code catchUp}'s listener when given. */
  WebhookConsumer consumer(CatchUp catchUp) {
    WebhookConsumer.Builder builder =
        WebhookConsumer.builder()
            .consumerSecrets(simulator.consumerSecret())
            .deduplicator(dedup)
            .on(
                "post.create",
                event ->
                    handled
                        .computeIfAbsent(
                            event.payload().path("id").asText(), id -> new AtomicInteger())
                        .incrementAndGet());
    return (catchUp == null ? builder : catchUp.install(builder)).build();
  }

  /** Serves {@code consumer} at the webhook URL. */
  WebhookServer serve(WebhookConsumer consumer) {
    WebhookServer server =
        WebhookServer.builder(consumer)
            .host("127.0.0.1")
            .port(port)
            .path("/webhooks")
            .shutdownTimeout(Duration.ofSeconds(2))
            .build()
            .start();
    return server;
  }

  String url() {
    return "http://127.0.0.1:" + port + "/webhooks";
  }

  String register() throws IOException {
    webhookId = client.ensureRegistered(url()).id();
    return webhookId;
  }

  String webhookId() {
    return webhookId;
  }

  /**
   * A catch-up on the simulator's clock, checked by the test rather than a timer; by URL until the
   * webhook is registered, then by id.
   */
  CatchUp.Builder catchUp(HeartbeatStore store) {
    CatchUp.Builder builder = CatchUp.builder();
    if (webhookId == null) {
      builder.webhookUrl(url());
    } else {
      builder.webhookId(webhookId);
    }
    return builder.client(client).store(store).clock(clock).meterRegistry(meters).scheduled(false);
  }

  void produce(String postId) {
    simulator.deliver(
        Events.activity(
            "post.create",
            "2244994945",
            java.util.Map.of("id", postId, "text", "text of " + postId, "author_id", "783214")));
  }

  void advance(Duration by) {
    simulator.advance(by);
  }

  /** Waits (bounded) until no delivery, retry or replay is in flight. */
  void settle() {
    assertThat(simulator.awaitIdle(Duration.ofSeconds(8))).as("simulator idle").isTrue();
  }

  /** Post id to how many times a listener handled it, sorted. */
  Map<String, Integer> handled() {
    Map<String, Integer> out = new TreeMap<>();
    handled.forEach((k, v) -> out.put(k, v.get()));
    return out;
  }

  double counter(String name) {
    var counter = meters.find(name).counter();
    return counter == null ? 0 : counter.count();
  }

  @Override
  public void close() {
    simulator.close();
    meters.close();
  }
}
