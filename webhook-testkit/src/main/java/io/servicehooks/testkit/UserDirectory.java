package io.servicehooks.testkit;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The users the simulated platform knows: those seeded by a test, those who signed in through the
 * OAuth 1.0a legs, and the demo user. Lookups expand authors and mentions from here, and a mention
 * ({@code @username} in a post's text) resolves only to a user known here.
 */
final class UserDirectory {

  private final Object lock = new Object();
  // Guarded by lock: id -> the full user object, username (lower case) -> id.
  private final Map<String, ObjectNode> users = new LinkedHashMap<>();
  private final Map<String, String> byUsername = new LinkedHashMap<>();

  /** Adds or replaces a user. */
  void put(String id, String username, String name, Instant createdAt) {
    ObjectNode user = Json.object();
    user.put("id", id);
    user.put("name", name);
    user.put("username", username);
    user.put("created_at", RegisteredWebhook.TIMESTAMP.format(createdAt));
    user.put("description", "");
    user.put("protected", false);
    user.put("verified", false);
    user.put("profile_image_url", "https://pbs.example.com/profile_images/" + id + "/normal.png");
    ObjectNode metrics = user.putObject("public_metrics");
    metrics.put("followers_count", 0);
    metrics.put("following_count", 0);
    metrics.put("post_count", 0);
    metrics.put("listed_count", 0);
    synchronized (lock) {
      ObjectNode old = users.put(id, user);
      if (old != null) {
        byUsername.remove(old.get("username").asText().toLowerCase(Locale.ROOT));
      }
      byUsername.put(username.toLowerCase(Locale.ROOT), id);
    }
  }

  /** Adds a user signed in through OAuth unless the id is known already. */
  void putIfAbsent(String id, String username, Instant createdAt) {
    synchronized (lock) {
      if (users.containsKey(id)) {
        return;
      }
      put(id, username, username, createdAt);
    }
  }

  /** A copy of the user's full object, or null when unknown. */
  ObjectNode find(String id) {
    synchronized (lock) {
      ObjectNode user = users.get(id);
      return user == null ? null : user.deepCopy();
    }
  }

  /** The id of the user with this username (any case), or null. */
  String idOf(String username) {
    synchronized (lock) {
      return byUsername.get(username.toLowerCase(Locale.ROOT));
    }
  }

  /** The username of a known user, or null. */
  String username(String id) {
    synchronized (lock) {
      ObjectNode user = users.get(id);
      return user == null ? null : user.get("username").asText();
    }
  }

  @Override
  public String toString() {
    synchronized (lock) {
      return "UserDirectory[" + users.size() + " users]";
    }
  }
}
