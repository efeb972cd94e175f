package io.servicehooks.postgres;

import io.servicehooks.core.PayloadFamily;
import io.servicehooks.core.StoredEvent;

/** Stored events for tests that talk to the inbox directly. */
final class Events {

  private Events() {}

  static StoredEvent post(String id) {
    return post(id, "hello " + id);
  }

  static StoredEvent post(String id, String text) {
    String payload = "{\"id\":\"" + id + "\",\"text\":\"" + text + "\"}";
    return new StoredEvent(
        id,
        "e:" + id,
        "post.create",
        "post.create",
        PayloadFamily.ACTIVITY,
        null,
        "t",
        "{\"user_id\":\"9\"}",
        payload,
        "{\"data\":{\"event_uuid\":\""
            + id
            + "\",\"event_type\":\"post.create\",\"payload\":"
            + payload
            + "}}");
  }
}
