package io.servicehooks.samples.springbot;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.servicehooks.core.WebhookEvent;
import io.servicehooks.spring.OnWebhookEvent;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The bot's listeners: plain methods of a Spring bean, routed by {@link OnWebhookEvent}. Each event
 * reaches them once, even when the platform delivers it again.
 */
@Component
public class BotListeners {

  private static final Logger log = LoggerFactory.getLogger(BotListeners.class);

  private final AtomicLong posts = new AtomicLong();
  private final AtomicLong profileUpdates = new AtomicLong();

  /** A post, mapped from the event's payload; unknown fields are ignored. */
  public record Post(String id, String text, @JsonProperty("author_id") String authorId) {}

  /** New posts, with the payload mapped to {@link Post}. */
  @OnWebhookEvent("post.create")
  public void onPost(Post post) {
    posts.incrementAndGet();
    log.info("Post {} by {}: {}", post.id(), post.authorId(), post.text());
  }

  /**
   * Every profile change; legacy names such as ProfileBioUpdate arrive under their current name.
   */
  @OnWebhookEvent("profile.update.*")
  public void onProfileUpdate(WebhookEvent event) {
    profileUpdates.incrementAndGet();
    log.info(
        "Profile of {} changed: {} (sent as {})",
        event.forUserId().orElse("?"),
        event.type(),
        event.originalType());
  }

  /** How many posts were handled. */
  public long posts() {
    return posts.get();
  }

  /** How many profile changes were handled. */
  public long profileUpdates() {
    return profileUpdates.get();
  }
}
