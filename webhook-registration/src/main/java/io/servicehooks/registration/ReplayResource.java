package io.servicehooks.registration;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Objects;

/**
 * The replay call of {@link WebhookClient} ({@code POST /2/webhooks/replay}): checks the window and
 * sends it to the minute, in UTC.
 */
final class ReplayResource {

  private static final DateTimeFormatter REPLAY_DATE =
      DateTimeFormatter.ofPattern("yyyyMMddHHmm", Locale.ROOT).withZone(ZoneOffset.UTC);

  private final ApiCaller api;

  ReplayResource(ApiCaller api) {
    this.api = api;
  }

  ReplayJob replay(String webhookId, Instant from, Instant to) throws IOException {
    WebhookUrls.checkWebhookId(webhookId);
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    if (!from.isBefore(to)) {
      throw new IllegalArgumentException(
          "replay window must start before it ends, was from " + from + " to " + to);
    }
    ObjectNode body =
        Responses.JSON
            .createObjectNode()
            .put("webhook_id", webhookId)
            .put("from_date", REPLAY_DATE.format(from))
            .put("to_date", REPLAY_DATE.format(to));
    return Responses.replayJob(
        api.call("POST", "/2/webhooks/replay", Responses.bytes(body), ApiCaller.Repeat.UNSAFE));
  }
}
