package io.servicehooks.core;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns any event type name the platform sends into its current dot-separated name.
 *
 * <p>Order of rules: a user alias; the legacy table of docs/protocol.md#event-type-names; then the
 * general rule for PascalCase names not in the table:
 *
 * <ul>
 *   <li>{@code <Subject>...Update} with at least one word between becomes {@code
 *       subject.update.words_joined_by_underscore} ({@code ProfileGeoUpdate} to {@code
 *       profile.update.geo});
 *   <li>any other PascalCase name becomes its words in lower case joined by dots ({@code NewsNew}
 *       to {@code news.new}, {@code ChatConversationJoin} to {@code chat.conversation.join}).
 * </ul>
 *
 * Names that are already lower case are current and pass through unchanged; so does anything else:
 * an unknown type is never an error.
 */
final class EventTypeNames {

  /**
   * The legacy table of docs/protocol.md#event-type-names, plus older spellings of current names.
   */
  static final Map<String, String> LEGACY =
      Map.ofEntries(
          Map.entry("ProfileBioUpdate", "profile.update.bio"),
          Map.entry("ProfilePictureUpdate", "profile.update.profile_picture"),
          Map.entry("ProfileBannerPictureUpdate", "profile.update.banner_picture"),
          Map.entry("ProfileBannerUpdate", "profile.update.banner_picture"),
          Map.entry("ProfileScreennameUpdate", "profile.update.screenname"),
          Map.entry("ProfileGeoUpdate", "profile.update.geo"),
          Map.entry("ProfileUrlUpdate", "profile.update.url"),
          Map.entry("ProfileVerifiedBadgeUpdate", "profile.update.verified_badge"),
          Map.entry("NewsNew", "news.new"),
          Map.entry("FollowFollow", "follow.follow"),
          Map.entry("FollowUnfollow", "follow.unfollow"),
          Map.entry("chat.conversation_join", "chat.conversation.join"));

  private static final int CACHE_LIMIT = 4096;

  private final Map<String, String> aliases;
  private final Map<String, String> cache = new ConcurrentHashMap<>();

  EventTypeNames(Map<String, String> userAliases) {
    Map<String, String> all = new HashMap<>(LEGACY);
    all.putAll(userAliases);
    this.aliases = Map.copyOf(all);
  }

  /** The current name for {@code raw}. */
  String normalize(String raw) {
    String cached = cache.get(raw);
    if (cached != null) {
      return cached;
    }
    String current = compute(raw);
    // Type names come only from verified bodies, but bound the cache all the same.
    if (cache.size() < CACHE_LIMIT) {
      cache.put(raw, current);
    }
    return current;
  }

  private String compute(String raw) {
    String alias = aliases.get(raw);
    if (alias != null) {
      return alias;
    }
    return isPascalCase(raw) ? fromPascalCase(raw) : raw;
  }

  static boolean isPascalCase(String s) {
    if (s.isEmpty() || !Character.isUpperCase(s.charAt(0))) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!(c < 128 && Character.isLetterOrDigit(c))) {
        return false;
      }
    }
    return true;
  }

  static String fromPascalCase(String s) {
    List<String> words = new ArrayList<>();
    int start = 0;
    for (int i = 1; i < s.length(); i++) {
      if (Character.isUpperCase(s.charAt(i)) && !Character.isUpperCase(s.charAt(i - 1))) {
        words.add(s.substring(start, i).toLowerCase(Locale.ROOT));
        start = i;
      }
    }
    words.add(s.substring(start).toLowerCase(Locale.ROOT));
    int n = words.size();
    if (n >= 3 && words.get(n - 1).equals("update")) {
      return words.get(0) + ".update." + String.join("_", words.subList(1, n - 1));
    }
    return String.join(".", words);
  }
}
