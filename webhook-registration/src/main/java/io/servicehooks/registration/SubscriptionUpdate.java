package io.servicehooks.registration;

import java.util.Objects;

/**
 * The change {@link WebhookClient#updateSubscription} asks for: the platform changes only a
 * subscription's {@code tag} and {@code webhook_id} ({@code PUT /2/activity/subscriptions/{id}}); a
 * new filter or event type means delete and create. Immutable; start from {@link #change()}.
 *
 * <pre>{@code
 * client.updateSubscription(id, SubscriptionUpdate.change().tag("vip").noWebhook());
 * }</pre>
 */
public final class SubscriptionUpdate {

  private final String tag;
  private final String webhookId;
  private final boolean detach;

  private SubscriptionUpdate(String tag, String webhookId, boolean detach) {
    this.tag = tag;
    this.webhookId = webhookId;
    this.detach = detach;
  }

  /** An update that changes nothing yet; add at least one change before sending it. */
  public static SubscriptionUpdate change() {
    return new SubscriptionUpdate(null, null, false);
  }

  /** Sets the tag echoed in every event of the subscription. */
  public SubscriptionUpdate tag(String tag) {
    Objects.requireNonNull(tag, "tag");
    if (tag.isBlank()) {
      throw new IllegalArgumentException("tag must not be blank");
    }
    return new SubscriptionUpdate(tag, webhookId, detach);
  }

  /** Sends the subscription's events to this webhook (and to the stream while one is open). */
  public SubscriptionUpdate webhookId(String webhookId) {
    if (detach) {
      throw new IllegalArgumentException("give a webhook id or no webhook, not both");
    }
    return new SubscriptionUpdate(tag, WebhookUrls.checkWebhookId(webhookId), false);
  }

  /** Detaches the subscription from its webhook: its events go to the activity stream only. */
  public SubscriptionUpdate noWebhook() {
    if (webhookId != null) {
      throw new IllegalArgumentException("give a webhook id or no webhook, not both");
    }
    return new SubscriptionUpdate(tag, null, true);
  }

  /** The new tag, or {@code null} to keep it. */
  public String newTag() {
    return tag;
  }

  /** The new webhook id, or {@code null} to keep it (or to detach, see {@link #detaches()}). */
  public String newWebhookId() {
    return webhookId;
  }

  /** Whether the subscription is detached from its webhook. */
  public boolean detaches() {
    return detach;
  }

  boolean isEmpty() {
    return tag == null && webhookId == null && !detach;
  }

  @Override
  public String toString() {
    return "SubscriptionUpdate[tag=" + tag + ", webhookId=" + (detach ? "(none)" : webhookId) + "]";
  }
}
