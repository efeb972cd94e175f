package io.servicehooks.core.payload;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code replay.job_status}: the platform's word on a replay job.
 *
 * <p>{@code webhookId}, {@code jobState} and {@code jobId} are required: a payload without one
 * fails with {@link MissingPayloadFieldException}; the description may be null.
 *
 * @param webhookId the webhook replayed
 * @param jobState {@code Complete} or {@code Incomplete}
 * @param jobStateDescription the platform's description
 * @param jobId the job
 */
public record ReplayJobStatus(
    String webhookId, String jobState, String jobStateDescription, String jobId) {

  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  static ReplayJobStatus of(JsonNode node) {
    return new ReplayJobStatus(
        Nodes.required(
            Nodes.text(node, "webhook_id"), "ReplayJobStatus", "webhookId", "webhook_id"),
        Nodes.required(Nodes.text(node, "job_state"), "ReplayJobStatus", "jobState", "job_state"),
        Nodes.text(node, "job_state_description"),
        Nodes.required(Nodes.text(node, "job_id"), "ReplayJobStatus", "jobId", "job_id"));
  }
}
