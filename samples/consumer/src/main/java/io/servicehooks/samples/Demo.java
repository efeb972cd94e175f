package io.servicehooks.samples;

import io.servicehooks.registration.Webhook;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.testkit.DeliveryAttempt;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.PlatformSimulator;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The demo behind {@code --demo}, the whole flow on one machine with no credentials: the platform
 * simulator starts; the standalone consumer starts on a free local port with the app's consumer
 * secret; the consumer registers itself through {@link WebhookClient#ensureRegistered} (the
 * simulator runs a real CRC check against it); the simulator delivers a realistic mix of signed
 * events (both payload families, a legacy type name, a duplicate); an attacker tries a forged
 * signature and a CRC signing-oracle token; the hourly re-check runs (on the simulator's clock) and
 * passes. Prints what each listener saw and what was refused, then stops.
 */
final class Demo {

  private static final String USER = "2244994945";
  // The posts' author: another user's posts reach the listeners; the subscribed user's own are
  // skipped by default (ignoreOwnEvents).
  private static final String AUTHOR = "783214";

  private Demo() {}

  static int run(StandaloneConsumer.Settings base, PrintStream out) throws Exception {
    try (PlatformSimulator platform = PlatformSimulator.builder().localMode(true).build().start()) {
      StandaloneConsumer.Settings settings =
          new StandaloneConsumer.Settings(
              List.of(platform.consumerSecret()), "127.0.0.1", 0, base.path(), false, false, 1, 4);
      try (StandaloneConsumer consumer =
          StandaloneConsumer.start(
              settings,
              b ->
                  b.on(
                          "post.create",
                          e ->
                              out.printf(
                                  "    listener post.create      saw post %s: \"%s\"%n",
                                  e.id(), e.payload().path("text").asText()))
                      .on(
                          "profile.update.*",
                          e ->
                              out.printf(
                                  "    listener profile.update.* saw %s (arrived as %s) for user %s%n",
                                  e.type(), e.originalType(), e.forUserId().orElse("?")))
                      .on(
                          "dm.*",
                          e ->
                              out.printf(
                                  "    listener dm.*             saw %s %s%n", e.type(), e.id()))
                      .on(
                          "follow.*",
                          e ->
                              out.printf(
                                  "    listener follow.*         saw %s for user %s%n",
                                  e.type(), e.forUserId().orElse("?")))
                      .onAny(
                          e ->
                              out.printf(
                                  "    listener *                saw %s [%s]%n",
                                  e.type(), e.family())))) {
        String url = "http://127.0.0.1:" + consumer.port() + settings.path();
        out.println("servicehooks demo");
        out.println("  platform simulator at " + platform.baseUrl());
        out.println("  consumer listening at " + url);
        out.println();

        WebhookClient client =
            WebhookClient.builder()
                .baseUrl(platform.baseUrl())
                .apiCredentials(platform.apiKey(), platform.apiSecret())
                .allowInsecureUrls(true) // local rehearsal: http and a port
                .build();
        Webhook webhook = client.ensureRegistered(url);
        out.printf(
            "1. registered with ensureRegistered: webhook %s valid=%s (the platform's CRC check passed)%n%n",
            webhook.id(), webhook.valid());

        out.println("2. the platform delivers signed events");
        deliver(
            platform,
            out,
            "post.create (activity envelope)",
            Events.activity(
                "1876011200000000001",
                "post.create",
                Map.of("user_id", USER),
                "demo",
                Map.of(
                    "id",
                    "1876011200000000001",
                    "text",
                    "Hello from the platform",
                    "author_id",
                    AUTHOR)),
            1);
        deliver(
            platform,
            out,
            "ProfileBioUpdate (legacy name)",
            Events.activity(
                "-4410",
                "ProfileBioUpdate",
                Map.of("user_id", USER),
                null,
                Map.of(
                    "before",
                    Map.of("description", "old bio"),
                    "after",
                    Map.of("description", "new bio"))),
            1);
        deliver(
            platform,
            out,
            "dm.received (activity envelope)",
            Events.activity(
                "77120",
                "dm.received",
                Map.of("user_id", USER),
                null,
                Map.of(
                    "direct_message_events",
                    List.of(Map.of("id", "dm-1", "text", "hi")),
                    "users",
                    Map.of())),
            1);
        deliver(
            platform,
            out,
            "follow_events (account-activity batch)",
            Events.accountFollow(USER, "follow", "7", USER),
            1);
        deliver(
            platform,
            out,
            "post.create delivered twice (a duplicate)",
            Events.activity(
                "1876011200000000002",
                "post.create",
                Map.of("user_id", USER),
                null,
                Map.of(
                    "id",
                    "1876011200000000002",
                    "text",
                    "Said once, delivered twice",
                    "author_id",
                    AUTHOR)),
            2);

        out.println("3. an attacker without the consumer secret");
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        String forged =
            Events.activity(
                "666",
                "post.create",
                Map.of("user_id", USER),
                null,
                Map.of("id", "666", "text", "Buy crypto", "author_id", USER));
        HttpResponse<String> refused =
            send(
                http,
                HttpRequest.newBuilder(URI.create(url))
                    .header("x-service-webhooks-signature", "sha256=" + "A".repeat(43) + "=")
                    .POST(HttpRequest.BodyPublishers.ofString(forged))
                    .build());
        out.printf(
            "   forged signature                  -> %d %s%n",
            refused.statusCode(), refused.body());
        HttpResponse<String> oracle =
            send(
                http,
                HttpRequest.newBuilder(
                        URI.create(
                            url
                                + "?crc_token="
                                + URLEncoder.encode(forged, StandardCharsets.UTF_8)))
                    .build());
        out.printf(
            "   event body sent as a CRC token    -> %d %s%n%n",
            oracle.statusCode(), oracle.body());

        platform.advance(Duration.ofHours(1));
        boolean valid =
            client.list().stream()
                .filter(w -> w.id().equals(webhook.id()))
                .allMatch(Webhook::valid);
        out.printf(
            "4. one hour later (simulated clock) the platform re-checks the webhook: %s%n%n",
            valid ? "passed, still valid" : "FAILED, webhook now invalid");

        out.println("5. meters (GET /metrics):");
        consumer
            .scrape()
            .lines()
            .filter(
                l ->
                    l.startsWith("webhook_deliveries_total")
                        || l.startsWith("webhook_events_total")
                        || l.startsWith("webhook_crc_total"))
            .forEach(l -> out.println("    " + l));
        return valid && webhook.valid() ? 0 : 1;
      }
    }
  }

  private static void deliver(
      PlatformSimulator platform, PrintStream out, String what, String body, int copies) {
    int before = platform.attempts().size();
    out.println("   " + what);
    platform.deliver(body, copies);
    platform.awaitIdle(Duration.ofSeconds(10));
    List<DeliveryAttempt> attempts = platform.attempts();
    for (DeliveryAttempt a : attempts.subList(before, attempts.size())) {
      out.printf("      -> answered %d%n", a.status());
    }
    out.println();
  }

  /** One call whose whole answer (not only its headers) must come within 10 s. */
  private static HttpResponse<String> send(HttpClient http, HttpRequest request) throws Exception {
    var answer = http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    try {
      return answer.get(10, java.util.concurrent.TimeUnit.SECONDS);
    } finally {
      answer.cancel(true);
    }
  }
}
