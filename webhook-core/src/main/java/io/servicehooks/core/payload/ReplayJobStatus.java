package io.servicehooks.core.payload;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code replay.job_status}: the platform's word on a replay job.
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
        Nodes.text(node, "webhook_id"),
        Nodes.text(node, "job_state"),
        Nodes.text(node, "job_state_description"),
        Nodes.text(node, "job_id"));
  }
}
