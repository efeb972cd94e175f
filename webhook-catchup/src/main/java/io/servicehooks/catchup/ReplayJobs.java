package io.servicehooks.catchup;

import com.fasterxml.jackson.databind.JsonNode;
import io.servicehooks.core.WebhookEvent;
import io.servicehooks.registration.ReplayJob;
import io.servicehooks.registration.WebhookApiException;
import io.servicehooks.registration.WebhookClient;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job bookkeeping of {@link CatchUp}: asks the platform for a recorded window, records the
 * platform's job id, closes the job on its {@code replay_job_status}, and retries a failed or
 * overdue attempt with doubling back-off or gives it up. Called under the {@link CatchUp}'s lock.
 */
final class ReplayJobs {

  private static final Logger log = LoggerFactory.getLogger(CatchUp.class);

  private static final Duration MAX_BACKOFF = Duration.ofHours(1);

  private final WebhookClient client;
  private final String webhookUrl;
  private final HeartbeatStore store;
  private final Duration backoff;
  private final int maxAttempts;
  private final Duration jobTimeout;
  private final CatchUpMetrics metrics;

  // Statuses that arrived while the store's job had no id yet (the platform can be faster than the
  // write of the id): job id to state, looked at once the id is recorded.
  private final Map<String, String> earlyStatuses = new ConcurrentHashMap<>();

  private volatile String webhookId;

  ReplayJobs(
      WebhookClient client,
      String webhookId,
      String webhookUrl,
      HeartbeatStore store,
      Duration backoff,
      int maxAttempts,
      Duration jobTimeout,
      CatchUpMetrics metrics) {
    this.client = client;
    this.webhookId = webhookId;
    this.webhookUrl = webhookUrl;
    this.store = store;
    this.backoff = backoff;
    this.maxAttempts = maxAttempts;
    this.jobTimeout = jobTimeout;
    this.metrics = metrics;
  }

  /** The webhook's id; from its URL, the client makes sure it is registered the first time. */
  String webhookId() throws IOException {
    String id = webhookId;
    if (id == null) {
      id = client.ensureRegistered(webhookUrl).id();
      webhookId = id;
    }
    return id;
  }

  /** The webhook's id if known, else its URL. */
  String webhookLabel() {
    String id = webhookId;
    return id != null ? id : webhookUrl;
  }

  /** Asks the platform for {@code job}'s window; the caller leads. */
  void ask(String id, CatchUpJob job, Instant now) throws IOException {
    ReplayJob answer;
    try {
      // to_date is the minute of `until`, which the platform replays whole: up to to().
      answer = client.replay(id, job.from(), job.until());
    } catch (WebhookApiException e) {
      metrics.failed();
      String reason =
          e.reasonName().orElse("HTTP " + e.status())
              + (e.status() == 429 ? " (rate limited)" : "");
      if (e.reason() == WebhookApiException.Reason.REPLAY_CONFLICT
          || e.status() == 429
          || e.status() >= 500) {
        retryLater(id, job, reason, now);
      } else {
        giveUp(id, job, "refused: " + reason);
      }
      return;
    } catch (IOException e) {
      metrics.failed();
      retryLater(id, job, "platform not reached (" + e.getClass().getSimpleName() + ")", now);
      return;
    }
    metrics.asked();
    CatchUpJob asked = job.withJobId(answer.jobId());
    store.putJob(asked);
    log.info(
        "Catch-up asked replay job {} for webhook {} {} (attempt {})",
        asked.jobId(),
        id,
        DowntimeWindow.describe(asked),
        asked.attempt());
    String early = earlyStatuses.remove(asked.jobId());
    if (early != null) {
      outcome(id, asked, early, now);
    }
  }

  /** A job is recorded: wait for it, or retry it when due or overdue. */
  void pending(String id, CatchUpJob job, Instant now) throws IOException {
    if (job.underWay()) {
      if (job.jobId() != null) {
        String early = earlyStatuses.remove(job.jobId());
        if (early != null) {
          outcome(id, job, early, now);
          return;
        }
      }
      if (now.isBefore(job.askedAt().plus(jobTimeout))) {
        return; // its replay_job_status is still to come
      }
    } else if (now.isBefore(job.retryAt())) {
      return;
    }
    Optional<HeartbeatStore.Leadership> lead = store.tryLead(CatchUp.LEADER_LEASE);
    if (lead.isEmpty()) {
      return;
    }
    try (HeartbeatStore.Leadership held = lead.get()) {
      CatchUpJob current = store.read().job();
      if (current == null || !current.equals(job)) {
        return; // changed meanwhile: look again at the next check
      }
      if (job.underWay()) {
        metrics.failed();
        retryLater(
            id,
            job,
            job.jobId() == null
                ? "the instance asking stopped before the platform answered"
                : "no replay_job_status within " + jobTimeout,
            now);
        return;
      }
      CatchUpJob next = job.nextAttempt(now);
      store.putJob(next); // before the call, as the first time
      ask(id, next, now);
    }
  }

  /** A {@code replay_job_status} delivery; runs on the consumer's listener thread. */
  void onJobStatus(WebhookEvent event, Supplier<Instant> clock) throws IOException {
    JsonNode status = event.payload();
    String jobId = status.path("job_id").asText("");
    String state = status.path("job_state").asText("");
    String forWebhook = status.path("webhook_id").asText("");
    String id = webhookId;
    if (jobId.isEmpty() || id != null && !forWebhook.isEmpty() && !forWebhook.equals(id)) {
      return;
    }
    CatchUpJob job = store.read().job(); // a failure answers 500: the platform sends it again
    if (job == null || !jobId.equals(job.jobId())) {
      if (job != null && job.jobId() == null && job.underWay()) {
        earlyStatuses.put(jobId, state);
      }
      log.debug("Catch-up: replay_job_status of job {} is not the catch-up job in progress", jobId);
      return;
    }
    outcome(id != null ? id : forWebhook, job, state, clock.get());
  }

  private void outcome(String id, CatchUpJob job, String state, Instant now) throws IOException {
    if (state.equalsIgnoreCase("Complete")) {
      if (store.finishJob(job.key(), null, job.until())) {
        metrics.completed();
        log.info(
            "Catch-up replay job {} for webhook {} {}: Complete (attempt {})",
            job.jobId(),
            id,
            DowntimeWindow.describe(job),
            job.attempt());
      }
      return;
    }
    metrics.failed();
    retryLater(id, job, "job " + job.jobId() + " " + (state.isEmpty() ? "ended" : state), now);
  }

  /** Records the next attempt of the window after a failed one, or gives up after the last. */
  private void retryLater(String id, CatchUpJob job, String reason, Instant now)
      throws IOException {
    if (job.attempt() >= maxAttempts) {
      giveUp(id, job, reason);
      return;
    }
    Duration wait = backoff.multipliedBy(1L << Math.min(job.attempt() - 1, 20));
    if (wait.compareTo(MAX_BACKOFF) > 0) {
      wait = MAX_BACKOFF;
    }
    Instant at = now.plus(wait);
    if (store.finishJob(job.key(), job.retryingAt(at), null)) {
      log.info(
          "Catch-up replay for webhook {} {}: {}; attempt {} of {}, asking again at {}",
          id,
          DowntimeWindow.describe(job),
          reason,
          job.attempt(),
          maxAttempts,
          at);
    }
  }

  private void giveUp(String id, CatchUpJob job, String reason) throws IOException {
    if (store.finishJob(job.key(), null, job.until())) {
      log.warn(
          "Catch-up replay for webhook {} {}: {}; gave up after attempt {}: events of"
              + " this window that were not delivered are lost",
          id,
          DowntimeWindow.describe(job),
          reason,
          job.attempt());
    }
  }
}
