package io.servicehooks.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /2/webhooks/replay}: checks the window (minutes, UTC, within the last 24 hours), runs
 * one job at a time through {@link Deliveries#replay}, and records every accepted request.
 */
final class ReplayResource {

  // Logs under Api's name: one logger for all of the simulator's API resources, so a test's log
  // configuration silences or shows them together.
  private static final Logger log = LoggerFactory.getLogger(Api.class);

  private static final DateTimeFormatter REPLAY_DATE =
      DateTimeFormatter.ofPattern("uuuuMMddHHmm").withResolverStyle(ResolverStyle.STRICT);

  private final SimClock clock;
  private final Deliveries deliveries;
  private final Function<String, RegisteredWebhook> webhooks;
  private final Supplier<String> ids;
  private final Supplier<ResponseStyle> style;

  private final AtomicBoolean running = new AtomicBoolean();
  private final AtomicInteger jobsToFail = new AtomicInteger();
  private final List<ReplayRequest> requests = new CopyOnWriteArrayList<>();

  ReplayResource(
      SimClock clock,
      Deliveries deliveries,
      Function<String, RegisteredWebhook> webhooks,
      Supplier<String> ids,
      Supplier<ResponseStyle> style) {
    this.clock = clock;
    this.deliveries = deliveries;
    this.webhooks = webhooks;
    this.ids = ids;
    this.style = style;
  }

  /** Makes the next {@code jobs} accepted replay jobs fail: nothing redelivered, Incomplete. */
  void failNextJobs(int jobs) {
    jobsToFail.addAndGet(jobs);
  }

  List<ReplayRequest> requests() {
    return List.copyOf(requests);
  }

  SimResponse replay(ApiRequest request) {
    JsonNode body = Json.parseOrNull(request.body());
    if (body == null || !body.isObject()) {
      return Api.badRequest("The request body must be a JSON object");
    }
    String id = Json.text(body, "webhook_id");
    RegisteredWebhook webhook = id == null ? null : webhooks.apply(id);
    if (webhook == null) {
      return Api.webhookIdInvalid(id);
    }
    Instant from = replayDate(Json.text(body, "from_date"));
    Instant to = replayDate(Json.text(body, "to_date"));
    if (from == null || to == null) {
      return Api.badRequest("from_date and to_date are required, formatted yyyyMMddHHmm (UTC)");
    }
    Instant now = clock.now();
    if (from.isAfter(to)) {
      return Api.badRequest("from_date must not be after to_date");
    }
    if (from.isBefore(DeliveryHistory.oldestReplayable(now))) {
      return Api.badRequest("from_date must be within the last 24 hours");
    }
    if (to.isAfter(now)) {
      return Api.badRequest("to_date must not be in the future");
    }
    if (!running.compareAndSet(false, true)) {
      return SimResponse.invalidRequest(
          "ReplayConflictError", "A replay job is already running for this application");
    }
    String jobId = ids.get();
    boolean fail = jobsToFail.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
    log.info(
        "replay job {} for webhook {} from {} to {}{}",
        jobId,
        webhook.id,
        from,
        to,
        fail ? " (will fail: simulated fault)" : "");
    requests.add(new ReplayRequest(jobId, webhook.id, from, to, now));
    // to_date names a minute: the window includes all of it.
    deliveries.replay(
        webhook, from, to.plus(1, ChronoUnit.MINUTES), jobId, fail, () -> running.set(false));
    ObjectNode job = Json.object();
    job.put("job_id", jobId);
    job.put("created_at", RegisteredWebhook.TIMESTAMP.format(now));
    return SimResponse.ok(style.get() == ResponseStyle.CURRENT ? Json.data(job) : job);
  }

  private static Instant replayDate(String text) {
    if (text == null) {
      return null;
    }
    try {
      return LocalDateTime.parse(text, REPLAY_DATE).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
