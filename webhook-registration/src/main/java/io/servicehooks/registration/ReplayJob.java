package io.servicehooks.registration;

import java.time.Instant;
import java.util.Objects;

/**
 * A replay job started with {@link WebhookClient#replay}: the platform re-sends the events of a
 * time window to a webhook and announces completion with a {@code replay_job_status} delivery
 * carrying the same job id.
 *
 * @param jobId the platform's id of the job
 * @param createdAt when the job was created, or {@code null} when the platform did not say
 */
public record ReplayJob(String jobId, Instant createdAt) {

  /** Checks that the job id is present. */
  public ReplayJob {
    Objects.requireNonNull(jobId, "jobId");
  }
}
