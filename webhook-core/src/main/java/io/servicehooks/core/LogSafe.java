package io.servicehooks.core;

import io.servicehooks.core.internal.LogText;

/**
 * Makes a value taken from a payload (an event id, a type name, a field name) safe to put in a log
 * line: a control character in it could otherwise end the line and forge the next one. The value
 * comes from a verified body, but the platform relays text that third parties chose. The rules live
 * in {@link LogText}, which the other modules use for the platform's text.
 */
final class LogSafe {

  private LogSafe() {}

  /**
   * {@code value} with {@code \n}, {@code \r} and {@code \t} written as those two-character
   * escapes, a backslash doubled, and every other control character (C0, DEL, C1, and the Unicode
   * line and paragraph separators) as {@code \\uXXXX}; the same string when there is nothing to
   * escape.
   */
  static String escape(String value) {
    return LogText.escape(value);
  }
}
