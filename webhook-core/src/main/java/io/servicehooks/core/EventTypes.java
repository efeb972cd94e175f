package io.servicehooks.core;

import java.util.Map;
import java.util.Objects;

/**
 * The event-type naming rules the consumer applies, for code that meets type names outside a
 * consumer (a CLI, a log pipeline): legacy PascalCase names become current dot names by the table
 * of docs/protocol.md#event-type-names, then by a general rule ({@code <Subject>...Update} becomes
 * {@code subject.update.words_joined_by_underscore}, any other PascalCase name its lower-case words
 * joined by dots); current and unknown names pass through unchanged.
 */
public final class EventTypes {

  private static final EventTypeNames DEFAULT = new EventTypeNames(Map.of());

  private EventTypes() {}

  /**
   * The current name of {@code received}, e.g. {@code profile.update.bio} for {@code
   * ProfileBioUpdate}.
   */
  public static String currentName(String received) {
    return DEFAULT.normalize(Objects.requireNonNull(received, "received"));
  }
}
