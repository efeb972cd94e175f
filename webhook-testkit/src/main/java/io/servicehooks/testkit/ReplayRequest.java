package io.servicehooks.testkit;

import java.time.Instant;
import java.util.Objects;

/**
 * A replay job the simulator accepted ({@code POST /2/webhooks/replay}), as recorded for test
 * assertions ({@link PlatformSimulator#replayRequests()}). The dates name minutes, in UTC, as the
 * API takes them ({@code yyyyMMddHHmm}); the job redelivers the events produced from the start of
 * the {@code from} minute to the end of the {@code to} minute.
 *
 * @param jobId the job id the API answered with, also in the job's {@code replay_job_status}
 * @param webhookId the webhook whose events are replayed
 * @param from the start of the {@code from_date} minute
 * @param to the start of the {@code to_date} minute, which the window includes whole
 * @param requestedAt when the request arrived, on the simulator's clock
 */
public record ReplayRequest(
    String jobId, String webhookId, Instant from, Instant to, Instant requestedAt) {

  /** Checks that every field is present. */
  public ReplayRequest {
    Objects.requireNonNull(jobId, "jobId");
    Objects.requireNonNull(webhookId, "webhookId");
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    Objects.requireNonNull(requestedAt, "requestedAt");
  }
}
