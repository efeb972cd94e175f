package io.servicehooks.testkit;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** A registered webhook and its mutable check state. */
final class RegisteredWebhook {

  static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  final String id;
  final String url;
  final Instant createdAt;
  private volatile boolean valid = true;
  private volatile boolean deleted;
  private volatile Instant nextCheckAt;
  private volatile String invalidReason; // why valid is false; null while valid

  RegisteredWebhook(String id, String url, Instant createdAt, Instant nextCheckAt) {
    this.id = id;
    this.url = url;
    this.createdAt = createdAt;
    this.nextCheckAt = nextCheckAt;
  }

  boolean valid() {
    return valid;
  }

  /** Whether deliveries may go to this webhook right now. */
  boolean receivesDeliveries() {
    return valid && !deleted;
  }

  /**
   * Records a CRC check's outcome.
   *
   * @param failure what went wrong when the check failed, or null when it passed
   */
  void checked(boolean passed, Instant at, String failure, Instant nextCheckAt) {
    this.invalidReason =
        passed ? null : "its CRC check failed at " + TIMESTAMP.format(at) + " (" + failure + ")";
    this.valid = passed;
    this.nextCheckAt = nextCheckAt;
  }

  /**
   * Why this webhook receives no deliveries, in words for a log line or a trigger's answer, or null
   * when it does.
   */
  String whyNoDeliveries() {
    if (deleted) {
      return "webhook " + id + " was deleted";
    }
    String reason = invalidReason;
    if (valid) {
      return null;
    }
    return "webhook "
        + id
        + " is invalid: "
        + (reason == null ? "it failed a CRC check" : reason)
        + "; PUT /2/webhooks/"
        + id
        + " revalidates it";
  }

  void markDeleted() {
    deleted = true;
  }

  boolean checkDue(Instant now) {
    return !deleted && !now.isBefore(nextCheckAt);
  }

  ObjectNode toJson() {
    ObjectNode node = Json.object();
    node.put("id", id);
    node.put("url", url);
    node.put("valid", valid);
    node.put("created_at", TIMESTAMP.format(createdAt));
    return node;
  }

  @Override
  public String toString() {
    return "RegisteredWebhook[id=" + id + ", url=" + url + ", valid=" + valid + "]";
  }
}
