package io.servicehooks.samples;

import io.servicehooks.core.WebhookSigner;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.UUID;

/**
 * The demo behind {@code --demo}: starts the standalone consumer on a free local port with a
 * throw-away consumer secret, then plays the platform: a CRC check, then a realistic mix of
 * signed deliveries (both payload families, a legacy type name, a redelivered duplicate) and two
 * attacks (a forged signature, a CRC token that is really an event body). It prints what each
 * listener saw and what was refused, then stops. Needs no credentials and no network.
 */
final class Demo {

  private Demo() {}

  static int run(StandaloneConsumer.Settings base, PrintStream out) throws Exception {
    String secret = base.consumerSecrets().isEmpty() ? randomSecret() : base.consumerSecrets().get(0);
    StandaloneConsumer.Settings settings =
        new StandaloneConsumer.Settings(List.of(secret), "127.0.0.1", 0, base.path(), false, false, 1, 4);
    try (StandaloneConsumer consumer =
        StandaloneConsumer.start(settings, b -> b
            .on("post.create", e -> out.printf("    listener post.create    saw post %s: \"%s\"%n",
                e.id(), e.payload().path("text").asText()))
            .on("profile.update.*", e -> out.printf("    listener profile.update.* saw %s (arrived as %s) for user %s%n",
                e.type(), e.originalType(), e.forUserId().orElse("?")))
            .on("dm.*", e -> out.printf("    listener dm.*           saw %s %s%n", e.type(), e.id()))
            .on("follow.*", e -> out.printf("    listener follow.*       saw %s for user %s%n",
                e.type(), e.forUserId().orElse("?")))
            .onAny(e -> out.printf("    listener *              saw %s [%s, id %s]%n", e.type(), e.family(), e.id())))) {
      URI uri = URI.create("http://127.0.0.1:" + consumer.port() + settings.path());
      HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      out.println("servicehooks demo: consumer listening at " + uri);
      out.println();

      String token = UUID.randomUUID().toString();
      HttpResponse<String> crc = client.send(
          HttpRequest.newBuilder(URI.create(uri + "?crc_token=" + token)).build(),
          HttpResponse.BodyHandlers.ofString());
      boolean crcOk = crc.body().contains(WebhookSigner.crcResponseToken(secret, token));
      out.printf("CRC check                        -> %d %s (%s)%n%n", crc.statusCode(), crc.body(),
          crcOk ? "token verified by the platform" : "WRONG TOKEN");

      String post = "{\"data\":{\"event_uuid\":\"1876011200000000001\",\"event_type\":\"post.create\","
          + "\"filter\":{\"user_id\":\"2244994945\"},\"tag\":\"demo\",\"payload\":{\"id\":\"1876011200000000001\","
          + "\"text\":\"Hello from the platform\",\"author_id\":\"2244994945\",\"created_at\":\"2026-11-22T10:00:00.000Z\"}}}";
      deliver(client, uri, out, "activity envelope post.create", post, secret);
      deliver(client, uri, out, "legacy name ProfileBioUpdate",
          "{\"data\":{\"event_uuid\":\"-4410\",\"event_type\":\"ProfileBioUpdate\",\"filter\":{\"user_id\":\"2244994945\"},"
              + "\"payload\":{\"before\":{\"description\":\"old bio\"},\"after\":{\"description\":\"new bio\"}}}}", secret);
      deliver(client, uri, out, "activity envelope dm.received",
          "{\"data\":{\"event_uuid\":\"77120\",\"event_type\":\"dm.received\",\"filter\":{\"user_id\":\"2244994945\"},"
              + "\"payload\":{\"direct_message_events\":[{\"id\":\"dm-1\",\"event_type\":\"MessageCreate\",\"text\":\"hi\"}],\"users\":{}}}}", secret);
      deliver(client, uri, out, "account-activity batch (3 events)",
          "{\"for_user_id\":\"2244994945\",\"favorite_events\":[{\"id\":\"fav-1\",\"favorited_status\":{\"id_str\":\"1\"}}],"
              + "\"follow_events\":[{\"type\":\"follow\",\"created_timestamp\":\"1763805600000\",\"source\":{\"id\":\"7\"},\"target\":{\"id\":\"2244994945\"}}],"
              + "\"direct_message_events\":[{\"type\":\"message_create\",\"id\":\"dm-2\",\"message_create\":{\"sender_id\":\"2244994945\",\"target\":{\"recipient_id\":\"7\"}}}]}", secret);
      deliver(client, uri, out, "the post.create again (a retry)", post, secret);
      deliver(client, uri, out, "forged signature", post.replace("Hello", "Buy crypto"), "not-the-consumer-secret");

      String forgedToken = java.net.URLEncoder.encode(post, StandardCharsets.UTF_8);
      HttpResponse<String> oracle = client.send(
          HttpRequest.newBuilder(URI.create(uri + "?crc_token=" + forgedToken)).build(),
          HttpResponse.BodyHandlers.ofString());
      out.printf("CRC token that is an event body  -> %d %s%n%n", oracle.statusCode(), oracle.body());

      out.println("Meters (GET " + "/metrics):");
      consumer.scrape().lines()
          .filter(l -> l.startsWith("webhook_deliveries_total") || l.startsWith("webhook_events_total")
              || l.startsWith("webhook_crc_total"))
          .forEach(l -> out.println("    " + l));
      return crcOk ? 0 : 1;
    }
  }

  private static void deliver(HttpClient client, URI uri, PrintStream out, String what, String json, String secret)
      throws Exception {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    out.printf("POST %-28s%n", what);
    HttpResponse<String> r = client.send(
        HttpRequest.newBuilder(uri)
            .header("Content-Type", "application/json")
            .header("x-service-webhooks-signature", WebhookSigner.sign(secret, body))
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
    out.printf("                                 -> %d %s%n%n", r.statusCode(), r.body());
  }

  private static String randomSecret() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }
}
