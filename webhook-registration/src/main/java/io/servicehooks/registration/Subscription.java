package io.servicehooks.registration;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * An activity subscription: which events (an event type and a filter such as {@code user_id} or
 * {@code keyword}) the platform delivers, optionally to one webhook and marked with a tag.
 *
 * @param id the platform's id of the subscription
 * @param eventType the event type, for example {@code post.create}
 * @param filter the filter, for example {@code {"user_id": "2244994945"}}; never {@code null}
 * @param tag the free tag echoed in every delivery, or {@code null}
 * @param webhookId the webhook the events go to, or {@code null} when the platform did not say
 * @param createdAt when the subscription was created, or {@code null} when the platform did not say
 */
public record Subscription(
    String id,
    String eventType,
    Map<String, String> filter,
    String tag,
    String webhookId,
    Instant createdAt) {

  /** Checks that the id is present and makes the filter an unmodifiable copy. */
  public Subscription {
    Objects.requireNonNull(id, "id");
    Map<String, String> copy = new LinkedHashMap<>();
    if (filter != null) {
      filter.forEach(
          (k, v) -> {
            if (k != null && v != null) {
              copy.put(k, v);
            }
          });
    }
    filter = Collections.unmodifiableMap(copy);
  }
}
